"""Whether the recall index is behind reads the last memory item's ``seq`` with a loose
index scan over sessions (issue 15: the plain ``max`` read every item on every recall).
It must return what the plain query returns, for any mix of sessions, kinds and seqs."""

from __future__ import annotations

import functools
import sqlite3

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, last_memory_seq

PLAIN = "SELECT coalesce(max(seq), 0) FROM items WHERE kind = 'memory'"


@functools.cache
def _migrated() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    return db


def _insert(db: sqlite3.Connection, rows: list[tuple[str, str, int]]) -> None:
    db.executemany(
        "INSERT INTO items (id, kind, scope, partition, text, norm, polarity_sign, status,"
        " session_id, entry_id, created_at, seq, record)"
        " VALUES (?, ?, 'session', 'p', 't', 't', 0, 'active', ?, 'e', 0, ?, x'00')",
        [(f"i{n}", kind, session, seq) for n, (session, kind, seq) in enumerate(rows)])


def _last_memory_seq_is_the_plain_maximum(rows: list[tuple[str, str, int]]) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        _migrated().backup(db)
        _insert(db, rows)
        assert last_memory_seq(db) == db.execute(PLAIN).fetchone()[0]
    finally:
        db.close()


@lanes(quick=50, long=200)
def test_last_memory_seq_is_the_plain_maximum(examples: int) -> None:
    run_property(examples, _last_memory_seq_is_the_plain_maximum,
                 st.lists(st.tuples(st.sampled_from(["", "a", "b", "s-1", "s-10", "\u00e9",
                                                     "z" * 40]),
                                    st.sampled_from(["memory", "pin"]),
                                    st.integers(0, 2**40)), max_size=40))


def test_behind_follows_the_watermark() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    _migrated().backup(db)
    index = RecallIndex(db)
    assert not index.behind()  # no items
    _insert(db, [("s1", "pin", 9), ("s1", "memory", 4), ("s2", "memory", 7)])
    assert last_memory_seq(db) == 7 and index.behind()
    db.execute("INSERT INTO meta (name, value) VALUES ('recall_seq', '7')")
    assert not index.behind()
