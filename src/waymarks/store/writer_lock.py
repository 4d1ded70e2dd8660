"""The writer's turn: an ``flock`` on ``<database>.lock``, beside the database.

Writers queue on it before SQLite's own lock: SQLite's busy wait sleeps and retries, so
under load one process could lose the race for seconds while others commit and begin
again. The turn is also what a recovery holds while it sets a damaged database aside and
builds the new one, so no other process commits into, or sets aside, a file mid-repair.

What must stay true:
- the common, uncontended turn is one non-blocking ``flock`` call;
- a turn is never waited for without end: a holder that is stopped (Ctrl-Z, SIGSTOP) or
  hung makes the others give up after the busy timeout with SQLite's own busy error
  (``SQLITE_BUSY``: "another process kept … locked for too long"), never wait forever;
- a thread that holds the turn for a database may take it again (a recovery rebuilds
  through the same projection methods that take it): ``flock`` would otherwise deadlock
  against the process's own descriptor;
- the lock file is opened without following a link and without blocking on a FIFO;
- a thread waiting for the turn is counted (:func:`waited_for`), so a long job of another
  thread of the process that commits in parts lets it go first between two parts.
"""

from __future__ import annotations

import os
import sqlite3
from _thread import _local as thread_local
from _thread import allocate_lock
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waymarks.ledger.flock_wait import flock_within

_HELD = thread_local()  # threading.local, without importing threading (a fresh recall)
#: how many threads of this process wait for each database's turn now (:func:`waited_for`)
_WAITING: dict[str, int] = {}
_COUNTING = allocate_lock()


class WriterBusy(sqlite3.OperationalError):
    """The writer's turn was not free within the busy timeout (an environment problem,
    reported like SQLite's own ``SQLITE_BUSY``)."""

    sqlite_errorname = "SQLITE_BUSY"
    sqlite_errorcode = 5

    def __init__(self, message: str, db_path: Path | None = None) -> None:
        super().__init__(message)
        #: the database whose turn was not free (an error reported far from here names it)
        self.db_path = db_path


def lock_path(db_path: Path) -> str:
    return f"{db_path}.lock"


@contextmanager
def writer_turn(db_path: Path, timeout_s: float) -> Iterator[None]:
    """Hold the writer's turn for ``db_path`` (re-entrant within a thread)."""
    held: set[str] = _HELD.__dict__.setdefault("paths", set())
    key = str(db_path)
    if key in held:
        yield
        return
    fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                 | os.O_CLOEXEC, 0o600)
    try:
        waiting = os.path.abspath(key)  # (the fold's and the plan's paths, spelt apart)
        _count_waiting(waiting, 1)
        try:
            taken = flock_within(fd, timeout_s)
        finally:
            _count_waiting(waiting, -1)
        if not taken:
            raise WriterBusy(f"{lock_path(db_path)}: held by another process for"
                             f" {timeout_s:g} s", Path(db_path))
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
    finally:
        os.close(fd)  # releases the lock


def begin_immediate(db: sqlite3.Connection, db_path: Path, busy_timeout_ms: int, *,
                    wait: bool) -> None:
    """``BEGIN IMMEDIATE`` (in the writer's turn); with ``wait=False`` not waiting for
    SQLite's write lock either (:class:`WriterBusy`): a process that is no writer of ours
    (a `sqlite3` shell's open write) holds it with our turn free, and every open of a
    small home waited the whole busy timeout there (`pins` 10 s, a `pin` 30 s more than
    its own)."""
    if wait:
        db.execute("BEGIN IMMEDIATE")
        return
    db.execute("PRAGMA busy_timeout = 0")
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise
        raise WriterBusy(f"{db_path}: write-locked by another process", db_path) from exc
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")


def _count_waiting(key: str, step: int) -> None:
    with _COUNTING:
        count = _WAITING.get(key, 0) + step
        if count:
            _WAITING[key] = count
        else:
            del _WAITING[key]


def waited_for(db_path: Path) -> bool:
    """Whether a thread of this process waits for ``db_path``'s turn now: a long fold or
    write in parts lets it go before its next part
    (:func:`waymarks.store.evolution.let_waiters_in`)."""
    return os.path.abspath(db_path) in _WAITING


def holds_turn(db_path: Path) -> bool:
    """Whether this thread holds ``db_path``'s turn now (a pause for waiters then lets
    none in: they wait for this very thread), however its path is spelt."""
    held = _HELD.__dict__.get("paths", ())
    return str(db_path) in held or os.path.abspath(db_path) in map(os.path.abspath, held)


FileIdentity = tuple[int, int]


def file_identity(path: Path) -> FileIdentity | None:
    """Which file is at ``path`` (device, inode), or ``None`` if none is."""
    found = file_stat(path)
    return None if found is None else (found.st_dev, found.st_ino)


def file_stat(path: Path) -> os.stat_result | None:
    """The ``stat`` of the file at ``path``, or ``None`` if none is: for a caller that asks
    both which file it is (:func:`file_identity`'s two fields) and something else of it
    with one ``stat``."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
