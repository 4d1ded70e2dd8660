"""Where session files live and how a command finds the one it means.

Layout (the same as Pi's): ``<home>/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`` where
``<cwd>`` is the working directory without its leading separator and with ``/``, ``\\``
and ``:`` replaced by ``-``, and ``<timestamp>`` is ISO-8601 UTC with ``:`` and ``.``
replaced by ``-`` so that names sort by creation time.

A folder name longer than a file name may be (:data:`NAME_MAX` bytes: a project path of
~250 bytes or more) is shortened (:func:`fitted`): as much of it as fits, then a hash of
the whole name, ``--<cwd, cut>-<16 hex digits>--``. Pi has no such rule (it names the folder
as above whatever its length, and cannot keep a session of such a project), so every name
Pi can make is left as Pi makes it. :func:`session_dir` is the one mapping of a project to
its folder, for writes, reads, discovery and the ``sessionRoots`` in Pi's layout alike.

The encoding is not injective (``/x/a-b`` and ``/x/a/b`` share ``--x-a-b--``), and Pi and
existing homes already hold files there, so the directory alone never says whose a session
is: every pick reads the header line and keeps only files whose ``cwd`` is the project
(:func:`is_project_session`, the one test of "is this file a session of project P", also
used by cross-session discovery). A file without a complete header line (a creation
interrupted before it was atomic) is never picked.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from waymarks.core.codec import iso_to_ms
from waymarks.core.lazy_re import lazy
from waymarks.ledger.header import MAX_HEADER_BYTES, SessionHeader, parse_header
from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.session_file import (
    SessionFile,
    SessionFileError,
    no_session_file,
    not_a_file,
)

__all__ = ["POINTER_DIR", "aside_fix", "canonical_project_path", "files_without_header",
           "headerless_note", "in_project_dirs", "is_project_session", "ledger_of",
           "list_sessions", "newest_session", "not_a_session", "passed_over_note",
           "pointer_path", "project_headers",
           "project_session_dirs", "read_header",
           "resolve_session", "session_dir", "session_file_name", "shared_session_ids",
           "stray_fix"]

#: where the Claude Code hooks note the session they last saw, under the home: one
#: ``<session directory>.session`` per project (:func:`pointer_path`), one
#: ``pid-<pid>.session`` per Claude Code process; its MCP server follows them
POINTER_DIR = "claude-code"



#: the longest file name, in bytes, that Linux's and macOS's file systems take
NAME_MAX = 255
#: what :func:`pointer_path` adds to a session folder's name
_POINTER_SUFFIX = ".session"


def session_dir(home: Path, cwd: str) -> Path:
    """The folder of the sessions of the project ``cwd`` in the home (module docstring)."""
    return home / "sessions" / fitted(_folder_name(cwd))


def _folder_name(cwd: str) -> str:
    # Pi drops one leading separator, then each /, backslash and : is a hyphen (string: the
    # two expressions this was cost a hook ~1M instructions to compile)
    rest = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    encoded = rest.replace("/", "-").replace("\\", "-").replace(":", "-")
    return f"--{encoded}--"


def fitted(name: str, room: int = 0) -> str:
    """``name`` when it fits in a file name with ``room`` bytes to spare, else a shortened
    one: its start as far as it fits, then ``-`` and 16 hex digits of its SHA-256, ``--``
    at the end as Pi's names have. A name longer than :data:`NAME_MAX` cannot be made: a
    project of a long path could neither write nor read a session."""
    raw = os.fsencode(name)
    limit = NAME_MAX - room
    if len(raw) <= limit:
        return name
    import hashlib

    tail = f"-{hashlib.sha256(raw).hexdigest()[:16]}--"
    start = name[:limit - len(tail)]
    while len(os.fsencode(start)) > limit - len(tail):  # (a character may take bytes)
        start = start[:-1]
    return start + tail


def pointer_path(home: Path, project: str) -> Path:
    """The project's Claude Code session pointer."""
    name = fitted(_folder_name(project), len(_POINTER_SUFFIX))
    return home / POINTER_DIR / f"{name}{_POINTER_SUFFIX}"


def ledger_of(home: Path, session_id: str, cwd: str | None = None) -> Path | None:
    """The ledger of session ``session_id`` in the home, whichever project directory holds
    it (one session, one ledger): looked for in ``cwd``'s own directory first, where a
    host's session almost always is, then across every project's (a person with hundreds
    of projects had them all listed on every prompt)."""
    if cwd is not None:
        own = _named(session_dir(home, cwd), session_id)
        if own:
            return own[0]
    sessions = home / "sessions"
    found = sorted(sessions.glob(f"*/*_{session_id}.jsonl")) if sessions.is_dir() else []
    return found[0] if found else None


