"""A large add leaves the recall index's full-text table in one segment.

FTS5 looks every term a query names up in each segment of its index: a 100k build left 7
segments and 84 of a query's 107 statements were those lookups. An add writing at least a
quarter of the index (a rebuild, a first catch-up) now merges them; a small add to a large
index leaves them to FTS5's own merging (the merge reads the whole index)."""

from __future__ import annotations

import sqlite3

from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput


def segments(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(DISTINCT segid) FROM recall_terms_idx").fetchone()[0])


def records(start: int, count: int) -> list[RecordInput]:
    return [RecordInput(id=f"m{n}", text=f"The service s{n} listens on port {8000 + n}.",
                        status="active", origin="project:/p", created_at=n)
            for n in range(start, start + count)]


def add(index: RecallIndex, db: sqlite3.Connection, batch: list[RecordInput]) -> int:
    db.execute("BEGIN")
    added = index.add(batch)
    db.execute("COMMIT")  # each commit writes the pending postings as a segment of its own
    return added


def test_a_large_add_merges_the_segments_a_small_one_leaves_them() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    for start in (0, 40, 80):
        add(index, db, records(start, 40))
    assert segments(db) == 1  # each add was a quarter or more of the index then
    for start in (120, 121, 122):  # one record each: far below a quarter of 120
        add(index, db, records(start, 1))
    assert segments(db) == 4
    assert add(index, db, records(200, 60)) == 60  # 60 of 183: a quarter or more
    assert segments(db) == 1
    # every row is still found by each term all of them hold ("listens", "port")
    shared = [t for (t,) in db.execute("SELECT term FROM recall_vocab WHERE doc = 183")]
    assert len(shared) >= 2
    for term in shared:
        found = db.execute("SELECT rowid FROM recall_terms WHERE recall_terms MATCH ?"
                           " ORDER BY rowid", (f'"{term}"',)).fetchall()
        assert [r for (r,) in found] == list(range(1, 184))
    db.execute("INSERT INTO recall_terms (recall_terms) VALUES ('integrity-check')")
