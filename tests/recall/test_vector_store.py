"""Stored embeddings (migration 12): derived rows keyed by record, model and text.

Real SQLite with the projection's migrations; vectors are plain bytes here (no model).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput
from waymarks.store.recall_vectors import VectorStore


@pytest.fixture
def db(tmp_path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add([RecordInput(id="a", text="The port is 5434."),
               RecordInput(id="b", text="数据库端口是 5434。"),
               RecordInput(id="c", text="Deploys run on Fridays.")])
    db.execute("COMMIT")
    return db


def test_missing_vectors_are_found_and_filled_in_order(db: sqlite3.Connection) -> None:
    store = VectorStore(db, items_backed=False)
    assert store.missing("m1", 10) == [("a", "The port is 5434."), ("b", "数据库端口是 5434。"),
                                       ("c", "Deploys run on Fridays.")]
    assert store.put("m1", [("a", "The port is 5434.", b"\x00" * 8)]) == 1
    assert [i for i, _ in store.missing("m1", 10)] == ["b", "c"]
    assert store.counts("m1") == (3, 1)
    # another model's vector is stale: every record is missing for it
    assert [i for i, _ in store.missing("m2", 10)] == ["a", "b", "c"]
    assert store.counts("m2") == (3, 0)


def test_a_vector_of_another_text_is_stale_and_never_read(db: sqlite3.Connection) -> None:
    store = VectorStore(db, items_backed=False)
    store.put("m1", [("a", "an older text", b"\x01" * 8),
                     ("b", "数据库端口是 5434。", b"\x02" * 8)])
    assert [(i, v) for _, i, v in store.vectors("m1")] == [("b", b"\x02" * 8)]
    assert [i for i, _ in store.missing("m1", 10)] == ["c", "a"]
    assert store.vectors("m2") == []


def test_candidates_by_id_are_the_indexed_records(db: sqlite3.Connection) -> None:
    found = VectorStore(db, items_backed=False).candidates(["c", "unknown", "b"])
    assert sorted(c.id for c in found) == ["b", "c"]
    assert {c.id: c.text for c in found}["c"] == "Deploys run on Fridays."


def test_a_damaged_vector_row_is_left_out_and_dropped_alone(db: sqlite3.Connection) -> None:
    """A row that no longer matches its checksum raised ``ProjectionDamaged``, and the
    whole database was set aside for it: now it is left out of the read, named, and
    dropped on its own, so its record is missing a vector (embedded again) and the
    others stay."""
    store = VectorStore(db, items_backed=False)
    store.put("m1", [("a", "The port is 5434.", b"\x01" * 8),
                     ("b", "数据库端口是 5434。", b"\x02" * 8),
                     ("c", "Deploys run on Fridays.", b"\x04" * 8)])
    db.execute("UPDATE recall_vectors SET vector = ? WHERE item_id = 'a'", (b"\x03" * 8,))
    assert [i for _, i, _ in store.vectors("m1")] == ["b", "c"]
    assert store.damaged == ["a"]
    assert store.missing("m1", 10) == []  # not dropped yet: a read writes nothing
    db.execute("BEGIN")
    assert store.drop_damaged(store.damaged) == 1
    db.execute("COMMIT")
    assert store.missing("m1", 10) == [("a", "The port is 5434.")]
    assert store.counts("m1") == (3, 2)


def test_a_damaged_row_replaced_meanwhile_is_not_dropped(db: sqlite3.Connection) -> None:
    """A worker may embed the record again between the read that found the row damaged
    and the drop: the sound row it wrote stays."""
    store = VectorStore(db, items_backed=False)
    store.put("m1", [("a", "The port is 5434.", b"\x01" * 8)])
    db.execute("UPDATE recall_vectors SET checksum = checksum + 1 WHERE item_id = 'a'")
    assert store.vectors("m1") == [] and store.damaged == ["a"]
    store.put("m1", [("a", "The port is 5434.", b"\x05" * 8)])
    assert store.drop_damaged(store.damaged) == 0
    assert [v for _, _, v in store.vectors("m1")] == [b"\x05" * 8]
