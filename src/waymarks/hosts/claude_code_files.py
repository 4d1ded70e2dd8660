"""Claude Code's JSON files as ``claude-code install`` reads, backs up and rewrites them.

What must stay true:
- a file is read only if it is a regular file (a symbolic link to one is followed, as a
  dotfiles checkout needs); a FIFO, a device, a directory, a dangling link or a link loop
  is refused with :class:`InstallError`, one line that says how to fix it, before a byte
  is written (a FIFO is never opened blocking: :func:`~waymarks.files.reading.read_regular`);
- what is not the person's to lose is refused too: text that is not JSON, JSON that is not
  an object, ``NaN``/``Infinity`` (not JSON: Claude Code, on Node, cannot read them), a
  string holding a lone surrogate escape (``"\\ud800"``: no UTF-8 file can hold it), a
  file larger than :data:`MAX_FILE_BYTES` (it was read whole: gigabytes ran out of memory);
- a rewrite keeps every value as the person wrote it: a number is its literal
  (:class:`Number`: ``1e400`` stays ``1e400``, never ``Infinity``; ``1E2`` stays ``1E2``),
  keys keep their order, and ``1``, ``1.0`` and ``true`` stay three different values
  (:func:`same` compares the rewritten text, never Python's ``==``);
- a file the person made read-only (no write permission for its owner, or none for this
  user) is theirs to keep as it is: :func:`check_writable` refuses it before anything is
  written (a rename would replace it all the same, needing only the folder's permission);
- a backup (``<file>.waymarks-backup``) holds the bytes that were read, is created
  exclusively and without following a link, with the file's own mode; a backup name that
  exists as anything but a regular file (a link a repository planted, pointing at the
  person's user settings) is refused, and is never read through;
- one run's writes go through an :class:`Undo`: when a later one fails (a full disk, an
  I/O error), the files written before it get the bytes they had back, so an install is
  never left half done (hooks without their MCP server).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from waymarks.core.text import all_unicode, shell_command
from waymarks.files.atomic import NotARegularFile, fsync_directory, kind_of, write_all, write_atomic
from waymarks.files.attributes import attribute_problem
from waymarks.files.dirs import make_private_dirs
from waymarks.files.reading import read_regular

NOTHING_CHANGED = "Nothing was changed"
#: a new file's mode (``~/.claude.json`` holds credentials)
NEW_FILE_MODE = 0o600
#: the largest file read: far above any settings file (``~/.claude.json``, which keeps
#: every project's history, reaches tens of MB); a larger one is refused before it is read
MAX_FILE_BYTES = 256 << 20


class InstallError(Exception):
    pass


class Number:
    """A JSON number kept as its literal, so a rewrite writes it exactly as it was read."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Number) and other.literal == self.literal

    def __hash__(self) -> int:
        return hash(self.literal)

    def __repr__(self) -> str:
        return self.literal


@dataclass
class Loaded:
    path: Path            # as named
    target: Path          # the file it names (a symbolic link's target)
    raw: bytes | None     # what was read; None: there is no file
    data: dict[str, Any]
    mode: int             # the permission bits a rewrite keeps


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not a JSON value")


def parse(raw: bytes) -> Any:
    """``raw`` decoded as JSON, numbers as :class:`Number` (``ValueError``,
    ``UnicodeDecodeError`` or ``RecursionError`` if it is not JSON)."""
    return json.loads(raw.decode("utf-8"), parse_float=Number, parse_int=Number,
                      parse_constant=_not_json)


