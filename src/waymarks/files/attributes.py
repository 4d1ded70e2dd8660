"""Whether a file or folder carries an attribute that refuses a write to every user, root
included: immutable (``chattr +i``) or append-only (``chattr +a``), as ``lsattr`` shows
them. A permission error on such a file is not its mode's: the ``chmod`` a person was told
to run changed nothing, and the same error came back. Linux's ``FS_IOC_GETFLAGS``;
elsewhere, or on a file system without attributes, nothing is found. Imports only ``os``
and ``sys`` at module level (the command line's error path reads it)."""

from __future__ import annotations

import os
import sys

#: the attribute flags of ``linux/fs.h`` that refuse a write, with ``chattr``'s letter
_REFUSING = ((0x00000010, "immutable", "i"), (0x00000020, "append-only", "a"))


def _get_flags_request() -> int:
    """``FS_IOC_GETFLAGS``: ``_IOR('f', 1, long)`` (the size of a C long is in it)."""
    import struct

    return (2 << 30) | (struct.calcsize("l") << 16) | (ord("f") << 8) | 1


def refusing_attribute(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """``(word, letter)`` of the attribute of ``path`` that refuses writes (immutable
    first), or ``None``: none, not Linux, or the flags cannot be read."""
    if not sys.platform.startswith("linux"):
        return None
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        flags = bytearray(8)
        fcntl.ioctl(fd, _get_flags_request(), flags)
    except OSError:  # (no attributes on this file system: tmpfs, proc)
        return None
    finally:
        os.close(fd)
    value = int.from_bytes(flags[:4], sys.byteorder)  # (the kernel writes an int)
    for bit, word, letter in _REFUSING:
        if value & bit:
            return word, letter
    return None


def attribute_problem(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """``(cause, fix)`` when ``path``, or the folder it would be made in when it does not
    exist, refuses writes by its attribute; ``None`` otherwise. The fix is the command
    that clears it; a caller adds what else would do and "then retry"."""
    where = os.fspath(path)
    if not os.path.lexists(where):
        where = os.path.dirname(os.path.abspath(where))
    found = refusing_attribute(where)
    if found is None:
        return None
    word, letter = found
    return (f"{where} is marked {word} (`lsattr` shows '{letter}'), which refuses the "
            "write to every user, root too, whatever its mode",
            f"clear it: chattr -{letter} {_quoted(where)} (as root)")


def _quoted(path: str) -> str:
    """``path`` as one shell word."""
    import shlex

    return shlex.quote(path)
