"""``waymarks pi install | uninstall``: make Pi load the Waymarks extension.

Install writes one small file, ``<agent dir>/extensions/waymarks.ts`` (Pi discovers every
``*.ts`` there), which points Pi at this installation: it sets ``WAYMARKS_BIN`` to this
interpreter's ``waymarks`` (unless the environment already names one) and loads the
extension shipped inside the package (``waymarks/hosts/pi_extension/index.ts``, which imports
the modules beside it: package data, so a wheel installed with pip, pipx or ``uv tool``
carries them). The agent directory is ``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``.

What must stay true: uninstall leaves the agent directory as install found it. It removes
the loader only if Waymarks wrote it (the first line says so), and the directories that
install created for it (the loader names them on its second line), each only if it is
empty by then: nothing of the person's is ever removed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Final

from waymarks.core.text import escaped
from waymarks.files.atomic import NotARegularFile, kind_of, write_atomic
from waymarks.files.reading import read_regular

MARK = "// written by `waymarks pi install`; `waymarks pi uninstall` removes it"
CREATED = "// created directories: "
EXTENSION = Path(__file__).resolve().parent / "pi_extension" / "index.ts"


def agent_dir(explicit: str | None = None) -> Path:
    """``--agent-dir`` when given (a blank one is refused: a script's unset variable
    changed the real ``~/.pi/agent``), else ``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    if explicit is not None:
        from waymarks.service.outcomes import ServiceError

        if not explicit.strip():
            raise ServiceError("invalid_argument", "--agent-dir is empty; give Pi's agent "
                               "directory (e.g. --agent-dir ~/.pi/agent), or leave "
                               "--agent-dir out for $PI_CODING_AGENT_DIR or ~/.pi/agent; "
                               "nothing was changed")
        chosen = Path(explicit).expanduser()
        if not chosen.is_absolute():  # written into the folder the command ran in, a
            # project's, where Pi never looks, and "restart Pi to load it" was said
            raise ServiceError("invalid_argument", f"--agent-dir {explicit}: a relative "
                               "path, taken from whatever folder the command runs in, where "
                               "Pi does not look; give Pi's agent directory as an absolute "
                               "path (~/.pi/agent works); nothing was changed")
        return chosen
    from waymarks.service.pi_trust_store import default_agent_dir

    return default_agent_dir()


#: folders of the system (and every folder under them): no agent directory of a person's
#: is there, and a mistyped ``--agent-dir /etc/pi`` run as root made one
SYSTEM_DIRS: Final = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
                      "/proc", "/run", "/sbin", "/sys", "/usr", "/var", "/System", "/Library",
                      "/private/etc", "/private/var/db")
#: ...but these under them are for anyone's files
_OPEN_DIRS: Final = ("/var/tmp", "/run/user", "/dev/shm", "/run/shm")


def checked_agent_dir(chosen: Path, explicit: str, cwd: str, create: bool) -> Path:
    """``--agent-dir`` ``chosen`` (already :func:`agent_dir`'s) as ``pi install`` may write
    into it, else refused (``invalid_argument``, nothing made): a path that does not exist
    unless ``create`` (a typo made a whole new tree, and "restart Pi" was said for a
    folder Pi never reads), one that is no directory, one inside the project ``cwd`` is
    in (its git checkout: a loader naming this machine's ``waymarks`` in the repository,
    where a commit shares it), one in a system folder or ``/`` itself."""
    from waymarks.service.outcomes import ServiceError

    shown = f"--agent-dir {escaped(explicit)}"
    usual = "Pi's agent directory is ~/.pi/agent (or $PI_CODING_AGENT_DIR)"
    real = Path(os.path.realpath(chosen))  # (the part that exists, its links followed)
    if real == Path(real.anchor) or any(
            real.is_relative_to(d) and not any(real.is_relative_to(o) for o in _OPEN_DIRS)
            for d in SYSTEM_DIRS):
        raise ServiceError("invalid_argument", f"{shown}: {escaped(str(real))} is a system "
                           f"folder or in one, not an agent directory; {usual}; nothing was "
                           "changed")
    project = _project_of(cwd)
    if project is not None and real.is_relative_to(project):
        raise ServiceError("invalid_argument", f"{shown}: inside the project "
                           f"{escaped(str(project))}, where a commit would share a loader "
                           f"naming this machine's waymarks; {usual}; nothing was changed")
    if chosen.is_dir():
        pass
    elif chosen.exists() or chosen.is_symlink():
        raise ServiceError("invalid_argument", f"{shown}: not a directory; {usual}; give "
                           "that folder; nothing was changed")
    elif not create:
        raise ServiceError("invalid_argument", f"{shown}: no such directory; {usual}: give "
                           "one that exists, or add --create to make this one; nothing "
                           "was changed")
    return chosen


