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

A passive checkpoint beside a writer that keeps committing cannot start the log over:
that needs the whole log copied with no commit in between. So the log grew by every
commit's pages (~100 KB for one claim: a leaf of each of its ~17 tables and indexes,
several of the claim-term index) for as long as the writer ran: an import of 2,000 lines
peaked at 157-207 MB of log for a 3.9 MB database, and one on a small disk failed with
"No space left on device" and left every command failing. Once the log passes
:data:`WAL_LIMIT_BYTES` the writer itself, between two of its commits, copies it all and
truncates it (:func:`restart`), waiting for readers only briefly: when one holds an older
snapshot it goes on writing and tries again once the log grew by half the limit more,
without waiting while the last try found such a reader.

That restart runs in the writer's turn and, on the write path, under the session lock:
with 8 processes writing to one session it copied the whole log (~20 writes' pages)
and fsynced the database every ~40 writes, ~35-70 ms that every waiting writer paid
(issue 15). It cannot simply move out of the turn (the next writer would wait for the
turn instead, and the turn is what keeps a stopped restart from looking like a free
one). So the commit that takes the log past each step of :data:`COPY_EVERY_BYTES`
(whichever process makes it: the size is the file's) starts the passive checkpoint
beside the write path, in no lock: the restart then copies only what came after it.
When such a checkpoint copied the whole log before the next write began, SQLite starts
the log over from its beginning at that write, and ``journal_size_limit = 0`` cuts the
file to that write's pages, so the file's size stays the log's.
"""

from __future__ import annotations

import _thread
import os
import sqlite3
import time
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Final

from waymarks.store.private import uri

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

__all__ = ["CHECKPOINT_EVERY_COMMITS", "CHECKPOINT_PASSES", "RESTART_WAIT_MS", "WAL_LIMIT_BYTES",
           "Background", "Checkpointer", "enter_wal", "restart"]

CHECKPOINT_EVERY_COMMITS: Final = 500
#: passes one checkpoint makes at most while commits keep landing beside it
CHECKPOINT_PASSES: Final = 8
#: the log's size past which the writer starts it over itself (SQLite's own automatic
#: checkpoint comes at 1,000 pages: 4 MiB of 4 KiB pages)
WAL_LIMIT_BYTES: Final = 4 * 1024 * 1024
#: how much the log grows between two passive checkpoints a committing process starts
COPY_EVERY_BYTES: Final = WAL_LIMIT_BYTES // 4
#: how long that checkpoint waits for a reader of an older snapshot (or another
#: process's write) before the writer goes on without it
RESTART_WAIT_MS: Final = 100


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
    background thread on a connection of its own, and one more when the owner closes;
    and the log started over by the owner once it passes :data:`WAL_LIMIT_BYTES`."""

    def __init__(self, path: Path, timeout_s: float) -> None:
        self.path, self.timeout_s = path, timeout_s
        self._log = path.with_name(f"{path.name}-wal")
        self._restart_at = WAL_LIMIT_BYTES  # the log's size that starts it over
        self._held = False  # the last try found a reader of an older snapshot
        self._rewrite = False  # the transaction under way writes the whole database
        self._commits = 0
        self._began_at = 0  # the log's size when the transaction under way began
        self._thread: Background | None = None
        self._due = False  # a passive checkpoint fell due and was not started yet
        self._deferred = 0  # inside how many deferred() blocks

    def committed(self, db: sqlite3.Connection) -> None:
        """Count a commit the owner made through ``db`` (out of any transaction now);
        start the log over when it passed its limit, and a passive checkpoint (unless one
        runs) when enough commits were made or this commit took the log past a step of
        :data:`COPY_EVERY_BYTES` below the limit."""
        self._commits += 1
        before, size = self._began_at, self._bound(db)
        crossed = before // COPY_EVERY_BYTES < size // COPY_EVERY_BYTES < \
            WAL_LIMIT_BYTES // COPY_EVERY_BYTES  # (not in the last step: the restart's)
        if (self._commits % CHECKPOINT_EVERY_COMMITS and not crossed) or (
                self._thread is not None and self._thread.is_alive()):
            return
        self._due = True
        if not self._deferred:
            self.start_due()

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """A checkpoint that falls due inside starts as it ends, not before: around a
        session lock's hold, so the waiting writers never pay for starting it."""
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1
            if not self._deferred:
                self.start_due()

    def start_due(self) -> None:
        """Start the passive checkpoint that fell due, in a thread of its own connection;
        without waiting for the thread to run (``threading.Thread.start`` waits: on 2
        loaded cores, 2-14 ms for the scheduler, paid by the writer that started it)."""
        if not self._due:
            return
        self._due = False

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

        with suppress(RuntimeError):  # no thread to be had: a later one copies it all
            self._thread = Background(run)

    def began(self) -> None:
        """A write transaction began (in the writer's turn): note the log's size, so the
        one commit that takes it past a step of :data:`COPY_EVERY_BYTES` is known."""
        self._began_at = _size(self._log)

    def rewritten(self) -> None:
        """The transaction under way writes the whole database (a rebuild, a re-fold): its
        commit starts the log over, whatever its size. Under the limit, a rebuild left
        all of the new database in the log (its file 4 KB, the log 3 MB at 1k claims), each
        read went through it, and the commit that passed the limit later, a plan's ~200
        plans on, copied it back on that plan's path (8-11 ms of CPU, 30-56 ms of wall)."""
        self._rewrite = True

    def rolled_back(self) -> None:
        """The transaction under way was rolled back: a :meth:`rewritten` mark goes with
        it (left, the next commit, a plan's, paid the restart and its wait for readers)."""
        self._rewrite = False

    def _bound(self, db: sqlite3.Connection) -> int:
        """Start the log over through ``db`` once it reached its limit; when a reader
        keeps that from happening, try again after it grew by half the limit more (each
        try waits :data:`RESTART_WAIT_MS` for readers: not at every commit)."""
        rewrite, self._rewrite = self._rewrite, False
        size = _size(self._log)
        if size < 0:  # (gone with a database deleted meanwhile: nothing to bound)
            return 0
        if size < self._restart_at and not rewrite:
            return size
        if self._thread is not None:  # a checkpoint beside this one answers busy: let
            self._thread.join()       # it finish (a few short passes), then copy the rest
        # the reader that held the last try is waited for once, not at every try: under
        # a long one (an open `sqlite3` shell) an import of 600 lines waited 3.7 s of 17
        # in 30 tries that could not succeed; a try that does not wait still succeeds
        # the moment it is gone
        started = restart(db, 0 if self._held else RESTART_WAIT_MS)
        self._held = not started
        self._restart_at = WAL_LIMIT_BYTES if started else size + WAL_LIMIT_BYTES // 2
        return 0 if started else size

    def close(self, db: sqlite3.Connection) -> None:
        """Wait for a running checkpoint, then checkpoint through ``db`` (the owner's, about
        to close: it does what one that fell due would)."""
        self._due = False
        if self._thread is not None:
            self._thread.join()
        checkpoint(db)


class Background:
    """A function run in a thread of its own, started without waiting for the thread to
    be scheduled; :meth:`join` waits for it to end. (``_thread``: a one-shot process
    imports no ``threading``.)"""

    def __init__(self, run: Callable[[], None]) -> None:
        self._done = _thread.allocate_lock()
        self._done.acquire()

        def body() -> None:
            try:
                run()
            finally:
                self._done.release()

        _thread.start_new_thread(body, ())

    def is_alive(self) -> bool:
        return self._done.locked()

    def join(self, timeout: float = -1) -> None:
        if self._done.acquire(timeout=timeout):
            self._done.release()


def _size(log: Path) -> int:
    """The log's size in bytes, -1 when it is not there."""
    try:
        return os.stat(log).st_size
    except OSError:
        return -1


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
    longer than the one before it, at most :data:`CHECKPOINT_PASSES`, each short; a
    writer committing faster than that still outruns them (an import: a commit per
    line), which :func:`restart` bounds."""
    with suppress(sqlite3.OperationalError):
        copied = -1
        for _ in range(CHECKPOINT_PASSES):
            busy, log, done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if busy or log <= 0 or done < log or log == copied:
                return  # blocked, not a log, or nothing appended since the last pass
            copied = log


def restart(db: sqlite3.Connection, wait_ms: int) -> bool:
    """Copy the whole log into the database and truncate it, through ``db`` (out of any
    transaction), waiting at most ``wait_ms`` for readers of an older snapshot and for
    another process's write; whether the log was started over. Run by the writer
    between two of its commits, so no commit of its own lands meanwhile, and in its
    writer's turn: it holds SQLite's write lock, which no other process may find held
    while the turn is free (a reader's open check takes the free turn, then waits)."""
    (before,) = db.execute("PRAGMA busy_timeout").fetchone()
    db.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
    try:
        busy, _log, _copied = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError:  # (a statement of its own still reading: later)
        return False
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(before)}")
    return not busy
