"""A process that is no writer of ours holding SQLite's write lock (a ``sqlite3`` shell's
open ``BEGIN IMMEDIATE``, a database browser): our writer's turn is free, so the open
check of a small home, which checks the recall index only "if the turn is free at once",
waited SQLite's whole busy timeout for the lock: ``pins`` took 10 s, and a ``pin`` 30 s
on top of its own 30 s before it failed. Reads must not wait for it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from waymarks.service.app import Waymarks


def test_a_read_does_not_wait_for_a_foreign_write_lock(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as first:
        first.session_new()
        first.pin("Run the linters")
    holder = sqlite3.connect(home / "waymarks.db", isolation_level=None,
                             check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    done, read_while_held = threading.Event(), []

    def release() -> None:  # a safety net: a read that waits is released, and fails below
        read_while_held.append(done.wait(60))  # (False: the read ended only once released)
        holder.execute("ROLLBACK")

    releaser = threading.Thread(target=release)
    releaser.start()
    try:
        with Waymarks(home, cwd=str(project), busy_timeout_ms=120_000) as reader:
            listed = [v.text for v in reader.items("pin")]
        done.set()  # while the lock is still held
    finally:
        done.set()
        releaser.join()
        holder.close()
    assert listed == ["Run the linters"]
    assert read_while_held == [True]  # read while the lock was held, not after it went
