"""Session ledgers stored as files: the Pi layout, ``flock`` for writers, ``fsync`` for durability.

A running Pi process keeps its session in memory and does not lock the file, so Waymarks
appends to a Pi session file directly only when no Pi process owns it; its own writers
exclude each other with an exclusive ``flock`` on the file.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waymarks.ledger.log import (
    SESSION_VERSION,
    Anomaly,
    Entry,
    ProgressFn,
    SessionFileError,
    SessionHeader,
    SessionLog,
    header_line,
)

__all__ = ["SESSION_VERSION", "Anomaly", "Entry", "SessionFile", "SessionFileError",
           "SessionHeader"]


class SessionFile(SessionLog):
    """A session ledger in a file."""

    _fd: int | None = None

    @classmethod
    def open(cls, path: Path, progress: ProgressFn | None = None) -> SessionFile:
        """Read an existing session file; refuse one whose first line is not a header.

        ``progress(bytes_read, total)`` is called now and then while a large file loads.
        """
        if not path.is_file():
            raise SessionFileError(f"{path}: no such session file")
        session = cls(path)
        session._load(progress)
        return session

    @classmethod
    def resume(cls, path: Path, offset: int, lines: int, entries: int) -> SessionFile:
        """A reader of ``path`` that reads its header and then only what follows the
        checkpoint (see :meth:`SessionLog._resume`)."""
        if not path.is_file():
            raise SessionFileError(f"{path}: no such session file")
        session = cls(path)
        session._resume(offset, lines, entries)
        return session

    @classmethod
    def create(cls, path: Path, session_id: str, timestamp: str, cwd: str) -> SessionFile:
        """Create a new file holding only the header, durably (file and directory)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        try:
            _write_all(fd, header_line(session_id, timestamp, cwd))
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(path.parent)
        return cls.open(path)

    def reopen(self, progress: ProgressFn | None = None) -> SessionFile:
        return SessionFile.open(self.path, progress)

    def _size(self) -> int:
        return os.path.getsize(self.path)

    def _read_from(self, offset: int, limit: int) -> bytes:
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            return handle.read(limit)

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._fd = fd
            yield
        finally:
            self._fd = None
            os.close(fd)  # closing releases the lock

    def _write_durably(self, data: bytes) -> None:
        assert self._fd is not None, "write outside the lock"
        _write_all(self._fd, data)
        os.fsync(self._fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