def load(path: Path) -> Loaded:
    """The JSON object in ``path`` (``{}`` when there is no file), refused with a one-line
    :class:`InstallError` as the module says."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return Loaded(path, path, None, {}, NEW_FILE_MODE)
    except NotADirectoryError as exc:  # a file where a folder of the path goes (.claude)
        file = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()),
                    path.parent)
        raise InstallError(f"{file} is a file, not a folder, so {path} cannot be there; move "
                           f"it away, then run this again. {NOTHING_CHANGED}") from exc
    except OSError as exc:
        raise InstallError(f"{path} cannot be read ({exc.strerror}); fix its permissions, "
                           f"then run this again. {NOTHING_CHANGED}") from exc
    target = path
    if stat.S_ISLNK(found.st_mode):
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            loop = isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP
            why = "a loop" if loop else f"to {os.readlink(path)}, which does not exist"
            raise InstallError(f"{path} is a symbolic link that leads to no file ({why}); remove "
                               f"it or point it at a file, then run this again. "
                               f"{NOTHING_CHANGED}") from exc
    try:
        raw = read_regular(target, limit=MAX_FILE_BYTES)
    except NotARegularFile as exc:
        what = kind_of(os.stat(target).st_mode)
        raise InstallError(f"{path} is {what}, not a file; move it away, then run this "
                           f"again. {NOTHING_CHANGED}") from exc
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise InstallError(f"{path} is larger than {MAX_FILE_BYTES >> 20} MiB, which no "
                               "Claude Code settings file is; check what it holds, move it "
                               f"away, then run this again. {NOTHING_CHANGED}") from exc
        raise InstallError(f"{path} cannot be read ({exc.strerror}); fix it, then run this "
                           f"again. {NOTHING_CHANGED}") from exc
    try:
        data = parse(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix or move it, then run "
                           f"this again. {NOTHING_CHANGED}") from exc
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; {NOTHING_CHANGED.lower()}")
    if not all_unicode(data):
        raise InstallError(f"{path} holds a string with a lone surrogate escape (\\ud800 to "
                           "\\udfff not in a pair), which is not text; fix or remove it, then "
                           f"run this again. {NOTHING_CHANGED}")
    return Loaded(path, target, raw, data, os.stat(target).st_mode & 0o777)


def _encode(value: object, depth: int) -> str:
    if isinstance(value, Number):
        return value.literal
    if isinstance(value, dict | list) and value:
        inner = "\n" + "  " * (depth + 1)
        items = ((json.dumps(k, ensure_ascii=False) + ": " + _encode(v, depth + 1)
                  for k, v in value.items()) if isinstance(value, dict)
                 else (_encode(v, depth + 1) for v in value))
        ends = "{}" if isinstance(value, dict) else "[]"
        return ends[0] + inner + ("," + inner).join(items) + "\n" + "  " * depth + ends[1]
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def dump(data: dict[str, Any], path: Path) -> bytes:
    """``data`` as the file's new bytes (two-space indent, numbers as they were read);
    :class:`InstallError` if it cannot be written as UTF-8 JSON."""
    try:
        return (_encode(data, 0) + "\n").encode("utf-8")
    except (UnicodeEncodeError, ValueError, RecursionError) as exc:
        raise InstallError(f"{path}: the new content cannot be written as JSON ({exc}); "
                           f"{NOTHING_CHANGED.lower()}") from exc


def same(before: object, after: dict[str, Any], path: Path) -> bool:
    """Whether ``before`` (decoded from a backup) is exactly ``after``: the same text once
    written, so the types, literals and key order count."""
    return isinstance(before, dict) and dump(before, path) == dump(after, path)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".waymarks-backup")


def backup_exists(path: Path) -> bool:
    """Whether ``path``'s backup exists; :class:`InstallError` if that name holds anything
    but a regular file (never followed)."""
    backup = backup_path(path)
    try:
        found = os.lstat(backup).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InstallError(f"{backup} cannot be checked ({exc.strerror}); "
                           f"{NOTHING_CHANGED.lower()}") from exc
    if not stat.S_ISREG(found):
        raise InstallError(f"{backup} is {kind_of(found)}, not a backup Waymarks wrote; remove "
                           f"it, then run this again. {NOTHING_CHANGED}")
    return True


def read_backup(path: Path) -> bytes | None:
    """The bytes of ``path``'s backup (``None``: there is none), read without following a
    link or blocking; refused as :func:`backup_exists` refuses."""
    if not backup_exists(path):
        return None
    backup = backup_path(path)
    try:
        fd = os.open(backup, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InstallError(f"{backup} cannot be read ({exc.strerror}); "
                           f"{NOTHING_CHANGED.lower()}") from exc
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise InstallError(f"{backup} is not a regular file; remove it, then run this "
                               f"again. {NOTHING_CHANGED}")
        kept = stream.read(MAX_FILE_BYTES + 1)
    if len(kept) > MAX_FILE_BYTES:  # not one Waymarks wrote (it backs up what load read)
        raise InstallError(f"{backup} is larger than {MAX_FILE_BYTES >> 20} MiB, not a backup "
                           f"Waymarks wrote; remove it, then run this again. {NOTHING_CHANGED}")
    return kept


def write_backup(loaded: Loaded) -> None:
    """Keep the bytes ``loaded`` read as its backup: created exclusively (an existing name
    is never replaced, a link never followed), with the file's mode."""
    backup = backup_path(loaded.path)
    assert loaded.raw is not None
    try:
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, NEW_FILE_MODE)
    except OSError as exc:
        raise InstallError(f"{backup} could not be created ({exc.strerror}); remove whatever "
                           f"is there, then run this again. {NOTHING_CHANGED}") from exc
    try:
        os.fchmod(fd, loaded.mode)
        write_all(fd, loaded.raw)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        backup.unlink(missing_ok=True)
        raise
    os.close(fd)
    fsync_directory(backup.parent)


