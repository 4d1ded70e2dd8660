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

A cosine does not depend on where its vector sits in the matrix (:func:`exact_cosines`).
The float32 matrix-vector product sums a row in an order that depends on its position (the
BLAS kernel takes rows in blocks): two records of the same text got cosines one float32
rounding apart in a one-shot process, whose matrix holds the records in effect, and equal
in a long-lived one, whose matrix holds every record, so their order differed between the
two recall paths. The product only chooses; what is returned is summed again in float64.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np

from waymarks.semantic.mapped_ids import MappedIds


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
        for i, value in zip(same, exact_cosines(matrix, q), strict=True):
            out[i] = value
    return out


#: more than a float32 product's cosine can be from its exact value (384 products of unit
#: vectors, each sum rounded to ~6e-8: at most ~2.3e-5)
ROUNDING: Final = 1e-4


def exact_cosines(rows: Any, query: Any) -> list[float]:
    """``row · query`` for each float32 row, the same for the same row wherever it sits:
    the products are exact in float64 (24-bit mantissas) and each row is summed on its own
    in one order (NumPy's pairwise sum along the row), not by a BLAS kernel whose order
    depends on the row's position."""
    wide = np.asarray(rows, dtype=np.float64) * np.asarray(query, dtype=np.float64)
    return [float(value) for value in wide.sum(axis=1).tolist()]


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
        #: the IDs as a file keeps them (:meth:`of`), looked up where they lie
        self._mapped: MappedIds | None = None
        self._matrix: Any = None
        self._keys: Any = None  # ``_rowids`` as an array, made with the matrix
        #: the last query's product: (query, the matrix it was taken of, the scores)
        self._scores: tuple[bytes, Any, Any] | None = None
        #: each row's :meth:`hubs` value by the product: (the matrix, the crowd's total,
        #: the values)
        self._hubs: tuple[Any, Any, Any] | None = None
        #: every row summed (:meth:`crowd`): (the matrix, the crowd)
        self._crowd: tuple[Any, Crowd] | None = None

    @classmethod
    def of(cls, dim: int, ids: MappedIds, rowids: Any, rows: Any) -> VectorMatrix:
        """A matrix already built (:meth:`rows` of another, kept in a file): ``ids``, their
        record row IDs and their unit vectors, one row each. It cannot be extended."""
        held = cls(dim)
        held.ids, held._rowids, held._mapped = ids, [], ids  # type: ignore[assignment]
        held._matrix, held._keys = rows, np.asarray(rowids, dtype=np.int64)
        return held

    def _find(self, item_id: str) -> int | None:
        """The row of ``item_id``, ``None`` when it has none."""
        if self._mapped is not None:
            return self._mapped.position(item_id)
        return self._position.get(item_id)

    def _found(self, ids: Iterable[str]) -> list[int]:
        """The rows of those of ``ids`` that have one."""
        rows = self._mapped.positions(ids) if self._mapped is not None else map(
            self._position.get, ids)
        return [n for n in rows if n is not None]

    def rows(self) -> tuple[list[str], list[int], Any]:
        """The item IDs, record row IDs and vectors (a float32 matrix) of the rows kept:
        the matrix is built first (the vectors that are not unit vectors named in
        :attr:`rejected`)."""
        if self._matrix is None:
            self._matrix = self._build()
        return list(self.ids), self._keys.tolist(), self._matrix

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, item_id: object) -> bool:
        """Whether the record ``item_id`` has a row here (once built: a unit vector)."""
        if self._matrix is None and self.ids:
            self._matrix = self._build()
        return isinstance(item_id, str) and self._find(item_id) is not None

    def extend(self, rows: Iterable[tuple[int, str, bytes]]) -> None:
        """Add ``(record row ID, item ID, vector)`` rows (a record already held is kept)."""
        if self._mapped is not None:
            raise TypeError("a matrix made by VectorMatrix.of cannot be extended")
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
            self._matrix = self._scores = None

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

    def _out(self, retired: bytes | bytearray) -> Any:
        """A flag per row: whether ``retired`` flags its record row ID (one past its end
        is not)."""
        # (a copy: a view would keep the caller's bytearray from growing)
        flags = np.frombuffer(bytes(retired), dtype=np.uint8)
        keys = self._keys
        out = np.zeros(len(keys), dtype=bool)
        known = keys < len(flags)
        out[known] = flags[keys[known]] != 0
        return out

    def flags_except(self, ids: Iterable[str]) -> bytearray:
        """:meth:`nearest`'s ``retired`` leaving out every record but ``ids``: a flag at
        each row ID this matrix holds (the ones it was given, wherever it was built)."""
        if self._matrix is None and self.ids:
            self._matrix = self._build()
        keys = self._keys.tolist() if self.ids else []
        flags = bytearray(b"\x01") * (max(keys, default=-1) + 1)
        for n in self._found(ids):
            flags[keys[n]] = 0
        return flags

    def flag(self, retired: bytearray, ids: Iterable[str]) -> bytearray:
        """``retired`` (:meth:`nearest`'s) with the rows of ``ids`` this matrix holds
        flagged too, grown as far as their row IDs (in place)."""
        if self._matrix is None and self.ids:
            self._matrix = self._build()
        for n in self._found(ids):
            key = int(self._keys[n])
            if key >= len(retired):
                retired.extend(bytes(key + 1 - len(retired)))
            retired[key] = 1
        return retired

    def shown(self, retired: bytes | bytearray) -> int:
        """How many rows ``retired`` leaves among the nearest (:meth:`nearest`)."""
        if not self.ids:
            return 0
        if self._matrix is None:
            self._matrix = self._build()
        return len(self.ids) - int(self._out(retired).sum())

    def crowd(self) -> Crowd:
        """Every row held, summed (:class:`Crowd`), made once per matrix: a one-shot
        process holds every stored vector of its model."""
        if self._matrix is None and self.ids:
            self._matrix = self._build()
        held = self._crowd
        if held is None or held[0] is not self._matrix:
            crowd = Crowd(self.size // 4)
            if self.ids:
                crowd.add(self._matrix)
            held = self._crowd = (self._matrix, crowd)
        return held[1]

    def _hub_values(self, crowd: Crowd) -> Any:
        """Each row's :meth:`hubs` value by the float32 product (only to choose), made
        once per matrix and crowd."""
        held = self._hubs
        if held is None or held[0] is not self._matrix or held[1] is not crowd.total:
            total = crowd.total.astype(np.float32)
            values = ((self._matrix @ total).astype(np.float64) - 1.0) / crowd.others
            held = self._hubs = (self._matrix, crowd.total, values)
        return held[2]

    def hubs(self, ids: Iterable[str], crowd: Crowd) -> list[float]:
        """Each of ``ids``' (rows of :meth:`nearest`'s answer) mean cosine with every other
        vector of ``crowd``: how near it sits to the store as a whole, its *hubness* (a
        record near every other is near every query too). Summed as
        :func:`exact_cosines` sums, so a row gives the same value in any matrix holding
        it: a long-lived process's (the vectors its session sees) as a one-shot one's
        (every vector)."""
        if not self.ids:
            return []
        if self._matrix is None:
            self._matrix = self._build()
        return crowd.values(self._matrix[self._found(ids)])

    def nearest(self, query: bytes, wanted: Iterable[str], k: int,
                retired: bytes | bytearray | None = None, centred: int = 0,
                crowd: Crowd | None = None) -> tuple[list[str], list[float]]:
        """The cosines of the ``wanted`` records that have a vector, and of the ``k``
        nearest records (IDs and cosines, in no particular order). ``retired``: 1 at the
        row ID of each record left out of the ``k`` nearest (a row ID past its end is
        not); a ``wanted`` one still gets its cosine. ``centred``: also the ``centred``
        nearest by the cosine less the record's :meth:`hubs` value in ``crowd``, so that
        a caller comparing those finds the first of them."""
        if not self.ids or len(query) != self.size:
            return [], []
        if self._matrix is None:
            self._matrix = self._build()
        if not self.ids:
            return [], []
        query_row = np.frombuffer(query, dtype="<f4")
        last = self._scores
        if last is not None and last[1] is self._matrix and last[0] == query:
            scores = last[2]  # (asked again, with more rows left out: the same product)
        else:
            scores = self._matrix @ query_row  # (only to choose: see exact_cosines)
            self._scores = (query, self._matrix, scores)
        ranked = scores
        if retired:
            out = self._out(retired)
            if out.any():
                ranked = np.where(out, -np.inf, scores)
                k = min(k, len(out) - int(out.sum()))
        k = min(k, len(self.ids))
        near = _near(ranked, k) if k > 0 else []
        hubs = self._hub_values(crowd) if centred and k > 0 and crowd is not None else None
        apart = [] if hubs is None else _near(ranked - hubs, min(centred, k))
        asked = set(self._found(wanted))
        chosen = sorted({*near, *apart, *asked})
        exact = dict(zip(chosen, exact_cosines(self._matrix[chosen], query_row), strict=True))
        if len(near) > k or len(apart) > centred:  # the lower ID first among equals
            kept = {*sorted(near, key=lambda i: (-exact[i], self.ids[i]))[:k], *asked}
            if apart and crowd is not None:  # (by the values summed as hubs() sums them)
                hub = dict(zip(apart, crowd.values(self._matrix[apart]), strict=True))
                kept.update(sorted(apart, key=lambda i: (hub[i] - exact[i], self.ids[i])
                                   )[:centred])
            chosen = [i for i in chosen if i in kept]
        return [self.ids[i] for i in chosen], [exact[i] for i in chosen]


class Crowd:
    """Every stored vector of a model, summed in float64 row by row in record order, and
    how many: what a record's hub value (:meth:`VectorMatrix.hubs`) is its mean cosine
    with. One definition on both recall paths: a one-shot process sums the matrix of every
    vector it holds (:meth:`VectorMatrix.crowd`); a long-lived one, whose matrix holds only
    the vectors its session sees, reads every vector past its last read and adds them
    (:meth:`extend`). A float64 sum over the rows (axis 0) adds one row after another, so
    the two totals are the same bits, and so are the values."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.total: Any = np.zeros(dim, dtype=np.float64)
        self.count = 0
        #: the last record row ID read (:meth:`extend`)
        self.watermark = 0

    @classmethod
    def kept(cls, dim: int, total: bytes, count: int, watermark: int) -> Crowd | None:
        """A crowd kept as its float64 total's bytes (:attr:`total`), ``count`` rows up to
        record row ID ``watermark``; ``None`` when those are no such total (another
        length, a value not finite)."""
        if len(total) != 8 * dim or count < 1:
            return None
        values = np.frombuffer(total, dtype="<f8").astype(np.float64)
        if not np.isfinite(values).all():
            return None
        crowd = cls(dim)
        crowd.total, crowd.count, crowd.watermark = values, count, watermark
        return crowd

    def kept_bytes(self) -> bytes:
        """:attr:`total` as :meth:`kept` takes it."""
        return np.asarray(self.total, dtype="<f8").tobytes()

    @property
    def others(self) -> int:
        """How many vectors a record's mean is taken over (its own left out)."""
        return max(1, self.count - 1)

    def add(self, rows: Any) -> None:
        """Add a float32 matrix's rows (unit vectors), after those added before."""
        if not len(rows):
            return
        if self.count:  # (after the total: a few rows read since)
            self.total = np.concatenate((self.total[None], rows.astype(np.float64))
                                        ).sum(axis=0)
        else:  # (as 0.0 + the first row: without a float64 copy of every row)
            self.total = rows.sum(axis=0, dtype=np.float64)
        self.count += len(rows)

    def extend(self, rows: Sequence[tuple[int, str, bytes]]) -> None:
        """Add ``(record row ID, item ID, vector)`` rows read past :attr:`watermark`, the
        ones a :class:`VectorMatrix` keeps (unit vectors of the length)."""
        if not rows:
            return
        self.watermark = rows[-1][0]
        size = 4 * self.dim
        fit = [vector for _, _, vector in rows if len(vector) == size]
        if fit:
            matrix = np.frombuffer(b"".join(fit), dtype="<f4").reshape(len(fit), -1)
            self.add(matrix[_unit_rows(matrix)])

    def values(self, rows: Any) -> list[float]:
        """Each float32 row's mean cosine with the others (a row's cosine with itself
        taken as 1), summed as :func:`exact_cosines` sums."""
        if not len(rows):
            return []
        return [(value - 1.0) / self.others for value in exact_cosines(rows, self.total)]


#: rows taken past the k nearest by the product, so that those as near as the k-th (within
#: its rounding) are usually among them without comparing every row with it
_SPARE: Final = 8


def _near(ranked: Any, k: int) -> list[int]:
    """The rows that may be among the ``k`` nearest once summed exactly: the product's
    ``k`` nearest and every row within twice its rounding of the ``k``-th (the lower ID
    is then taken first among equals: the same text in two scopes)."""
    size = len(ranked)
    taken = min(size, k + _SPARE)
    top = np.argpartition(ranked, size - taken)[size - taken:]
    values = ranked[top]
    low = np.partition(values, taken - k)[taken - k] - 2 * ROUNDING
    if taken < size and values.min() >= low:  # rows past these may be as near
        return np.flatnonzero(ranked >= low).tolist()
    return top[values >= low].tolist()  # type: ignore[no-any-return]
