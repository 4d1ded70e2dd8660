"""The file of kept vectors gives a one-shot recall its IDs where they lie.

It kept every row's item ID in a JSON list, which each read decoded into a ``str`` an ID
and mapped in a ``dict``: ~19 ms of CPU at 65k vectors (100k memories), ~10 times that at
a million, for the ~50 IDs a recall looks up. Now a read makes none of them, and any ID
(non-ASCII, a lone surrogate, a NUL, of any length) is still found and given back as it
was; a file of the first layout is stale (written anew), not damaged."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")

from waymarks.semantic import sidecar  # noqa: E402
from waymarks.semantic.matrix import VectorMatrix  # noqa: E402

DIM = 8
STAMP = [3, 1, 2]


def _matrix(ids: list[str], seed: int = 1) -> VectorMatrix:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((len(ids), DIM)).astype("<f4")
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    held = VectorMatrix(DIM)
    held.extend((10 + 3 * n, item_id, rows[n].tobytes()) for n, item_id in enumerate(ids))
    return held


def _kept(tmp_path: Path, ids: list[str]) -> tuple[VectorMatrix, VectorMatrix]:
    built = _matrix(ids)
    path = tmp_path / "waymarks.db-vectors"
    sidecar.write(path, STAMP, "m", built)
    read = sidecar.read(path, STAMP, "m", DIM)
    assert read is not None
    return built, read


def test_reading_the_file_decodes_no_id_it_does_not_give_out(tmp_path: Path) -> None:
    ids = [f"{n:08d}-1a2b-4c3d-8e9f-{n * 7919:012d}" for n in range(20_000)]
    path = tmp_path / "waymarks.db-vectors"
    sidecar.write(path, STAMP, "m", _matrix(ids))
    tracemalloc.start()
    try:
        held = sidecar.read(path, STAMP, "m", DIM)
        assert held is not None and len(held) == 20_000
        assert ids[12_345] in held and "not-an-id" not in held
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # (the list and the dict of 20,000 IDs took ~3.6 MB)
    assert peak < 400_000


def test_every_id_is_found_and_given_back_as_it_was(tmp_path: Path) -> None:
    odd = ["b", "a", "é-ü", "\udc80lone", "nul\x00", "nul", "", "z" * 300, "ab", "a\x00"]
    ids = [*odd, *(f"id-{n}" for n in range(300))]  # (past MappedIds.MANY: a dict)
    built, read = _kept(tmp_path, ids)
    assert list(read.rows()[0]) == ids
    assert read.rows()[1] == built.rows()[1]
    for item_id in ids:
        assert item_id in read
    assert "a\x00\x00" not in read and "nul\x00\x00" not in read
    query = built.rows()[2][5].tobytes()
    assert read.nearest(query, odd, 4) == built.nearest(query, odd, 4)
    retired = bytearray()
    assert read.flag(bytearray(), odd[:3]) == built.flag(retired, odd[:3])
    assert read.flags_except(ids[::2]) == built.flags_except(ids[::2])
    assert read.flags_except(odd) == built.flags_except(odd)


def test_a_file_of_the_first_layout_is_stale_not_damaged(tmp_path: Path) -> None:
    path = tmp_path / "waymarks.db-vectors"
    sidecar.write(path, STAMP, "m", _matrix(["a", "b"]))
    data = path.read_bytes()
    path.write_bytes(sidecar.FIRST_MAGIC + data[len(sidecar.MAGIC):])
    assert sidecar.read(path, STAMP, "m", DIM) is None
    path.write_bytes(b"WAYMARKS-VECTORS-9\n" + data[len(sidecar.MAGIC):])
    with pytest.raises(sidecar.Damaged):
        sidecar.read(path, STAMP, "m", DIM)
