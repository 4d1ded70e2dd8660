"""Write-ahead logging: switching a database to it when several processes open it at once,
and checkpointing it beside the write path.

``PRAGMA journal_mode = WAL`` needs an exclusive lock on a database still in rollback
mode, and SQLite answers ``database is locked`` at once, without calling the busy
handler, when two connections race for that upgrade (it would otherwise deadlock): six
processes opening one new database together failed 5 times in 240 opens despite a
30-second ``busy_timeout``. The mode is stored in the file, so a database already in WAL
needs no change: read it first, and retry only the switch, with a short backoff, until
the caller's timeout.

Checkpoints fsync the database, so the projection turns SQLite's automatic ones off and a
:class:`Checkpointer` runs a passive one on its own connection every
:data:`CHECKPOINT_EVERY_COMMITS` commits, in a thread (a one-shot process that never
commits that often never starts it, nor imports ``threading``).
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import suppress
from typing import TYPE_CHECKING, Final

from waymarks.store.private import uri

if TYPE_CHECKING:
    import threading
    from pathlib import Path

__all__ = ["CHECKPOINT_EVERY_COMMITS", "CHECKPOINT_PASSES", "Checkpointer", "enter_wal"]

CHECKPOINT_EVERY_COMMITS: Final = 500
#: passes one checkpoint makes at most while commits keep landing beside it
CHECKPOINT_PASSES: Final = 8


def _busy(exc: sqlite3.OperationalError) -> bool:
    message = str(exc)
    return "locked" in message or "busy" in message


def enter_wal(db: sqlite3.Connection, timeout_s: float) -> None:
    """Put ``db`` in WAL mode (a no-op when it already is), retrying a lost race for the
    switch until ``timeout_s``; any other error, or the timeout, raises."""
    deadline = time.monotonic() + timeout_s
    delay = 0.001
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


class Checkpointer:
    """A passive WAL checkpoint every :data:`CHECKPOINT_EVERY_COMMITS` commits, in a
    background thread on a connection of its own, and one more when the owner closes."""

    def __init__(self, path: Path, timeout_s: float) -> None:
        self.path, self.timeout_s = path, timeout_s
        self._commits = 0
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        """Count a commit; start a checkpoint when enough were made (unless one runs)."""
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY_COMMITS or (
                self._thread is not None and self._thread.is_alive()):
            return

        def run() -> None:
            try:  # never creating it: a database deleted meanwhile stays deleted
                # mode=rw: the plain open creates a missing database, and beside a gone
                # one's -wal and -shm (kept at their names by the connection of the
                # process that held it) this copied that log into the new empty file
                db = sqlite3.connect(uri(self.path, "mode=rw"), timeout=self.timeout_s,
                                     uri=True)
            except sqlite3.OperationalError:
                return  # gone: nothing to checkpoint
            try:
                checkpoint(db)
            finally:
                db.close()

        import threading

        self._thread = threading.Thread(target=run, name="waymarks-checkpoint", daemon=True)
        self._thread.start()

    def close(self, db: sqlite3.Connection) -> None:
        """Wait for a running checkpoint, then checkpoint through ``db`` (the owner's, about
        to close)."""
        if self._thread is not None:
            self._thread.join()
        checkpoint(db)


def checkpoint(db: sqlite3.Connection) -> None:
    """A passive checkpoint: never waits for readers or writers; whatever it cannot copy
    now, a later checkpoint will. Losing one is harmless: the WAL is still a valid
    database.

    SQLite starts the log over at a commit only when the whole log had been copied
    before it. A pass copies the log as it was when the pass began, so the commits a
    busy process makes meanwhile (plan after plan, each ~2 ms apart, while a pass that
    fsyncs takes longer) were never copied before the next commit: the log never
    started over and grew without end (57 MB after 1,500 plans), every checkpoint
    sorting all of it again. Another pass follows while the last one found the log
    longer than the one before it, at most :data:`CHECKPOINT_PASSES`, each short."""
    with suppress(sqlite3.OperationalError):
        copied = -1
        for _ in range(CHECKPOINT_PASSES):
            busy, log, done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if busy or log <= 0 or done < log or log == copied:
                return  # blocked, not a log, or nothing appended since the last pass
            copied = log