def _project_of(cwd: str) -> Path | None:
    """The project a command runs in, as an agent directory may not lie in it: its git
    checkout, else the folder itself; none when that holds the person's home (a dotfiles
    repository at ``~``, a command run in ``/``: ``~/.pi/agent`` is in it)."""
    from waymarks.service.evolution_observe import checkout_root

    real = os.path.realpath(cwd)
    project = Path(checkout_root(real) or real)
    try:
        user_home = Path(os.path.realpath(Path.home()))
    except (RuntimeError, KeyError):
        return project
    return None if user_home.is_relative_to(project) else project


def loader_path(directory: Path) -> Path:
    return directory / "extensions" / "waymarks.ts"


def loader_text(extension: Path = EXTENSION, created: list[str] | None = None,
                home: Path | None = None) -> str:
    """The loader; ``home``: the home it names for Pi's bridge (unless Pi's environment
    names one: ``WAYMARKS_HOME`` set there, not empty, wins); ``None`` (the default home)
    names none."""
    from waymarks.hosts.claude_code_install import waymarks_binary

    binary = waymarks_binary()  # the script pip installed (a --user install's is not beside
    # the interpreter): the rule the Claude Code installer follows
    # ||=, not ??=: an empty value (`export WAYMARKS_HOME=`) is none to Waymarks, which
    # uses the default home, and ??= kept it, so Pi's bridge used that home, not this one
    named = [] if home is None else [f"process.env.WAYMARKS_HOME ||= {json.dumps(str(home))};"]
    return "\n".join([
        MARK,
        CREATED + json.dumps(created or []),
        f"process.env.WAYMARKS_BIN ||= {json.dumps(str(binary))};",
        *named,
        f"export {{ default }} from {json.dumps(str(extension))};", ""])


def created_directories(text: str) -> list[str]:
    """The directories a loader says its install created (deepest last); ``[]`` for a
    loader of an older version, which did not record them."""
    for line in text.splitlines()[:3]:
        if line.startswith(CREATED):
            try:
                named = json.loads(line[len(CREATED):])
            except (ValueError, RecursionError):
                return []
            return [p for p in named if isinstance(p, str)] if isinstance(named, list) else []
    return []


def _missing_ancestors(path: Path) -> list[str]:
    """``path`` and its ancestors that do not exist yet, outermost first."""
    missing: list[str] = []
    for candidate in [path, *path.parents]:
        if candidate.exists() or candidate.is_symlink():
            break
        missing.append(str(candidate))
    return list(reversed(missing))


def _existing(path: Path, fix: str) -> bytes | None:
    """The bytes of the loader at ``path`` (``None``: nothing there), read as a regular file
    (a symbolic link to one is followed); anything else is refused with the fix
    (``FileExistsError``), before a byte is read or written."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    try:
        return read_regular(path)
    except NotARegularFile:
        what = kind_of(os.stat(path).st_mode)
    except OSError:  # a link to nothing, or a loop
        what = kind_of(found.st_mode) + " that leads to no file"
    raise FileExistsError(f"{path} is {what}, not a loader Waymarks wrote; {fix}")


def install(directory: Path, home: Path | None = None) -> tuple[Path, bool]:
    """Write (or refresh) the loader; returns its path and whether anything changed.
    ``home``: the home the install was run for (``--home``, ``WAYMARKS_HOME``; ``None``
    for the default one, which the CLI tells apart), which the loader names for Pi:
    before, ``waymarks --home H pi install`` reported on H (learning on) while Pi's
    bridge used another home."""
    if not EXTENSION.is_file():
        raise FileNotFoundError(f"{EXTENSION} is missing: this installation of Waymarks is "
                                "incomplete; reinstall it (the extension is package data)")
    path = loader_path(directory)
    existing = _existing(path, "move it away first")
    if existing is not None and not existing.startswith(MARK.encode()):
        raise FileExistsError(f"{path} exists and was not written by Waymarks; move it "
                              "away first")
    created = created_directories(existing.decode("utf-8", "replace")) \
        if existing is not None else _missing_ancestors(Path(os.path.abspath(path.parent)))
    text = loader_text(created=created, home=home)
    if existing == text.encode("utf-8"):
        return path, False
    if path.is_symlink():
        raise FileExistsError(f"{path} is a symbolic link to an older loader; remove the "
                              "link, then run this again (Waymarks writes its loader as a "
                              "file of its own)")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return path, True


def uninstall(directory: Path) -> tuple[Path, bool]:
    path = loader_path(directory)
    existing = _existing(path, "leaving it alone")
    if existing is None:
        return path, False
    if not existing.startswith(MARK.encode()):
        raise FileExistsError(f"{path} was not written by Waymarks; leaving it alone")
    path.unlink()
    for created in reversed(created_directories(existing.decode("utf-8", "replace"))):
        folder = Path(created)  # deepest first
        if folder.is_symlink() or not folder.is_dir():
            continue
        try:
            folder.rmdir()  # only while empty: anything the person put there stays
        except OSError:
            break
    return path, True
