"""The passive checkpoint beside the write path, when the database was deleted meanwhile.

A long-lived process's :class:`~waymarks.store.wal.Checkpointer` connects to the database
by its path in a thread of its own. Connecting the usual way creates the file when it is
gone: deleted by the person ("delete it and the next command rebuilds") while the process
held it, it made an empty database at the path beside the gone one's ``-wal`` and
``-shm`` (kept by the holder's connection), and checkpointed that log into it: the next
command met a database nobody wrote instead of making one afresh."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from waymarks.store.wal import CHECKPOINT_EVERY_COMMITS, Checkpointer, checkpoint


def held(path: Path, value: int) -> sqlite3.Connection:
    """A WAL database holding ``value``, its commit left in the log (no checkpoint)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE t (x)")
    db.execute("INSERT INTO t VALUES (?)", (value,))
    return db


def checkpointed(path: Path, owner: sqlite3.Connection) -> None:
    """As many commits (by ``owner``) as start the checkpoint thread; wait for it."""
    checkpoints = Checkpointer(path, 5.0)
    for _ in range(CHECKPOINT_EVERY_COMMITS):
        checkpoints.committed(owner)
    assert checkpoints._thread is not None
    checkpoints._thread.join(10)


def test_a_checkpoint_never_creates_the_database_it_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "odd ?#% name.db"
    first = held(path, 1)
    path.unlink()  # the person's rm, the holder's -wal and -shm left at their names
    checkpointed(path, first)
    assert not path.exists()
    first.close()
    # on a database that is there, the checkpoint still runs (the log is copied in)
    again = held(path, 2)
    checkpointed(path, again)
    copy = tmp_path / "main-file-only.db"
    copy.write_bytes(path.read_bytes())  # what the checkpoint wrote into the file itself
    assert sqlite3.connect(copy).execute("SELECT x FROM t").fetchall() == [(2,)]
    again.close()


class CommittedBeside(sqlite3.Connection):
    """The checkpoint's connection, with another connection committing right after its
    first pass copied the log (as the owner's next plan does, while a pass runs)."""

    beside: sqlite3.Connection | None = None

    def execute(self, sql: str, parameters: object = (), /) -> sqlite3.Cursor:
        cursor = super().execute(sql, parameters)  # type: ignore[arg-type]
        if sql.startswith("PRAGMA wal_checkpoint") and self.beside is not None:
            self.beside.execute("INSERT INTO t VALUES (zeroblob(20000))")
            self.beside = None
        return cursor


def test_a_checkpoint_catches_up_with_commits_made_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    owner = held(path, 1)
    for _ in range(20):
        owner.execute("INSERT INTO t VALUES (zeroblob(20000))")  # ~100 pages of log
    checkpointer = sqlite3.connect(path, isolation_level=None, factory=CommittedBeside)
    checkpointer.beside = owner
    checkpoint(checkpointer)
    assert checkpointer.beside is None  # (the commit beside it was made)
    # the whole log was copied, so the owner's next commit starts it over: its pages
    # alone (one pass left the commit made beside it uncopied: 8 pages, and growing)
    owner.execute("INSERT INTO t VALUES (1)")
    busy, log, done = owner.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert (busy, done) == (0, log) and 0 < log <= 3
    checkpointer.close()
    owner.close()
