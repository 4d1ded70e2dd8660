"""Recall's document frequencies come from a table kept beside the index (``recall_df``).

Before, :meth:`RecallIndex.stats` counted a term's records through ``fts5vocab``, which
walks the term's whole posting list (4-10 ms of CPU for a common word at a million claims,
each time a process first asked for it). The table must hold exactly what the vocabulary
says, however the index was written: from empty in one call, batch by batch, reset and
written again, and from an index an older schema wrote (migration 25 fills it).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from tests.store.test_migrations import database_at
from waymarks.recall.analysis import analyze
from waymarks.store import recall_index
from waymarks.store.integrity import ProjectionDamaged
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput
from waymarks.store.recall_postings import token

WORDS = "billing gateway port staging deploy cache search ttl owner alice tabs".split()


def claims(seed: int, count: int, start: int = 0) -> list[RecordInput]:
    rng = random.Random(seed)
    return [RecordInput(id=f"m{start + n}", text=" ".join(
        [*rng.sample(WORDS, rng.randint(1, 5)), f"build{rng.randint(0, 40)}",
         f"port {rng.randint(1, 9)}"])) for n in range(count)]


def vocabulary(db: sqlite3.Connection) -> list[tuple[str, int]]:
    return db.execute("SELECT term, doc FROM recall_vocab ORDER BY term").fetchall()


def frequencies(db: sqlite3.Connection) -> list[tuple[str, int]]:
    return db.execute("SELECT term, docs FROM recall_df ORDER BY term").fetchall()


def fresh_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, 0)
    return db


def test_the_counts_equal_the_vocabulary_however_the_index_was_written(
        tmp_path: Path) -> None:
    db = fresh_db(tmp_path / "w.db")
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    assert index.add(claims(1, 300)) == 300  # from empty: read from the vocabulary once
    assert frequencies(db) == vocabulary(db) and len(frequencies(db)) > 20
    db.execute("COMMIT")
    for part in range(5):  # then a few records at a time, each batch counted
        db.execute("BEGIN")
        index.add(claims(10 + part, 7, start=1000 + 10 * part))
        assert frequencies(db) == vocabulary(db)
        db.execute("COMMIT")
    assert index.add(claims(1, 300)) == 0  # already indexed: nothing counted twice
    assert frequencies(db) == vocabulary(db)
    db.execute("BEGIN")
    recall_index.reset(db)
    assert frequencies(db) == [] == vocabulary(db)
    index.add(claims(2, 50), fresh=True)
    db.execute("COMMIT")
    assert frequencies(db) == vocabulary(db) and frequencies(db)


def test_stats_read_the_counts_without_the_vocabulary(tmp_path: Path) -> None:
    db = fresh_db(tmp_path / "s.db")
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(claims(3, 200))
    db.execute("COMMIT")
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    billing, gateway = analyze("billing gateway").features
    stats = index.stats([billing, gateway, "w:nowhere-at-all"])
    db.set_trace_callback(None)
    assert statements and not any("recall_vocab" in s for s in statements)
    docs = dict(vocabulary(db))
    assert stats.records == 200
    assert stats.df == {billing: docs[token(billing)], gateway: docs[token(gateway)]}
    assert 0 < stats.df[billing] < 200


def test_migration_25_counts_an_index_written_before_it(tmp_path: Path) -> None:
    db = database_at(tmp_path / "old.db", 24)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(claims(4, 120))
    db.execute("COMMIT")
    db.execute("DROP TABLE recall_df")  # as the release of migration 24 made the index
    before = vocabulary(db)
    assert migrate(db, 2) == [25, 26]
    assert frequencies(db) == before == vocabulary(db) and before
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_a_reset_before_migration_25_needs_no_table(tmp_path: Path) -> None:
    """Migration 7 resets the recall index: on a database from before 25 the table is not
    there yet (25 makes and fills it)."""
    db = database_at(tmp_path / "v7.db", 24)
    db.execute("DROP TABLE recall_df")
    db.execute("BEGIN")
    recall_index.reset(db)
    db.execute("COMMIT")
    assert migrate(db, 2) == [25, 26] and frequencies(db) == []


def test_a_count_no_index_can_hold_is_damage_not_a_crash(tmp_path: Path) -> None:
    """A count past the records made bm25's IDF a math domain error (a traceback from
    `waymarks recall`): it is the database's damage, set aside and rebuilt."""
    db = fresh_db(tmp_path / "d.db")
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(claims(5, 40))
    db.execute("COMMIT")
    (billing,) = analyze("billing").features
    for damage in ("docs + 40", "0", "-1"):
        db.execute("BEGIN")
        db.execute(f"UPDATE recall_df SET docs = {damage} WHERE term = ?", (token(billing),))
        with pytest.raises(ProjectionDamaged, match="recall_df"):
            RecallIndex(db, items_backed=False).stats([billing])
        db.execute("ROLLBACK")
    assert 0 < RecallIndex(db, items_backed=False).stats([billing]).df[billing] <= 40
