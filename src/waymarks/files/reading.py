"""Read a file that must be a regular one, without ever blocking on anything else.

A name Waymarks reads may hold a FIFO or a device node: a project's ``.waymarks/config.toml``
or engineering docs unpacked from an archive, a note in the personal memory directory.
``open`` on a FIFO waits for a writer, so one such file would stop every request that
reads it. :func:`read_regular` opens non-blocking, checks with ``fstat`` on the open
descriptor (no window between a check and the read) and refuses anything that is not a
regular file with :class:`~waymarks.files.atomic.NotARegularFile`, before a byte is read.
"""

from __future__ import annotations

import errno
import os
import stat

from waymarks.files.atomic import NotARegularFile, kind_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO


def open_regular(path: Path | str) -> BinaryIO:
    """The regular file at ``path`` opened for reading (a symbolic link is followed), for
    a caller that reads only part of it. Raises as :func:`read_regular` does."""
    fd = _open(path)
    return os.fdopen(fd, "rb")


def _open(path: Path | str) -> int:
    """A descriptor of the regular file at ``path``, checked on the open descriptor."""
    return regular_only(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), path,
                        "not read")


def regular_only(fd: int, path: Path | str, done: str) -> int:
    """``fd`` if it is a regular file's; else it is closed and :class:`NotARegularFile`
    raised, its message ending with ``done`` (what was not done)."""
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise NotARegularFile(errno.EINVAL, f"it is {kind_of(found.st_mode)}, not a "
                                  f"regular file; {done}", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path | str, *, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (a symbolic link is followed).

    Raises :class:`NotARegularFile` for anything else (a FIFO, a device, a directory),
    ``OSError`` (``EFBIG``) when it holds more than ``limit`` bytes, and the ``OSError``
    of a failed open (``FileNotFoundError`` among them)."""
    fd = _open(path)
    try:
        found = os.fstat(fd)
        if limit is not None and found.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if limit is not None and size > limit:  # it grew meanwhile
                raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


Stamp = tuple[int, int, int, int, int]


def stamp_of(path: Path | str) -> Stamp | None:
    """What a cache of a file's contents is keyed by: device, inode, size, mtime and
    ctime (``None``: nothing there). The ctime is what no program can set back (``os.utime``
    and ``cp -p``/``rsync -t`` set the mtime only), so an edit in place that keeps the size
    and restores the mtime still changes the stamp; a file replaced changes the inode."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
