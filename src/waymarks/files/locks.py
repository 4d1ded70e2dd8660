"""An exclusive ``flock`` on a lock file beside the state it guards: for a short
read-modify-write that two processes must not interleave (an install, a team policy
change). The lock file is created ``0600`` if absent, never opened through a symbolic
link, and never waited on as a FIFO; it is only a name to lock, its content is empty."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waymarks.files.dirs import make_private_dirs
from waymarks.files.reading import regular_only


def open_lock(path: Path) -> int:
    """The lock file's descriptor (its directory made first); ``OSError`` if it cannot be
    opened, for the caller to word: ``NotARegularFile`` for a FIFO, a device or a
    socket at its name (opened without waiting: a FIFO opened to read and write does not
    block, but then no lock on it means anything)."""
    make_private_dirs(path.parent)  # under the home, which may be made here
    return regular_only(os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                                | os.O_CLOEXEC, 0o600), path, "not locked")


@contextmanager
def holding(fd: int) -> Iterator[None]:
    """Hold an exclusive lock on ``fd`` (from :func:`open_lock`), then close it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
