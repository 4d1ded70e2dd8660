"""Replace a file's content atomically and durably: one rule for every file Waymarks
rewrites (the trust list, personal memory, the Claude Code pointer and settings, the Pi
loader, exports).

:func:`write_atomic` writes the new bytes to a hidden temporary file in the target's own
directory, ``fsync``s it, renames it over the target, and ``fsync``s the directory.

What must stay true:
- a reader sees the old content or the new, never a mixture or an empty file;
- a crash or an error before the rename leaves the old file exactly as it was (an error
  also removes the temporary file; a kill can leave one behind, hidden and named
  ``.<name>.<pid>-<hex>.tmp``, which no reader of the directory takes for the target);
- once :func:`write_atomic` returns, the new content and the name survive a power loss
  (an error syncing the directory is raised after the rename: the new content is in
  place, its durability not established);
- the mode is the caller's: ``None`` is what a fresh ``open`` would give (``0o666`` less
  the umask); an explicit mode is applied exactly, whatever the umask.

- only a regular file (or nothing) is ever replaced: a target that exists as anything else
  (a symbolic link, a FIFO, a device node, a socket, a directory) is refused with
  :class:`NotARegularFile`, which names the path and what it is, and nothing is written
  (``export -o /dev/full`` run as root must not turn the device into a file).

The target path is replaced as given: a caller that writes through a symbolic link
resolves it first (the Claude Code settings writer does). Paths are handled as strings
(``os.path``), so the module imports no more than ``os``, ``errno`` and ``stat`` (which
``os`` has imported already): the Claude Code hook's lean client writes through it too.
"""

from __future__ import annotations

import errno
import os
import stat

# not typing's, and no contextlib: `typing` pulls `re` and `enum`, `contextlib` pulls
# `collections` and `functools`, ~10 ms together on the Stop hook's lean path (measured)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Final

#: attempts at a free temporary name (a clash needs the same PID and 32 random bits)
MAX_NAME_ATTEMPTS: Final = 16


class NotARegularFile(OSError):
    """The target exists and is not a regular file: replacing it would destroy it."""


def write_atomic(path: Path | str, data: bytes | str, *, mode: int | None = None) -> None:
    """Replace ``path``'s content with ``data`` (text is written as UTF-8).

    Raises :class:`NotARegularFile` (nothing written) if ``path`` exists and is not a
    regular file."""
    target = os.fspath(path)
    refuse_unless_regular(target)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    directory = os.path.dirname(target) or "."
    try:
        fd, temp = _temporary(directory, os.path.basename(target), mode)
    except OSError as exc:  # its own name is no file the person knows: the folder's is
        raise _named(exc, directory) from exc
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # exactly the caller's mode, whatever the umask
            write_all(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException as exc:
        try:  # noqa: SIM105 - contextlib costs the hook's lean path its imports
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename in (None, temp):
            raise _named(exc, target) from exc
        raise
    fsync_directory(directory)


def _named(exc: OSError, name: str) -> OSError:
    """``exc`` (its type kept: ``OSError`` picks it by ``errno``) naming ``name``: an error
    on a descriptor names no file, one on the temporary name a file the person never saw
    (a full disk said "No space left on device (file)"; a home that cannot be written
    named ``.config.toml.<pid>-<hex>.tmp``)."""
    return OSError(exc.errno, exc.strerror, name)


def refuse_unless_regular(target: str) -> None:
    """Raise :class:`NotARegularFile` if ``target`` exists and is not a regular file (a
    symbolic link is refused as such, not followed)."""
    try:
        found = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(found):
        return
    raise NotARegularFile(errno.EEXIST, f"it is {kind_of(found)}, not a regular file; refusing "
                          "to replace it", target)


def kind_of(found: int) -> str:
    """What a file of mode ``found`` is, in words (for a refusal)."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(found):
            return name
    return "of an unknown kind"


def fsync_directory(directory: Path | str) -> None:
    """Make the names in ``directory`` durable (a rename is not, until this returns).

    A file system that cannot sync a directory (``EINVAL``: some network and FUSE file
    systems) has nothing more to offer; any other failure is raised."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _temporary(directory: str, name: str, mode: int | None) -> tuple[int, str]:
    """A new, exclusively created temporary file beside the target."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(MAX_NAME_ATTEMPTS):
        # a long target name is cut so that the temporary name stays a legal one
        temp = os.path.join(directory, f".{name[:200]}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        try:
            return os.open(temp, flags, 0o666 if mode is None else 0o600), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {name}", str(directory))

