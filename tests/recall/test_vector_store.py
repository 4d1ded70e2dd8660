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


def embedded_and_settled(db: sqlite3.Connection) -> VectorStore:
    store = VectorStore(db, items_backed=False)
    db.execute("BEGIN")
    store.put("m1", [("a", "The port is 5434.", b"\x01" * 8),
                     ("b", "数据库端口是 5434。", b"\x02" * 8),
                     ("c", "Deploys run on Fridays.", b"\x04" * 8)])
    assert store.settle("m1") == 3
    db.execute("COMMIT")
    return store


def test_nothing_missing_is_answered_without_hashing_every_text(
        db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked on every wake and wait check, ``missing`` hashed the text of every record
    with a vector whenever fewer than a batch were missing (~55 ms of CPU at 10k records,
    benchmarks/vector_missing.py). Past the watermark there is nothing to look at."""
    from waymarks.store import recall_vectors

    store = embedded_and_settled(db)
    hashed: list[str] = []
    real = recall_vectors.text_hash
    monkeypatch.setattr(recall_vectors, "text_hash", lambda text: hashed.append(text) or real(text))
    assert store.missing("m1", 1) == [] and store.missing("m1", 32) == []
    assert hashed == []
    assert store.settle("m1") == 3 and hashed == []  # nothing moved: nothing looked at


def test_a_vector_of_another_text_below_the_watermark_is_still_missing(
        db: sqlite3.Connection) -> None:
    store = embedded_and_settled(db)
    store.put("m1", [("b", "an older text of b", b"\x05" * 8)])
    assert store.done("m1") == 1
    assert store.missing("m1", 10) == [("b", "数据库端口是 5434。")]
    assert store.settle("m1") == 1  # does not move past it
    store.put("m1", [("b", "数据库端口是 5434。", b"\x06" * 8)])
    assert store.missing("m1", 10) == [] and store.settle("m1") == 3


def test_a_text_changed_by_a_reset_of_the_index_is_still_missing(
        db: sqlite3.Connection) -> None:
    """The records' row IDs start again after a reset (a rebuild): the watermark goes
    with them, and a record whose text changed meanwhile is found, as are new ones."""
    from waymarks.store.recall_index import reset

    store = embedded_and_settled(db)
    db.execute("BEGIN")
    reset(db)
    RecallIndex(db, items_backed=False).add([
        RecordInput(id="a", text="The port is 5434."),
        RecordInput(id="b", text="数据库端口是 5435。"),  # changed
        RecordInput(id="c", text="Deploys run on Fridays."),
        RecordInput(id="d", text="A new claim.")])
    db.execute("COMMIT")
    assert store.done("m1") == 0
    assert store.missing("m1", 10) == [("d", "A new claim."), ("b", "数据库端口是 5435。")]
    assert store.settle("m1") == 1


def test_new_records_dropped_rows_and_other_models_are_still_missing(
        db: sqlite3.Connection) -> None:
    store = embedded_and_settled(db)
    RecallIndex(db, items_backed=False).add([RecordInput(id="d", text="A new claim.")])
    assert store.missing("m1", 10) == [("d", "A new claim.")]
    assert [i for i, _ in store.missing("m2", 10)] == ["a", "b", "c", "d"]
    db.execute("UPDATE recall_vectors SET checksum = checksum + 1 WHERE item_id = 'c'")
    store.vectors("m1")
    assert store.drop_damaged(store.damaged) == 1
    assert store.missing("m1", 10) == [("c", "Deploys run on Fridays."), ("d", "A new claim.")]
    store.put("m2", [("a", "The port is 5434.", b"\x07" * 8)])  # another model's vector
    assert store.settle("m2") == 1
    assert [i for i, _ in store.missing("m1", 10)] == ["a", "c", "d"]
    assert store.done("m1") == 0 and store.settle("m1") == 0


def test_a_watermark_past_the_last_record_is_damage(db: sqlite3.Connection) -> None:
    from waymarks.store.integrity import verify_all

    embedded_and_settled(db)
    assert verify_all(db) == []
    db.execute("UPDATE meta SET value = '4' WHERE name = 'vectors_done:m1'")
    assert verify_all(db) == ["a stored vectors' watermark is past the last recall record"]
    db.execute("UPDATE meta SET value = 'x' WHERE name = 'vectors_done:m1'")
    assert verify_all(db) == ["meta vectors_done:m1 is not a number"]


def test_a_vector_of_no_use_is_dropped_with_a_sound_checksum(db: sqlite3.Connection) -> None:
    """A row whose checksum is right but whose vector the query's matrix left out (not a
    unit vector of the embedder's length) is dropped when named, and its record is
    missing again; another model's row, and one replaced meanwhile by a usable vector,
    stay."""
    store = VectorStore(db, items_backed=False)
    store.put("m1", [("a", "The port is 5434.", b"\x01" * 8),
                     ("b", "数据库端口是 5434。", b"\x02" * 8)])
    store.put("m2", [("c", "Deploys run on Fridays.", b"\x01" * 8)])
    usable = {b"\x02" * 8}.__contains__
    db.execute("BEGIN")
    assert store.drop_damaged(["a", "b", "c"], "m1", usable) == 1
    db.execute("COMMIT")
    assert [i for i, _ in store.missing("m1", 10)] == ["a", "c"]
    assert [i for _, i, _ in store.vectors("m2")] == ["c"]
