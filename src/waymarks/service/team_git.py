"""What team memory asks of git: the person's name, and which commit added each line.

Every call runs the ``git`` executable in the repository (no shell, a fixed argument
list, a timeout); a missing git, a directory that is no repository, or a failing call
answers ``None`` (the caller shows "uncommitted" or falls back), never raises.
Provenance is cached per file by (size, mtime, the commit HEAD names, the stat of a
shallow clone's ``shallow`` file: a ``git fetch --unshallow`` blames again): a plan asks for
it on every prompt, and a hook is a new process each time, so the cache is also kept on
disk (``cache``: a file in the home per project, holding that project's files only;
derived, rebuilt when unreadable; a blame with no git to run is kept by the process alone,
so the next one asks git again, and one git refused for :data:`REFUSED_KEPT_S`). HEAD is read from
the repository's files, not by running git, so an unchanged file after a ``git commit``
is blamed again (its lines are committed now) and nothing else is.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Final

_TIMEOUT_S: Final = 10
#: what :func:`_git` adds to ``refusals`` for a git that did not answer in time
_TIMED_OUT: Final = b"\0timed out"
_HEADER: Final = re.compile(rb"^([0-9a-f]{40}) \d+ (\d+)")
_ZERO: Final = "0" * 40
#: the commit of a line a shallow clone's history does not reach (not a SHA)
SHALLOW: Final = "unknown (shallow clone)"
#: the commit of every line of a file whose blame git did not give in time (not a SHA)
TIMED_OUT: Final = "unknown (git blame timed out)"
#: the line number a blame's answer holds for every line it does not name
EVERY_LINE: Final = 0
_BLAME: dict[str, tuple[list[object], dict[int, str]]] = {}
#: the files whose blame this process keeps, the oldest of other projects dropped first
BLAMED_FILES: Final = 4096
_LOADED: set[str] = set()  # cache files read into _BLAME by this process
#: files whose last blame found no git to run: kept for this process (not blamed again on
#: every plan), never written to the cache, so the next process asks git again
_FAILED: set[str] = set()
#: how long a blame git refused (a repository it will not read for its owner until
#: ``safe.directory`` names it) is kept, on disk too, before it is asked again
REFUSED_KEPT_S: Final = 300
#: how long after a blame ran out of time no other file is blamed by this process: with
#: git hanging, each file waited the whole timeout (50 s a plan after a pull changed five
#: teammates' files, past a host's hook timeout, and a hook stopped there kept none)
HUNG_S: Final = 60
_HUNG: list[float] = []  # (time.monotonic() of the last blame that timed out)
#: what names a repository, or a part of one, to git in its environment (those of ``git
#: rev-parse --local-env-vars`` that are not configuration): inherited from a git hook or
#: ``git rebase -x`` that started the agent, they named that repository, not the one each
#: call here runs in (its ``cwd``), so they are dropped. Configuration given through the
#: environment (GIT_CONFIG_COUNT/KEY/VALUE, GIT_CONFIG_PARAMETERS: a CI's safe.directory)
#: names no repository and is kept
_REPOSITORY_ENV: Final = frozenset({
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR"})
#: git's environment without the user's and the system's configuration files
_WITHOUT_USER_CONFIG: Final = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _now() -> float:
    return time.time()


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None,
         refusals: list[bytes] | None = None) -> bytes | None:
    """git's standard output, or ``None`` when it could not answer (``refusals``, if
    given, collects what a git that ran and failed said on standard error)."""
    try:
        # in English (LC_ALL=C), so that the one refusal read below reads the same in
        # every language git speaks; and never a command the repository's .git/config
        # names (core.fsmonitor, run to read the index; a diff driver's textconv, run by
        # blame: switched off where blame is asked); the repository is the one ``cwd``
        # is in, whatever an inherited GIT_DIR names
        done = subprocess.run(["git", "-c", "core.fsmonitor=false", *args], cwd=cwd,
                              capture_output=True,
                              timeout=_TIMEOUT_S, check=False,
                              env={**{k: v for k, v in os.environ.items()
                                      if k not in _REPOSITORY_ENV},
                                   "LC_ALL": "C", **(env or {})})
    except subprocess.TimeoutExpired:
        # git ran, and took too long (a blame of a huge file with a long history): an
        # answer with nothing in it, kept as one, so that each new process does not wait
        # again; a git that could not answer at all is None, asked again next time
        if refusals is not None:
            refusals.append(_TIMED_OUT)
        return b""
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 and done.stderr.startswith(b"fatal: no such path "):
        # a blame of a file git does not track yet (between `team share` and `git add`,
        # or one `.gitignore` hides): an answer about the file, none of its lines
        # committed, kept as one; taken for git failing, every new process (each
        # prompt's hook) blamed it twice again
        return b""
    if done.returncode != 0 and refusals is not None:
        refusals.append(done.stderr)
    return done.stdout if done.returncode == 0 else None


class GitTimedOut(Exception):
    """git ran and did not answer in time; the message says which command, with the fix."""


def _timed_out(command: str, check: str) -> str:
    """What is wrong when ``command`` hung, with the fix: ``check`` answering here."""
    return (f"git did not answer within {_TIMEOUT_S} s here (`{command}` hung: a wrapper, "
            f"a network filesystem or a lock waiting): check that `{check}` answers here")


def user_name(cwd: Path) -> str | None:
    """``git config user.name`` of the repository, if set; :class:`GitTimedOut` when git
    hangs on it: its silence read as no name made a home's contributor ID
    ``contributor-…`` for good, and an entry's author that ID."""
    refusals: list[bytes] = []
    out = _git(cwd, "config", "user.name", refusals=refusals)
    if _TIMED_OUT in refusals:
        raise GitTimedOut(_timed_out("git config user.name", "git config user.name"))
    name = out.decode("utf-8", "replace").strip() if out else ""
    return name or None


