"""Processes that open one new database together all get it in WAL mode: the switch is a
race SQLite answers with ``database is locked`` at once, whatever the busy timeout (seen
in CI as a job store failing to open while two workers started), so ``enter_wal`` reads
the mode first and retries a lost switch. Real processes, real files."""

from __future__ import annotations

import multiprocessing as mp
import os
import sqlite3
from pathlib import Path

import pytest

from waymarks.store.wal import enter_wal

OPENERS = 6
ROUNDS = 60  # the plain switch lost about 1 open in 50-150 here: several per run


def _open(path: str, barrier: mp.synchronize.Barrier, done: mp.Queue, plain: bool) -> None:
    barrier.wait()
    try:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 30000")
        if plain:
            db.execute("PRAGMA journal_mode = WAL")
        else:
            enter_wal(db, 30.0)
        db.execute("CREATE TABLE IF NOT EXISTS t (x)")
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
        done.put(mode)
    except sqlite3.Error as exc:
        done.put(f"error: {exc}")


def _race(tmp_path: Path, plain: bool) -> list[str]:
    context = mp.get_context("fork")
    outcomes = []
    for n in range(ROUNDS):
        path = tmp_path / f"race{n}.db"
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # as the job store does
        barrier, done = context.Barrier(OPENERS), context.Queue()
        workers = [context.Process(target=_open, args=(str(path), barrier, done, plain))
                   for _ in range(OPENERS)]
        for worker in workers:
            worker.start()
        outcomes += [done.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(60)
    return outcomes


@pytest.mark.slow
def test_every_process_opening_a_new_database_together_gets_wal(tmp_path: Path) -> None:
    outcomes = _race(tmp_path, plain=False)
    assert outcomes == ["wal"] * (OPENERS * ROUNDS)


def test_a_database_already_in_wal_is_left_as_it_is(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    enter_wal(db, 1.0)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # another connection holds a write transaction: reading the mode needs no switch
    other = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    enter_wal(db, 0.0)
    other.execute("ROLLBACK")


def test_a_switch_that_stays_locked_raises_after_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")  # rollback mode: nobody may switch meanwhile
    db = sqlite3.connect(path, isolation_level=None, timeout=0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        enter_wal(db, 0.05)
    holder.execute("ROLLBACK")
    enter_wal(db, 1.0)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
