"""Whether the recall index is behind reads the last memory item's ``seq`` with a loose
index scan over sessions (issue 15: the plain ``max`` read every item on every recall).
It must return what the plain query returns, for any mix of sessions, kinds and seqs; so
must the catch-up's read of the memory items past a seq, by the same index."""

from __future__ import annotations

import functools
import sqlite3

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.store.memory_seq import memory_items_after
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, last_memory_seq

PLAIN = "SELECT coalesce(max(seq), 0) FROM items WHERE kind = 'memory'"
AFTER = "SELECT id, seq FROM items WHERE kind = 'memory' AND seq > ? ORDER BY seq LIMIT ?"


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
        seqs = sorted({seq for _session, _kind, seq in rows})
        # (items never share a seq; rows here may, and then their order is either's)
        unique = len(seqs) == len(rows)
        for after in (-1, *seqs[:3], *seqs[-2:]):  # the catch-up's read, as far as it goes
            for limit in (-1, 1, 3) if unique else (-1,):
                found = memory_items_after(db, "id, seq", after, limit)
                plain = db.execute(AFTER, (after, limit)).fetchall()
                assert found == plain if unique else sorted(found) == sorted(plain)
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