def is_repository(cwd: Path) -> bool:
    """Whether ``cwd`` is inside a git working tree: a bare repository, or a repository's
    ``.git`` directory, answers ``false`` (and exits 0), and nothing there is committed."""
    return _git(cwd, "rev-parse", "--is-inside-work-tree") == b"true\n"


def _refusals(cwd: Path) -> list[bytes]:
    """What git said failing to tell whether ``cwd`` is in a working tree (with
    :data:`_TIMED_OUT` for a git that did not answer in time)."""
    refusals: list[bytes] = []
    _git(cwd, "rev-parse", "--is-inside-work-tree", refusals=refusals)
    return refusals


def _owner_refused(refusals: list[bytes]) -> str | None:
    """The repository git refuses for its owner (another user's, until ``safe.directory``
    names it: the path git names, the top of the checkout), if ``refusals`` say so: no
    repository to every other question, where "run `git init`" fixes nothing."""
    for said in refusals:
        named = re.search(rb"detected dubious ownership in repository at '([^\n]*)'", said)
        if named:
            return os.fsdecode(named[1])
    return None


def trouble(cwd: Path) -> tuple[str, str] | None:
    """``(code, what is wrong, with its fix)`` when git cannot be run here, does not
    answer in time, or refuses the checkout holding ``cwd`` for its owner; ``None`` when
    git answers (or finds no repository: :func:`is_repository` tells). A git that hangs
    (a wrapper, a network filesystem) was taken for an answer: "no repository, run `git
    init`", and a home's first share made its contributor ID without ``user.name``."""
    from waymarks.core.text import escaped, shell_command

    if not installed():
        return ("git_missing", "git cannot be run here (not installed, or not on PATH): "
                "install it or add it to PATH")
    refusals = _refusals(cwd)
    if _TIMED_OUT in refusals:
        return ("git_timeout", _timed_out("git rev-parse", "git status"))
    refused = _owner_refused(refusals)
    if refused is None:
        return None
    fix = shell_command(["git", "config", "--global", "--add", "safe.directory", refused])
    return ("git_refused", f"git will not read the repository at {escaped(refused)}: "
            "another user owns it (git: \"detected dubious ownership\"); if you trust it, "
            f"let git read it (`{fix}`)")


def tracked(cwd: Path, relative: str) -> bool:
    """Whether git tracks ``relative`` (a path from ``cwd``); ``False`` when it cannot
    say (no repository, no git). Asked of a project nobody trusted (an install's): the
    command its ``.git/config`` may name for reading the index is never run (:func:`_git`)."""
    return bool(_git(cwd, "ls-files", "--error-unmatch", "--", relative))


def ignored_by(cwd: Path, relative: str) -> str | None:
    """The rule by which git ignores ``relative`` (a path from ``cwd``), as
    ``FILE:LINE:PATTERN``; ``None`` when git would add it (a tracked file is never
    ignored), or cannot say. With ``--verbose`` git also names a ``!`` rule that matched
    (``!.waymarks/team/**`` after ``.waymarks/**``), one that keeps the file: that is no
    rule ignoring it (it was said to be one, with ``git add -f`` advised)."""
    out = _git(cwd, "check-ignore", "--verbose", "--", relative)
    rule = out.decode("utf-8", "replace").split("\t", 1)[0].strip() if out else ""
    matched = re.match(r".*?:\d+:(.*)", rule)
    return None if matched is None or matched[1].startswith("!") else rule