def _named(folder: Path, session_id: str) -> list[Path]:
    """``sorted(folder.glob(f"*_{session_id}.jsonl"))``; for an ID of letters, digits and
    hyphens (every host's) by the names' ends, without the glob's expression (~0.8M
    instructions to compile, in every hook that no helper answered)."""
    if not (session_id.isascii() and session_id.replace("-", "").isalnum()):
        return sorted(folder.glob(f"*_{session_id}.jsonl"))
    ending = f"_{session_id}.jsonl"
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries if entry.name.endswith(ending)]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []  # (what the glob finds there: nothing)
    return sorted(folder / name for name in names)


#: a session file's name as :func:`session_file_name` (and Pi) make it (what
#: :func:`session_named` reads with string methods: tests/ledger keep them the same)
SESSION_NAME_PATTERN = r"\d{4}-\d\d-\d\dT[\d-]+Z_[^/]+\.jsonl"


def session_named(name: str) -> bool:
    """Whether ``name`` has a session file's form (:data:`SESSION_NAME_PATTERN`, read
    without compiling it: every recall lists the session folder): a date of decimal
    digits, ``T``, digits and dashes, ``Z_``, an ID without ``/``, ``.jsonl``."""
    if len(name) < 19 or not name.endswith(".jsonl") or name[10] != "T" \
            or name[4] != "-" or name[7] != "-" or not (
                name[:4] + name[5:7] + name[8:10]).isdecimal():
        return False
    end = 11
    while end < len(name) and (name[end] == "-" or name[end].isdecimal()):
        end += 1
    return end > 11 and name.startswith("Z_", end) and end + 2 < len(name) - 6 \
        and "/" not in name[end + 2:-6]


def session_file_name(timestamp_iso: str, session_id: str) -> str:
    return f"{timestamp_iso.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def newest_name_ms(directory: Path) -> int | None:
    """The time the newest session file name in ``directory`` gives (names sort by it:
    the newest name is the default session), or ``None`` if none is named so."""
    try:
        names = os.listdir(directory)
    except OSError:  # none yet; one that cannot be listed is said where it is read
        return None
    return max((ms for name in names if session_named(name)
                and (ms := _name_ms(name)) is not None), default=None)


def _name_ms(name: str) -> int | None:
    """The time in a session file name (``2026-01-01T00-00-00-000Z_<id>.jsonl``)."""
    day, _, clock = name.split("Z_", 1)[0].partition("T")
    parts = clock.split("-")
    if len(parts) not in (3, 4):
        return None
    fraction = f".{parts[3]}" if len(parts) == 4 else ""
    return iso_to_ms(f"{day}T{parts[0]}:{parts[1]}:{parts[2]}{fraction}Z")


def project_session_dirs(home: Path, roots: Sequence[Path], cwd: str) -> list[Path]:
    """The directories where sessions of ``cwd`` live: the home's, then each root's
    (Pi's layout, ``<root>/--<cwd>--``)."""
    home_dir = session_dir(home, cwd)
    return [home_dir, *(root / home_dir.name for root in roots)]


