"""Session ledgers kept in memory: the same reader and appender, no file.

Used by tests (the contract tests run against it and the file ledger alike) and by hosts
that persist entries themselves. ``durable`` holds what a real file would hold.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waymarks.ledger.log import ProgressFn, SessionLog, header_line


class MemorySessionLog(SessionLog):
    """A session ledger whose bytes live in a shared in-memory buffer."""

    def __init__(self, name: str, buffer: bytearray, lock: threading.Lock) -> None:
        super().__init__(Path(f"memory:{name}"))
        self.buffer = buffer
        self._lock = lock

    @classmethod
    def create(cls, session_id: str, timestamp: str, cwd: str) -> MemorySessionLog:
        log = cls(session_id, bytearray(header_line(session_id, timestamp, cwd)),
                  threading.Lock())
        log._load(None)
        return log

    def reopen(self, progress: ProgressFn | None = None) -> MemorySessionLog:
        log = MemorySessionLog(self.path.name, self.buffer, self._lock)
        log._load(progress)
        return log

    def _size(self) -> int:
        return len(self.buffer)

    def _read_from(self, offset: int, limit: int) -> bytes:
        return bytes(self.buffer[offset:offset + limit])

    @contextmanager
    def _exclusive(self, group_commit: bool = False) -> Iterator[None]:
        with self._lock:
            yield

    def _write_durably(self, data: bytes) -> None:
        self.buffer.extend(data)