def unmerged(directory: Path) -> list[str]:
    """The files in ``directory`` a merge left unmerged (git's index holds their sides),
    by name, sorted; none when git cannot say. A team file two branches wrote is one
    (``merge=binary`` leaves your side in place, no marker in it): its entries read as
    they stand, the other side's lost in silence once the merge is committed."""
    out = _git(directory, "ls-files", "--unmerged", "-z", "--", ".")
    names = {record.split(b"\t", 1)[1] for record in (out or b"").split(b"\0")
             if b"\t" in record}
    return sorted(os.fsdecode(name) for name in names)


def installed() -> bool:
    """Whether a ``git`` executable is on ``PATH`` (to tell "no git" from "no repository")."""
    import shutil

    return shutil.which("git") is not None


def head_commit(start: Path) -> str | None:
    """The commit HEAD names in the repository holding ``start``, read from its files
    (``.git/HEAD``, the branch's ref or ``packed-refs``); ``None`` when unknown."""
    git = _git_dir(start)
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip() if git else ""
    except OSError:
        return None
    if git is None or not head:
        return None
    if not head.startswith("ref: "):
        return head
    ref = head[5:]
    for base in (git, _common_dir(git)):
        try:
            return (base / ref).read_text(encoding="utf-8").strip()
        except OSError:
            pass
        try:
            packed = (base / "packed-refs").read_text(encoding="utf-8")
        except OSError:
            continue
        for line in packed.splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    return "unborn:" + ref  # a branch without commits yet


def _git_dir(start: Path) -> Path | None:
    """The git directory of the repository holding ``start`` (a worktree's or a
    submodule's own, from its ``.git`` file), or ``None``."""
    for directory in (start, *start.parents):
        git = directory / ".git"
        try:
            if git.is_file():  # a worktree or submodule: "gitdir: PATH"
                text = git.read_text(encoding="utf-8").strip()
                if not text.startswith("gitdir: "):
                    return None
                return (directory / text[8:]).resolve()
            if git.is_dir():
                return git
        except OSError:
            return None
    return None


def _shallow(start: Path) -> tuple[list[int] | None, frozenset[str]]:
    """The stat (size, mtime) of the repository's ``shallow`` file and the commits it
    names, where its history is cut off (``None`` and none: a complete history)."""
    git = _git_dir(start)
    if git is None:
        return None, frozenset()
    path = _common_dir(git) / "shallow"
    try:
        stat = path.stat()
        cut = frozenset(path.read_text(encoding="ascii", errors="replace").split())
    except OSError:
        return None, frozenset()
    return [stat.st_size, stat.st_mtime_ns], cut


