"""Cosines of one query against many stored vectors, with NumPy (part of the extra).

Vectors are bytes (L2-normalised little-endian float32); a vector of another length than
the query's (another model) gets no cosine: the caller treats it as missing.

A stored vector that is not one (another length, NaN or infinity, not of length 1: a
faulty embedder or a hand-made row whose checksum is right) is left out of
:class:`VectorMatrix`, so its record is scored lexically: one short vector first used to
set the matrix's length and shut every other vector out, and an inflated one got the best
similarity there is for any query. Its record is named in :attr:`VectorMatrix.rejected`,
for the service to drop the row and embed the record again, as it does a row that fails
its checksum (:func:`unit_vector` says which rows are still such when it drops them).

:class:`VectorMatrix` holds a store's vectors as one matrix, so a warm process compares a
query with 10k vectors in one matrix product instead of re-assembling them per query; it
returns only what scoring needs (the lexical candidates' cosines and the nearest few). Each
vector keeps its record's row ID, so that a query for claims in effect can leave the
retired records out of the nearest few (``retired``: a flag per row ID, the in-memory
recall index's) while still giving their cosines to the candidates that ask for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


def dot_all(query: bytes, vectors: Sequence[bytes]) -> list[float]:
    """``query · v`` for each ``v`` (``nan`` where the lengths differ)."""
    if not vectors:
        return []
    q = np.frombuffer(query, dtype="<f4")
    size = len(query)
    same = [i for i, v in enumerate(vectors) if len(v) == size]
    out = [float("nan")] * len(vectors)
    if same:
        matrix = np.frombuffer(b"".join(vectors[i] for i in same), dtype="<f4").reshape(
            len(same), q.shape[0])
        for i, value in zip(same, (matrix @ q).tolist(), strict=True):
            out[i] = float(value)
    return out


#: how far a vector's squared length may be from 1 (float32 rounding is ~1e-6)
NORM_TOLERANCE = 1e-3


def _unit_rows(matrix: Any) -> Any:
    """Which rows of ``matrix`` are unit vectors of finite values (a boolean per row)."""
    with np.errstate(all="ignore"):  # inf * inf, nan: found here, not warned about
        return np.abs(np.einsum("ij,ij->i", matrix, matrix) - 1.0) <= NORM_TOLERANCE


def unit_vector(vector: bytes, dim: int) -> bool:
    """Whether ``vector`` is a unit vector of ``dim`` finite float32 values, as
    :class:`VectorMatrix` keeps."""
    if len(vector) != 4 * dim:
        return False
    values = np.frombuffer(vector, dtype="<f4")
    with np.errstate(all="ignore"):  # ~7 us a row (through _unit_rows: ~22 us)
        return abs(float(values @ values) - 1.0) <= NORM_TOLERANCE


class VectorMatrix:
    """Vectors of ``dim`` values by record ID, as one float32 matrix built on first use
    after a change (vectors that are not unit vectors of ``dim`` finite values left out,
    and their record IDs added to :attr:`rejected`)."""

    def __init__(self, dim: int) -> None:
        self.size = 4 * dim
        #: records whose vectors were left out (not unit vectors), for the caller to clear
        self.rejected: list[str] = []
        self.ids: list[str] = []
        #: each vector's record row ID, in the order of :attr:`ids`
        self._rowids: list[int] = []
        self._rows: list[bytes] = []
        self._position: dict[str, int] = {}
        self._matrix: Any = None
        self._keys: Any = None  # ``_rowids`` as an array, made with the matrix

    def __len__(self) -> int:
        return len(self.ids)

    def extend(self, rows: Iterable[tuple[int, str, bytes]]) -> None:
        """Add ``(record row ID, item ID, vector)`` rows (a record already held is kept)."""
        for rowid, item_id, vector in rows:
            if item_id in self._position:
                continue  # one vector per record
            if len(vector) != self.size:  # of the embedder's length
                self.rejected.append(item_id)
                continue
            self._position[item_id] = len(self.ids)
            self.ids.append(item_id)
            self._rowids.append(rowid)
            self._rows.append(vector)
            self._matrix = None

    def _build(self) -> Any:
        """The matrix, the rows that are not unit vectors dropped for good."""
        matrix = np.frombuffer(b"".join(self._rows), dtype="<f4").reshape(len(self._rows), -1)
        good = _unit_rows(matrix)
        if not good.all():
            self.rejected += [self.ids[i] for i in np.flatnonzero(~good).tolist()]
            keep = np.flatnonzero(good).tolist()
            self.ids = [self.ids[i] for i in keep]
            self._rowids = [self._rowids[i] for i in keep]
            self._rows = [self._rows[i] for i in keep]
            self._position = {item_id: n for n, item_id in enumerate(self.ids)}
            matrix = matrix[good]
        self._keys = np.array(self._rowids, dtype=np.int64)
        return matrix

    def nearest(self, query: bytes, wanted: Iterable[str], k: int,
                retired: bytes | bytearray | None = None) -> tuple[list[str], list[float]]:
        """The cosines of the ``wanted`` records that have a vector, and of the ``k``
        nearest records (IDs and cosines, in no particular order). ``retired``: 1 at the
        row ID of each record left out of the ``k`` nearest (a row ID past its end is
        not); a ``wanted`` one still gets its cosine."""
        if not self.ids or len(query) != self.size:
            return [], []
        if self._matrix is None:
            self._matrix = self._build()
        if not self.ids:
            return [], []
        scores = self._matrix @ np.frombuffer(query, dtype="<f4")
        ranked = scores
        if retired:
            # (a copy: a view would keep the caller's bytearray from growing)
            flags = np.frombuffer(bytes(retired), dtype=np.uint8)
            keys = self._keys
            out = np.zeros(len(keys), dtype=bool)
            known = keys < len(flags)
            out[known] = flags[keys[known]] != 0
            if out.any():
                ranked = np.where(out, -np.inf, scores)
                k = min(k, len(keys) - int(out.sum()))
        k = min(k, len(self.ids))
        picked = set(np.argpartition(-ranked, k - 1)[:k].tolist()) if k > 0 else set()
        picked.update(self._position[w] for w in wanted if w in self._position)
        chosen = sorted(picked)
        return [self.ids[i] for i in chosen], [float(scores[i]) for i in chosen]
