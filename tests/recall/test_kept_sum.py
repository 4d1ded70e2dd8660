"""The sum of every stored vector kept with the projection (hub values of a query whose
script is centred: ``waymarks.service.semantic_memo``): moved forward by each batch,
summed again when it no longer holds, and the same bits as a one-shot process's sum of
its matrix. Real SQLite with the projection's migrations; random unit vectors, no model.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")

from waymarks.semantic.matrix import Crowd, VectorMatrix  # noqa: E402
from waymarks.service.semantic_memo import (  # noqa: E402
    VectorMemo,
    advance_sum,
    keep_sum,
    kept_crowd,
)
from waymarks.store.migrations import migrate  # noqa: E402
from waymarks.store.recall_index import RecallIndex, RecordInput, reset  # noqa: E402
from waymarks.store.recall_vectors import KEPT_SUM, VectorStore  # noqa: E402

DIM = 384
TEXTS = {f"r{n}": f"Claim number {n} says something." for n in range(6)}


class _Embedder:
    model = "m1"
    dim = DIM


EMBEDDER = _Embedder()


def _unit(seed: int) -> bytes:
    row = np.random.default_rng(seed).standard_normal(DIM)
    return (row / np.linalg.norm(row)).astype("<f4").tobytes()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add([RecordInput(id=i, text=t) for i, t in TEXTS.items()])
    db.execute("COMMIT")
    yield db
    db.close()


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    yield
    db.execute("COMMIT")


def _put(db: sqlite3.Connection, ids: list[str], seed: int = 0) -> None:
    """Store vectors of ``ids`` as a batch of ``embed_pending`` does, the sum moved on."""
    store, index = VectorStore(db, items_backed=False), RecallIndex(db, items_backed=False)
    with _transaction(db):
        store.put(EMBEDDER.model, [(i, TEXTS[i], _unit(seed + n)) for n, i in enumerate(ids)])
        advance_sum(store, EMBEDDER, index.generation())  # type: ignore[arg-type]


def _kept(db: sqlite3.Connection) -> Crowd | None:
    store = VectorStore(db, items_backed=False)
    index = RecallIndex(db, items_backed=False)
    return kept_crowd(store, EMBEDDER, index.generation(), store.rewrites())  # type: ignore[arg-type]


def _matrix_sum(db: sqlite3.Connection) -> bytes:
    whole = VectorMatrix(DIM)
    whole.extend(VectorStore(db, items_backed=False).vectors(EMBEDDER.model))
    return bytes(whole.crowd().total.tobytes())


def _keep(db: sqlite3.Connection) -> bool:
    return keep_sum(RecallIndex(db, items_backed=False), EMBEDDER,  # type: ignore[arg-type]
                    lambda: _transaction(db))


def test_the_kept_sum_moves_forward_with_each_batch_as_the_matrix_sums(
        db: sqlite3.Connection) -> None:
    _put(db, ["r0", "r1", "r2"])
    assert _kept(db) is None  # (nothing kept yet: a batch does not read every row)
    assert _keep(db) and not _keep(db)  # (summed once; then it holds)
    _put(db, ["r3"], seed=10)
    _put(db, ["r4", "r5"], seed=20)
    kept = _kept(db)
    assert kept is not None and kept.count == 6
    assert kept.total.tobytes() == _matrix_sum(db)
    # a long-lived process starts from it: no stored vector is read again
    store = VectorStore(db, items_backed=False)
    reads: list[int] = []
    real = store.vectors

    def counted(*args: object, **kwargs: object) -> list[tuple[int, str, bytes]]:
        rows = real(*args, **kwargs)  # type: ignore[arg-type]
        reads.append(len(rows))
        return rows

    store.vectors = counted  # type: ignore[method-assign]
    memo = VectorMemo()
    generation = RecallIndex(db, items_backed=False).generation()
    memo.current(store, EMBEDDER, ("s", None), generation)  # type: ignore[arg-type]
    reads.clear()
    crowd = memo.crowd_of(store, EMBEDDER)  # type: ignore[arg-type]
    assert reads == [0] and crowd.total.tobytes() == _matrix_sum(db)


def test_a_vector_stored_again_a_reset_or_a_drop_has_it_summed_again(
        db: sqlite3.Connection) -> None:
    _put(db, ["r0", "r1", "r2", "r3"])
    assert _keep(db)
    _put(db, ["r1"], seed=50)  # stored again below the last: the rewrites move
    assert _kept(db) is None
    assert _keep(db) and _kept(db).total.tobytes() == _matrix_sum(db)  # type: ignore[union-attr]
    with _transaction(db):
        reset(db)  # a new index generation: the records' row IDs are new
    assert _kept(db) is None
    assert _keep(db) is False  # (no record indexed: nothing to sum)
    RecallIndex(db, items_backed=False).add(
        [RecordInput(id=i, text=t) for i, t in TEXTS.items()])
    assert _keep(db) and _kept(db).count == 4  # type: ignore[union-attr]
    db.execute("UPDATE recall_vectors SET checksum = checksum + 1 WHERE item_id = 'r2'")
    store = VectorStore(db, items_backed=False)
    store.vectors(EMBEDDER.model)
    with _transaction(db):
        assert store.drop_damaged(store.damaged) == 1
    assert store.kept_sum(EMBEDDER.model) is None
    assert _keep(db) and _kept(db).total.tobytes() == _matrix_sum(db)  # type: ignore[union-attr]


@pytest.mark.parametrize("value", ["", "1 0 3 3", "x 0 3 3 00", "0 0 3 3 zz",
                                   "0 0 3 3 " + "00" * 8 * (DIM - 1),
                                   "0 0 3 3 " + "ff" * 8 * DIM])
def test_a_kept_sum_that_is_not_one_is_summed_again(db: sqlite3.Connection,
                                                    value: str) -> None:
    _put(db, ["r0", "r1", "r2"])
    db.execute("INSERT INTO meta (name, value) VALUES (?, ?)", (KEPT_SUM + "m1", value))
    assert _kept(db) is None
    assert _keep(db) and _kept(db).total.tobytes() == _matrix_sum(db)  # type: ignore[union-attr]