#: the backups a home's installs wrote: the backup's path -> the SHA-256 of its bytes.
#: Uninstall removes only one of those: a ``.waymarks-backup`` it did not write (the
#: person's own copy by that name) was deleted, its bytes nowhere else
BACKUPS_RECORD: Final = Path("claude-code") / "backups.json"


def read_record(path: Path) -> Any:
    """The JSON value of a home's install record (``None``: none, or not readable). The
    homes are those a settings file's entries name, any path: a FIFO in place of a record
    was opened and waited on, and uninstall hung, its files already changed."""
    try:
        return json.loads(read_regular(path, limit=MAX_FILE_BYTES))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _backups(home: Path) -> dict[str, str]:
    named = read_record(home / BACKUPS_RECORD)
    return {k: v for k, v in named.items() if isinstance(v, str)} \
        if isinstance(named, dict) else {}


def _keep_backups(home: Path, named: dict[str, str]) -> None:
    """Best effort: without its entry, uninstall keeps a backup, and says so."""
    record = home / BACKUPS_RECORD
    with suppress(OSError):
        if named:
            make_private_dirs(record.parent)
            write_atomic(record, json.dumps(named))
        else:
            record.unlink(missing_ok=True)


def note_backup(home: Path, path: Path, kept: bytes) -> None:
    """Remember in ``home`` that its install wrote ``path``'s backup, holding ``kept``."""
    named = _backups(home)
    named[str(backup_path(path).absolute())] = _sha256(kept)
    _keep_backups(home, named)


def take_over_backup(home: Path, path: Path, others: Iterable[str]) -> None:
    """``path``'s backup, written by the install of one of the homes ``others`` whose
    entries this install replaced, is noted in ``home`` now (its uninstall puts the file
    back from it), and no longer there."""
    try:
        kept = read_backup(path)
    except InstallError:
        return
    writer = None if kept is None else backup_writer(map(Path, sorted(others)), path, kept)
    if writer is not None and kept is not None and writer != home:
        note_backup(home, path, kept)
        forget_backup(writer, path)


def backup_writer(homes: Iterable[Path], path: Path, kept: bytes) -> Path | None:
    """The home among ``homes`` whose install wrote ``path``'s backup as it is now
    (``kept``, its bytes), or ``None``: not a backup Waymarks wrote."""
    name, digest = str(backup_path(path).absolute()), _sha256(kept)
    return next((home for home in homes if _backups(home).get(name) == digest), None)


def forget_backup(home: Path, path: Path) -> None:
    named = _backups(home)
    if named.pop(str(backup_path(path).absolute()), None) is not None:
        _keep_backups(home, named)


