"""A large group of rows is ordered by the packed lengths (``recall_lengths``), not by a
document-size lookup per row, and the ranking stays FTS5's own.

Before, the rows of a common word (28,665 at a million claims) were each looked up in
FTS5's ``_docsize`` (10.6 of the 15.9 ms of CPU that group cost). The packed path must give
exactly the order it gave: ties to the lower row ID, documents of 128 terms or more (read
from SQL after the others), a subset of the rows allowed, and a row whose length is not
packed (the old path then).
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from pathlib import Path

import pytest

from tests.store.test_migrations import database_at
from tests.store.test_recall_rank import FILLER, TERMS, fts, fts5_order
from waymarks.recall.plan import direct_plan
from waymarks.store import recall_index, recall_lengths, recall_rank
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput
from waymarks.store.recall_rank import ranked


def packed(db: sqlite3.Connection) -> bytes:
    """Each row's length byte, as ``recall_lengths`` keeps it, from ``idx``'s sizes."""
    rows = db.execute("SELECT id, sz FROM idx_docsize").fetchall()
    out = bytearray(max((rowid for rowid, _ in rows), default=0) + 1)
    for rowid, size in rows:
        out[rowid] = size[0] if len(size) == 1 else recall_lengths.LONG
    return bytes(out)


@pytest.fixture
def every_group_packed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_rank, "_PACKED_GROUP", 1)
    monkeypatch.setattr(recall_rank, "_LISTED_POSTINGS", 0)  # every group found by terms


@pytest.mark.usefixtures("every_group_packed")
@pytest.mark.parametrize("seed", range(12))
def test_the_packed_order_is_fts5s_own(seed: int) -> None:
    rng = random.Random(seed)
    rows = [rng.choices(TERMS[:3] * 6 + TERMS, k=rng.randint(1, 6))
            for _ in range(rng.randint(50, 600))]
    for n in rng.sample(range(len(rows)), min(len(rows), rng.randint(0, 8))):
        rows[n] = rows[n] + FILLER  # 128 terms or more: a two-byte size, read from SQL
    db = fts(rows)
    lengths = packed(db)
    read: list[int] = []

    def reader() -> bytes:
        read.append(1)
        return lengths

    for _ in range(6):
        terms = sorted(rng.sample([*TERMS[:6], "unseen"], rng.randint(1, 4)))
        counts = [int(db.execute("SELECT count(*) FROM idx WHERE idx MATCH ?",
                                 (t,)).fetchone()[0]) for t in terms]
        limit = rng.choice([1, 5, 100, 1000])
        want = rng.choice([1, 7, 100])
        mine = list(itertools.islice(ranked(db, "idx", terms, 1, want, counts,
                                            lengths=reader), limit))
        assert mine == fts5_order(db, terms, limit), (terms, limit, want)
        allowed = frozenset(rng.sample(range(1, len(rows) + 1), len(rows) // 2))
        mine = list(itertools.islice(ranked(db, "idx", terms, 1, want, counts, allowed,
                                            lengths=reader), limit))
        every = fts5_order(db, terms, len(rows))
        assert mine == [rowid for rowid in every if rowid in allowed][:limit]
    assert read  # the packed path ran


@pytest.mark.usefixtures("every_group_packed")
def test_a_row_whose_length_is_not_packed_is_ranked_the_old_way() -> None:
    rows = [["t00", *FILLER[:n % 9]] for n in range(400)] + [["t00", "t01"]] * 30
    db = fts(rows)
    lengths = bytearray(packed(db))
    for broken in (bytes(lengths[:200]), bytes(lengths[:57]) + b"\0" + bytes(lengths[58:]),
                   b""):
        for terms in (["t00"], ["t00", "t01"]):
            mine = list(itertools.islice(ranked(db, "idx", terms, 1, 100, [430, 30][:len(
                terms)], lengths=lambda b=broken: b), 300))  # type: ignore[misc]
            assert mine == fts5_order(db, terms, 300)


def fresh_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, 0)
    return db


def docsize_bytes(db: sqlite3.Connection) -> bytes:
    """What the packed lengths must hold: FTS5's document sizes, chunk by chunk."""
    rows = db.execute("SELECT id, sz FROM recall_terms_docsize").fetchall()
    top = max((rowid for rowid, _ in rows), default=-1)
    out = bytearray(0 if top < 0 else (top // recall_lengths.CHUNK + 1) * recall_lengths.CHUNK)
    for rowid, size in rows:
        out[rowid] = size[0] if len(size) == 1 else recall_lengths.LONG
    return bytes(out)


def claims(count: int, start: int = 0) -> list[RecordInput]:
    words = " ".join(FILLER)
    return [RecordInput(id=f"m{start + n}", text=f"billing port {n % 13} build{n}"
                        + (f" {words}" if n % 97 == 0 else "")) for n in range(count)]


def test_the_packed_lengths_follow_every_write(tmp_path: Path) -> None:
    db = fresh_db(tmp_path / "w.db")
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(claims(5000))  # two chunks from empty
    db.execute("COMMIT")
    assert recall_lengths.reader(db)() == docsize_bytes(db)
    assert recall_lengths.LONG in docsize_bytes(db)  # a long record, packed as such
    for part in range(3):  # a few at a time, into a chunk written before
        index.add(claims(9, start=10_000 + 10 * part))
        assert recall_lengths.reader(db)() == docsize_bytes(db)
    db.execute("BEGIN")
    recall_index.reset(db)
    assert recall_lengths.reader(db)() == b""
    index.add(claims(30), fresh=True)
    db.execute("COMMIT")
    assert recall_lengths.reader(db)() == docsize_bytes(db) != b""


def test_migration_26_packs_an_index_written_before_it(tmp_path: Path) -> None:
    db = database_at(tmp_path / "old.db", 25)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(claims(300))
    db.execute("COMMIT")
    db.execute("DROP TABLE recall_lengths")  # as the release of migration 25 made it
    assert migrate(db, 2) == [26]
    assert recall_lengths.reader(db)() == docsize_bytes(db) != b""


def test_a_large_group_is_ordered_without_a_size_lookup_per_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = fresh_db(tmp_path / "g.db")
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(RecordInput(id=f"m{n}", text=f"the billing service build{n}"
                          + " extra words here" * (n % 3)) for n in range(600))
    db.execute("COMMIT")
    plan = direct_plan("billing")
    expected = [c.id for c in index.candidates(plan)]  # the group read by its terms
    monkeypatch.setattr(recall_rank, "_PACKED_GROUP", 100)
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    assert [c.id for c in index.candidates(plan)] == expected and len(expected) == 100
    db.set_trace_callback(None)
    assert not any("_docsize" in s for s in statements), statements
