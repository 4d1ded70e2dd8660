"""Switching a database to write-ahead logging when several processes open it at once.

``PRAGMA journal_mode = WAL`` needs an exclusive lock on a database still in rollback
mode, and SQLite answers ``database is locked`` at once, without calling the busy
handler, when two connections race for that upgrade (it would otherwise deadlock): six
processes opening one new database together failed 5 times in 240 opens despite a
30-second ``busy_timeout``. The mode is stored in the file, so a database already in WAL
needs no change: read it first, and retry only the switch, with a short backoff, until
the caller's timeout.
"""

from __future__ import annotations

import sqlite3
import time

__all__ = ["enter_wal"]


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
