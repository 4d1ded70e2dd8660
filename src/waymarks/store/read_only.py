"""The projection opened only to read it, when the disk holding it is full.

Every open of the projection writes (SQLite makes its ``-wal`` and ``-shm``, the open
migrates, verifies and refreshes), so on a full disk every read command failed, though
the file held every answer. This open writes nothing and creates no file:

- with a write-ahead log holding frames, ``mode=ro``: SQLite's own locks stand between
  it and a writer (it needs the ``-shm`` another connection keeps; else it fails, and the
  command reports the full disk as before);
- with no log, or an empty one, ``immutable=1``: the main file read as it is. No other
  process can change that file under it: in WAL mode pages reach the main file only by
  a checkpoint copying frames from the log, and the log is empty and cannot grow on a
  full disk (measured: on a full tmpfs a connection holding a log of frames still
  commits into it and checkpoints from it; one with none cannot begin to write).

What must stay true: nothing is written through it (:meth:`transaction` raises the open's
own full-disk error, so a write fails as before and changes nothing), a problem met
reading it is never taken for damage to repair (the caller reports the full disk), and
its schema must be this version's exactly (no migration can run).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from waymarks.store import binding
from waymarks.store.migrations import LATEST_VERSION, current_version
from waymarks.store.private import read_only_uri
from waymarks.store.projection import Projection
from waymarks.store.writer_lock import file_identity


class ReadOnlyProjection(Projection):
    """A :class:`Projection` that reads the database as it is and never writes."""

    def __init__(self, path: Path, refusal: Exception, busy_timeout_ms: int) -> None:
        """``refusal``: the error every write raises (the full disk the open met)."""
        self.path = path
        self.refusal = refusal
        binding.install()
        self.identity = file_identity(path)
        self.db = sqlite3.connect(read_only_uri(path), uri=True, isolation_level=None,
                                  timeout=busy_timeout_ms / 1000, check_same_thread=False)
        try:
            self.wait_for_others(busy_timeout_ms)
            version = current_version(self.db)
            if version != LATEST_VERSION:  # older needs a migration, newer is refused
                raise sqlite3.OperationalError(f"schema v{version}, not v{LATEST_VERSION}")
        except BaseException:
            self.db.close()
            raise
        self._start_reads()

    def close(self) -> None:
        self.db.close()

    def health(self) -> dict[str, Any]:
        """The health report, without FTS5's own check (an INSERT: it cannot run here)."""
        from waymarks.store.health import health_report

        return health_report(self.db, writable=False)

    def checkpoints_deferred(self) -> AbstractContextManager[None]:
        """No checkpoint to defer: nothing is written (the write's :meth:`transaction`
        inside it raises the full disk)."""
        return nullcontext()

    @contextmanager
    def transaction(self, *, wait: bool = True) -> Iterator[sqlite3.Connection]:
        raise self.refusal
        yield self.db  # (never reached: the generator's shape)