def in_project_dirs(path: Path, cwd: str, home: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path`` is a ``.jsonl`` file directly in one of the directories where the
    sessions of ``cwd`` (a header's ``cwd``, as written or resolved) live."""
    if not path.name.endswith(".jsonl"):
        return False
    parent = os.path.realpath(path.parent)
    spellings = dict.fromkeys((cwd, canonical_project_path(cwd)))
    return any(os.path.realpath(directory) == parent for spelling in spellings
               for directory in project_session_dirs(home, roots, spelling))


def read_header(path: Path) -> SessionHeader | None:
    """The header on a file's first line, reading only that line (``None``: unreadable,
    empty, no complete first line, or not a session header)."""
    try:
        line = SessionFile(path).read_header_line()
    except OSError:
        return None
    return parse_header(line) if line is not None else None


def is_project_session(path: Path, project: str) -> bool:
    """Whether ``path`` is a session of ``project`` (a canonical path): its header's
    ``cwd`` resolves to it. Reads one line."""
    header = read_header(path)
    return header is not None and canonical_project_path(header.cwd) == project


def files_without_header(home: Path, cwd: str) -> list[tuple[Path, bool]]:
    """The ``.jsonl`` files in the session directory of ``cwd`` that no pick takes because
    they hold no session header, oldest first, each with whether it has a complete first
    line: one without (empty, or a cut header) is what an interrupted creation leaves and
    holds nothing; one with a first line that is not a header holds entries never read."""
    found = []
    for path in reversed(_files_newest_first(home, cwd)):
        try:
            line, complete = _first_line_of(path)
        except OSError:
            line, complete = None, False
        if line is None or parse_header(line) is None:
            found.append((path, complete))
    return found


def _first_line_of(path: Path) -> tuple[bytes | None, bool]:
    """A file's first line as pickers read it, and whether it has one: a first line of
    :data:`MAX_HEADER_BYTES` or more is none to a picker, yet one (entries may follow it),
    so only a file shorter than that with no line break is an interrupted creation. Health
    took a file with a 70 KiB first line for one and said OK, while a rebuild named it."""
    line = SessionFile(path).read_header_line()
    return line, line is not None or path.stat().st_size >= MAX_HEADER_BYTES


def irregular_files(home: Path, cwd: str) -> list[tuple[Path, str]]:
    """The ``.jsonl`` names in the session directory of ``cwd`` that are no regular file
    (a FIFO, a directory, a dangling link), oldest first, each with what it is: never
    opened (a FIFO would wait for a writer), each stands where a ledger was, and a rebuild
    lists it as unreadable; only the newest one stops a pick."""
    return [(path, what) for path in reversed(_files_newest_first(home, cwd, irregular=True))
            if (what := not_a_file(path)) is not None]


def aside_fix(path: Path | str) -> str:
    """How to go on from a session file whose first line is no session header (a hand
    edit, a bad byte): set it aside, never deleted nor rewritten here (it is canonical, as
    the learned ledger is), and index the files as they are. A host's session (Claude
    Code's, by its ID) goes on in a new ledger at its next prompt."""
    from waymarks.core.text import shell_command

    quoted = shell_command([str(path)])
    return (f"move it aside (mv {quoted} {quoted}.aside; keep it: its entries are read again "
            "once its first line is a session header again and it has its name back), then "
            "run `waymarks rebuild-index`; a Claude Code session goes on in a new ledger at "
            "its next prompt")


def stray_fix(path: Path, what: str) -> str:
    """How to go on from a name in a session folder that is no regular file (``what``:
    :func:`~waymarks.ledger.session_file.not_a_file`'s): it holds no line to read again,
    so :func:`aside_fix`'s "keep it: its entries are read again once its first line is a
    session header" misled; a link whose target is gone is fixed by its target."""
    from waymarks.core.text import shell_command

    quoted = shell_command([str(path)])
    back = "restore the file it stands for, or " if "link" in what else ""
    return f"{back}move it aside (mv {quoted} {quoted}.aside), then run `waymarks rebuild-index`"


def not_a_session(path: Path | str) -> str:
    """What ``health`` and ``rebuild-index`` say of a file in a session folder whose first
    line is no session header: nothing in it is read, and :func:`aside_fix` is the fix."""
    return (f"{path}: not a session file (its first line is not a session header), so "
            f"nothing in it is read: {aside_fix(path)}")


def passed_over_note(passed: Sequence[Path], *, started: bool) -> str:
    """What a command says of the newer session files :func:`newest_session` passed over
    (``started``: its write then began a new session): nothing in them was read, they are
    left as they are, and ``health`` names the repair."""
    files = ", ".join(str(path) for path in passed)
    it = "it" if len(passed) == 1 else "them"
    then = "this write started a new session" if started else "what is shown comes from " \
        "an older session, or none"
    return (f"{files}: newer than the session used, with no session header (cut short or "
            f"damaged), so nothing in {it} was read and {then}; left as found: "
            f"`waymarks health` says how to repair {it}")


def headerless_note(path: Path) -> str | None:
    """What a rebuild says of a regular file it could not read as a session, when that
    file holds no session header (``None``: it holds one, or cannot be read now): with a
    first line, :func:`not_a_session` and its fix, as ``health`` says it; with none, the
    whole file a first line cut before its end, or nothing (what an interrupted creation
    leaves, which ``health`` passes over), that there is nothing in it: it was told to be
    moved aside and kept, "its entries are read again", and it has none."""
    try:
        line, complete = _first_line_of(path)
    except OSError:
        return None
    if not complete:  # (no line break in it at all)
        return (f"{path}: no complete first line (empty, or cut before the end of its "
                "header, as an interrupted creation leaves it): nothing in it to read")
    return not_a_session(path) if line is None or parse_header(line) is None else None


def shared_session_ids(home: Path, cwd: str) -> dict[str, list[Path]]:
    """The session IDs that name more than one file in the session directory of ``cwd``
    (by name: no file is read), each with its files, oldest first. One session, one
    ledger: hooks started together once each made one, and the hooks then used the first
    while the CLI used the newest."""
    named: dict[str, list[Path]] = {}
    for path in reversed(_files_newest_first(home, cwd)):
        if session_named(path.name):
            named.setdefault(_id_of(path), []).append(path)
    return {sid: paths for sid, paths in named.items() if len(paths) > 1}


def _id_of(path: Path) -> str:
    """The session ID a session file's name gives."""
    return path.stem.split("_", 1)[-1]


def _files_newest_first(home: Path, cwd: str, *, irregular: bool = False) -> list[Path]:
    """The ``.jsonl`` names in the session directory of ``cwd``, newest first: regular
    files (through a symbolic link too), and with ``irregular`` any other kind as well."""
    directory, names = _names_newest_first(home, cwd)
    paths = [directory / name for name in names]
    return paths if irregular else [path for path in paths if path.is_file()]


def _names_newest_first(home: Path, cwd: str) -> tuple[Path, list[str]]:
    """The session directory of ``cwd`` and the ``.jsonl`` names in it that are text
    (:func:`text_name`), newest first, of any kind of file. Plain names from one
    ``os.scandir``, sorted as strings: a pathlib glob and a sort of its paths cost a
    one-shot command ~10 ms of CPU beside 2,000 sessions before it read one header (the
    order is the same: paths in one folder compare by their names)."""
    directory = session_dir(home, cwd)
    blocked = unlistable_folder(home, cwd)
    if blocked is not None:  # the error its callers already say, naming the right folder
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(blocked))
    if not directory.is_dir():
        return directory, []
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for entry in entries
                     if entry.name.endswith(".jsonl") and text_name(entry.name)]
    except PermissionError:  # (listed as nothing, as the glob did)
        return directory, []
    names.sort(reverse=True)
    return directory, names


