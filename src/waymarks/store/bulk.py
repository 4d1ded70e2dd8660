"""Bulk loads of the projection (a rebuild, a re-fold): many rows into emptied tables,
inside the caller's transaction.

The tables' indexes are dropped while the rows go in and built once after them (a sort,
not a random B-tree insert per row), with a page cache of :data:`BULK_CACHE_KIB`. It is
bounded, not sized to hold the database: the rows are appended in rowid order, so a page
spilled to the WAL before the commit is one the commit would have written there anyway,
and an index build scans its table once. A cache of 256 MiB bought no CPU (the same
within noise at 100k and 1M mutations, benchmarks/rebuild.py) and was a tenth of the
peak memory at 1M, a third at 100k. A spilled page is the uncommitted transaction's: a
rebuild killed midway leaves the old database (tests/durability/test_rebuild_crash.py).
On error nothing is rebuilt here: the caller's transaction rolls back whole, indexes
included.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Final

#: 32 MiB of page cache while a bulk load runs (negative: KiB), and SQLite's default after
BULK_CACHE_KIB: Final = -32_768
DEFAULT_CACHE_KIB: Final = -2000


@contextmanager
def bulk_load(db: sqlite3.Connection, tables: Sequence[str]) -> Iterator[None]:
    """Drop the indexes of ``tables`` for the block and create them again after it."""
    marks = ",".join("?" * len(tables))
    indexes = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        f" AND tbl_name IN ({marks})", tuple(tables)).fetchall()
    for name, _sql in indexes:
        db.execute(f"DROP INDEX {name}")
    db.execute(f"PRAGMA cache_size = {BULK_CACHE_KIB}")
    try:
        yield
        for _name, sql in indexes:
            db.execute(sql)
    finally:
        db.execute(f"PRAGMA cache_size = {DEFAULT_CACHE_KIB}")