def check_writable(loaded: Loaded) -> None:
    """:class:`InstallError` if the file ``loaded`` read is read-only (its owner may not
    write it, or this user may not), checked before anything is written."""
    if loaded.raw is None or (loaded.mode & stat.S_IWUSR
                              and os.access(loaded.target, os.W_OK)):
        return
    held = attribute_problem(loaded.target)  # (chattr +i: no chmod helps)
    if held is not None:
        raise InstallError(f"{held[0]}; if Waymarks may change it, {held[1]}, then run "
                           f"this again. {NOTHING_CHANGED}")
    chmod = shell_command(["chmod", "u+w", str(loaded.target)])
    raise InstallError(f"{loaded.path} is read-only (mode {loaded.mode:o}); if Waymarks may "
                       f"change it, make it writable ({chmod}), then run this again. "
                       f"{NOTHING_CHANGED}")


def write(loaded: Loaded, content: bytes) -> None:
    """Replace the file's content atomically: through a symbolic link (a dotfiles checkout
    stays linked), keeping the file's mode."""
    try:
        loaded.target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(loaded.target, content, mode=loaded.mode)
    except OSError as exc:
        raise InstallError(f"{loaded.path} could not be written ({exc.strerror or exc}); "
                           "fix that, then run this again") from exc


class Undo:
    """The files one install or uninstall wrote, put back in reverse order when a later
    step fails: the settings file written and the MCP file not (a full disk, an I/O error)
    left hooks installed without their server, and a second run could not say what the
    first had done. Used as a context: on any exception every step taken is undone (a file
    gets the bytes it had, one that did not exist is removed, with a folder made for it
    while empty, a backup written is removed) and the exception goes on; an
    :class:`InstallError` says whether that worked."""

    def __init__(self) -> None:
        self._steps: list[Callable[[], None]] = []

    def write_backup(self, loaded: Loaded) -> None:
        write_backup(loaded)
        self._steps.append(lambda: backup_path(loaded.path).unlink(missing_ok=True))

    def write(self, loaded: Loaded, content: bytes) -> None:
        made = None if loaded.target.parent.exists() else loaded.target.parent
        write(loaded, content)
        self._steps.append(lambda: _put_back(loaded, made))

    def remove(self, loaded: Loaded) -> None:
        loaded.target.unlink()
        self._steps.append(lambda: _put_back(loaded, None))

    def __enter__(self) -> Undo:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if exc is None:
            return
        failed = []
        for step in reversed(self._steps):
            try:
                step()
            except OSError as error:
                failed.append(f"{error.filename}: {error.strerror or error}")
        if not isinstance(exc, InstallError):
            return
        if failed:
            raise InstallError(f"{exc}. What was written before could not all be put back "
                               f"({'; '.join(failed)}): fix that, then run this again"
                               ) from exc
        if self._steps and NOTHING_CHANGED not in str(exc):
            raise InstallError(f"{exc}. {NOTHING_CHANGED}: what was written before it "
                               "has its bytes back") from exc


def _put_back(loaded: Loaded, made: Path | None) -> None:
    """The file ``loaded`` read, as it was read (absent when it was), and ``made``, the
    folder made for it, removed when nothing else is in it."""
    if loaded.raw is None:
        loaded.target.unlink(missing_ok=True)
    else:
        write_atomic(loaded.target, loaded.raw, mode=loaded.mode)
    if made is not None and not any(made.iterdir()):
        made.rmdir()


#: the keys of Waymarks' MCP server entry an install decides; the rest is the person's
SERVER_KEYS: Final = ("type", "command", "args")


def refreshed_server(current: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """An earlier install's server entry with this install's command (:data:`SERVER_KEYS`),
    keeping what the person added to it (an ``env``, a ``timeout``) where it was: a
    re-install, which docs/hosts.md asks for after an upgrade, replaced the whole entry, and the
    person's variables for the server were gone without a word."""
    entry = {k: wanted[k] if k in SERVER_KEYS else v for k, v in current.items()}
    return {**entry, **{k: v for k, v in wanted.items() if k not in entry}}


def _sha256(data: bytes) -> str:
    """``data``'s SHA-256, hex (``hashlib`` imported here: OpenSSL's bindings cost every
    prompt's hook milliseconds, and only an install or an uninstall writes a backup)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()