def text_name(name: str) -> bool:
    """Whether a file name is text: one of bytes that are not UTF-8 (kept by Python as
    lone surrogates) names no session here, for the database keeps paths as text (such a
    file, taken for the newest session or a source, made every read of the project fail)."""
    if name.isascii():
        return True
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def _cannot_read(path: Path, why: object, fix: str) -> SessionFileError:
    return SessionFileError(f"{path}: cannot read it ({why}); it may hold this project's "
                            f"newest session: {fix}, then retry. Nothing was written")


def project_headers(home: Path, cwd: str) -> list[tuple[Path, SessionHeader]]:
    """This project's session files with their headers, oldest first (each file's first
    line read once)."""
    project = canonical_project_path(cwd)
    return [(path, header) for path in reversed(_files_newest_first(home, cwd))
            if (header := read_header(path)) is not None
            and canonical_project_path(header.cwd) == project]


def _project_sessions(home: Path, cwd: str) -> Iterator[Path]:
    """This project's session files, newest first, each header checked as it is reached."""
    project = canonical_project_path(cwd)
    return (p for p in _files_newest_first(home, cwd) if is_project_session(p, project))


def list_sessions(home: Path, cwd: str) -> list[Path]:
    """Session files of the project ``cwd``, oldest first."""
    return list(_project_sessions(home, cwd))[::-1]


def unlistable_folder(home: Path, cwd: str) -> Path | None:
    """The first folder from ``home`` down to the session folder of ``cwd`` that this user
    may not list or enter, if any. Only the project's folder was looked at: with
    ``sessions/`` or the home at mode 000 its ``is_dir`` raised, the error named the
    project's folder, which was fine, and ``health`` ended in that I/O error."""
    directory = session_dir(home, cwd)
    inside = reversed(directory.relative_to(home).parents[:-1])  # (``sessions``)
    for folder in (home, *(home / part for part in inside), directory):
        try:
            found = os.stat(folder)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except PermissionError:
            return folder.parent  # (the home's own folder: the one above it is shut)
        if stat.S_ISDIR(found.st_mode) and not os.access(folder, os.R_OK | os.X_OK):
            return folder
    return None