def _refused(stamp: list[object], path: Path) -> list[object]:
    """The stamp a blame git refused is kept under: ``stamp``, the time's part of
    :data:`REFUSED_KEPT_S` and :func:`_owner_settings`."""
    return [*stamp, "refused", int(_now() // REFUSED_KEPT_S), _owner_settings(path.parent)]


def _owner_settings(start: Path) -> list[object]:
    """What git's refusal of the repository holding ``start`` for its owner depends on:
    the size and time of each configuration file that may name ``safe.directory`` (the
    global and the system one) and the owner of its git directory (not its time, which
    the owner's every git command changes). A refused blame is kept while they stand:
    `team status` names the ``safe.directory`` line, and once it was run every item still
    showed "uncommitted", no word of why, for minutes."""
    home = Path(os.environ.get("HOME") or Path.home())
    named = [os.environ.get("GIT_CONFIG_GLOBAL"), home / ".gitconfig",
             Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "config",
             os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig", _git_dir(start)]
    found: list[object] = []
    for each in named:
        try:
            stat = os.stat(each) if each else None
        except (OSError, ValueError):
            stat = None
        found.append(None if stat is None else [stat.st_uid] if each == named[-1]
                     else [stat.st_size, stat.st_mtime_ns])
    return found


def _common_dir(git: Path) -> Path:
    try:
        return (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return git


def _load(cache: Path | None) -> None:
    if cache is None or str(cache) in _LOADED:
        return
    _LOADED.add(str(cache))
    try:
        rows = json.loads(cache.read_bytes())
        for key, (stamp, commits) in rows.items():
            _BLAME.setdefault(key, (list(stamp), {int(k): str(v) for k, v in commits.items()}))
    except (OSError, ValueError, TypeError, AttributeError,
            RecursionError):
        return  # derived: a damaged cache is rebuilt by blaming again


def _save(cache: Path | None, directory: Path) -> None:
    """Write the provenance of the files in ``directory`` (one project's team ledger) to
    that project's ``cache``: what this process blamed in other projects is theirs."""
    if cache is None:
        return
    from waymarks.files.atomic import write_atomic

    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cache, json.dumps({k: [stamp, commits] for k, (stamp, commits)
                                        in _BLAME.items()
                                        if Path(k).parent == directory and k not in _FAILED}),
                     mode=0o600)
    except OSError:
        return  # a cache that cannot be written costs a blame next time, nothing else


def line_commits(path: Path, size: int, mtime_ns: int, cache: Path | None = None, *,
                 unsaved: list[Path] | None = None) -> dict[int, str]:
    """Line number (1-based) -> abbreviated commit that added it, for committed lines
    (``git blame --porcelain``); lines not yet committed are absent (:data:`EVERY_LINE`
    answers for every line: :data:`TIMED_OUT`, a blame git did not give in time). A new blame is
    written to ``cache`` at once, or, given ``unsaved``, noted there for one
    :func:`save` after a caller's many files (rewriting the cache after each of 600
    files' blames made it quadratic)."""
    key = str(path)
    _load(cache)
    shallow, cut = _shallow(path.parent)
    stamp: list[object] = [size, mtime_ns, head_commit(path.parent), shallow]
    cached = _BLAME.get(key)
    # a refusal's stamp is worked out (a few stats) only for a blame kept as refused
    refusal = cached is not None and cached[0][len(stamp):][:1] == ["refused"]
    if cached is not None and (cached[0] == stamp
                               or (refusal and cached[0] == _refused(stamp, path))):
        return cached[1]
    # the repository's blame.ignoreRevsFile list cleared (GitHub's advice sets it to
    # `.git-blame-ignore-revs`, a file the repository holds): a commit it named had its
    # lines credited to an earlier one, so the repository chose the provenance shown
    if _HUNG and time.monotonic() - _HUNG[-1] < HUNG_S:
        return {EVERY_LINE: TIMED_OUT}  # not asked, so not kept: asked once git may answer
    blame = ("blame", "--porcelain", "--no-textconv", "--ignore-revs-file=", "--",
             path.name)
    said: list[bytes] = []
    out = _git(path.parent, *blame, refusals=said)
    if out is None:
        # a blame.ignoreRevsFile that names a file that is not there (set in the user's
        # or the system's git config, as often advised, for repositories without one)
        # stops every blame, the empty --ignore-revs-file= notwithstanding (git reads
        # the whole list before it clears it): every committed line then showed as
        # "uncommitted". Blamed again without those configuration files
        out = _git(path.parent, *blame, env=_WITHOUT_USER_CONFIG)
    # no answer at all is no provenance: kept on disk for this version, every committed
    # item showed as "uncommitted" in every later process, git working again, until the
    # next commit. No git to run (missing from a hook's PATH): this process does not ask
    # again, the next one does. A git that refused (a repository it will not read for
    # its owner until `safe.directory` names it): kept for REFUSED_KEPT_S, on disk too;
    # asked by every new process, each prompt's hook ran two failing blames a file
    _FAILED.discard(key)
    if out is None:
        import shutil

        if shutil.which("git") is None:
            _FAILED.add(key)
        else:
            stamp = _refused(stamp, path)
    found: dict[int, str] = {}
    boundary: set[str] = set()
    sha = _ZERO
    for line in (out or b"").splitlines():
        match = _HEADER.match(line)
        if match:
            sha = match.group(1).decode()
            found[int(match.group(2))] = sha
        elif line == b"boundary":  # (a header of the commit just named)
            boundary.add(sha)
    # a shallow clone's cut-off commit is a boundary every older line is credited to:
    # unknown, and said so (its own lines too: blame cannot tell them apart; shown as
    # "uncommitted" they read as never committed); a root commit is a boundary too, and
    # is where its lines were added
    commits = {n: SHALLOW if sha in boundary & cut else sha[:12]
               for n, sha in found.items() if sha != _ZERO}
    if _TIMED_OUT in said:  # (kept as none committed, every committed item showed as
        commits = {EVERY_LINE: TIMED_OUT}  # "uncommitted" until the next commit)
        _HUNG[:] = [time.monotonic()]
    _make_room(str(path.parent))
    _BLAME[key] = (stamp, commits)
    if unsaved is None:
        _save(cache, path.parent)
    else:
        unsaved.append(path.parent)
    return commits


def _make_room(directory: str) -> None:
    """Drop the oldest kept blames of other directories than ``directory`` (other
    projects') while :data:`BLAMED_FILES` are kept: clearing them all at 256 files blamed
    every file of a larger team on every plan, and so did dropping this directory's own
    past the limit (4,200 files one commit pushed: each new blame dropped the file the
    next plan asked for first, 2 min a prompt). A ledger's own files are all kept."""
    while len(_BLAME) >= BLAMED_FILES:
        oldest = next((k for k in _BLAME if os.path.dirname(k) != directory), None)
        if oldest is None:
            return
        _FAILED.discard(oldest)
        del _BLAME[oldest]


def save(cache: Path | None, unsaved: list[Path]) -> None:
    """Write what :func:`line_commits` noted in ``unsaved`` (one project's directory)."""
    if unsaved:
        _save(cache, unsaved[0])