def newest_session(home: Path, cwd: str,
                   passed: list[Path] | None = None) -> Path | None:
    """The newest session file of the project ``cwd``: names sort by creation time, so
    headers are read newest first until one is the project's (usually the first).

    A newer session file that holds bytes but no session header (cut short by another
    tool or a bad sync) is passed over, as an interrupted creation is, and added to
    ``passed``: the person is told (a read showed an older session, or none, and said
    nothing, and the next write started a new session beside it). An empty one holds
    nothing and is not added.

    A file or folder there that cannot be read (its permissions), or a name of a session
    file that is no regular file (a symbolic link whose target is missing, a FIFO, a
    directory), is an error naming it, not a file to pass over: passed over, the session
    in it looked absent, and a write started a new session that hid it from then on
    (``SessionFileError``)."""
    try:
        directory, names = _names_newest_first(home, cwd)
    except PermissionError as exc:  # (a folder on the way that cannot be listed)
        raise SessionFileError(f"{exc.filename}: cannot list this project's sessions "
                               "(permission denied); make the folder readable to this user "
                               "(its owner may have to), then retry. Nothing was written"
                               ) from exc
    project = canonical_project_path(cwd)
    for name in names:  # (a path made only for the names reached: usually one)
        path = directory / name
        named = session_named(name)  # else a stray, passed over
        what = not_a_file(path)
        if what is not None:
            if named:
                raise _cannot_read(path, what, "restore the file it stands for, or move "
                                   "it aside")
            continue
        try:
            line = SessionFile(path).read_header_line()
        except FileNotFoundError:
            continue
        except OSError as exc:
            if not named:
                continue
            raise _cannot_read(path, exc.strerror or exc, "make it readable to this user "
                               "(its owner may have to), or move it aside") from exc
        header = parse_header(line) if line is not None else None
        if header is not None and canonical_project_path(header.cwd) == project:
            return path
        if header is None and named and passed is not None and _holds_bytes(path):
            passed.append(path)
    return None


def _holds_bytes(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:  # (gone since it was read: nothing to tell)
        return False


#: a path as Windows writes one (a drive, a share): no session ID looks like it
_WINDOWS_PATH = lazy(r"[A-Za-z]:[\\/]|\\\\")


def resolve_session(home: Path, cwd: str, ref: str) -> Path:
    """A session given as a path, a session ID or a unique ID prefix. A path is taken as
    given (whose project it speaks for is decided where it is indexed); an ID or prefix
    names only sessions of this project."""
    if not ref.strip():  # every name starts with it: the one session here was taken
        raise SessionFileError("the session given is empty; give a session file, ID or ID "
                               "prefix (list them with `waymarks session list`)")
    candidate = Path(ref).expanduser()
    if candidate.is_file():
        return candidate.resolve()
    if os.sep in ref or ref.endswith(".jsonl"):  # (a FIFO, a folder: said what it is)
        raise no_session_file(candidate)
    files = _files_newest_first(home, cwd)
    named: list[Path] = []
    for typed in dict.fromkeys((ref, ref.lower())):  # IDs are lower-case; a ref may not be
        named = named or [p for p in files if _id_of(p).startswith(typed)]
    project = canonical_project_path(cwd)
    matches = [p for p in named if is_project_session(p, project)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        if os.path.lexists(candidate) or _WINDOWS_PATH.match(ref):
            # a FIFO or a folder named here without a slash, a Windows path: taken for an
            # ID, "no session 'pipe'" sent the person looking for a session
            raise no_session_file(candidate)
        # a name of that ID that is no regular file (a FIFO, a folder) is there: "no
        # session" sent the person looking for one
        odd = [f"{path}: {what}, not a session file" for path, what in irregular_files(home, cwd)
               if any(_id_of(path).startswith(typed) for typed in (ref, ref.lower()))]
        from waymarks.core.text import escaped, unknown_id

        raise SessionFileError(
            unknown_id("session", ref, f"for {escaped(str(cwd))}", "waymarks session list")
            + "".join(f" ({said}: move it aside)" for said in odd[:1]))
    if len({_id_of(p) for p in matches}) == 1:  # typing more of it would not help
        paths = ", ".join(str(p) for p in matches[::-1])
        raise SessionFileError(f"session {_id_of(matches[0])} has {len(matches)} ledger "
                               f"files ({paths}): one session ID should name one file. "
                               "Give the file to use as --session FILE; `waymarks health` "
                               "lists them")
    ids = ", ".join(_id_of(p) for p in matches[:10])  # as item IDs list them
    more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
    raise SessionFileError(f"session prefix {ref!r} is ambiguous: {len(matches)} sessions "
                           f"match ({ids}{more}); type more of it")
