"""The item IDs of a file of kept vectors, read where they lie (:mod:`waymarks.semantic.sidecar`).

A one-shot hybrid recall looks up a few dozen IDs (its lexical candidates, the nearest
records) among every stored vector's. The file held them as one JSON list, decoded into a
``str`` each and a ``dict`` from each to its row on every recall: ~19 ms of CPU at 65k
vectors (100k memories), ten times that at a million, for ~50 lookups. Here they stay
bytes in the mapped file: each ID's UTF-8 (``surrogatepass``: any ``str`` an ID may be) at
its offset, and the rows in the order of their IDs' bytes, so a lookup is a binary search
(~20 comparisons at a million) and an ID is decoded only when it is given out. Asked for
many at once (every record a session may use: :meth:`MappedIds.positions`), the IDs are
decoded and mapped once, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

import numpy as np

#: lookups at once past which every ID is decoded and mapped (a dict), once
MANY: Final = 256


def encoded(item_id: str) -> bytes:
    return item_id.encode("utf-8", "surrogatepass")


def layout(ids: list[str]) -> tuple[Any, Any, bytes]:
    """What the file keeps of ``ids`` (in row order): each ID's end offset in the blob
    (int64), the rows in the order of their IDs' bytes (int64), and the blob."""
    raw = [encoded(item_id) for item_id in ids]
    ends = np.cumsum(np.fromiter(map(len, raw), dtype="<i8", count=len(raw)), dtype="<i8")
    order = np.asarray(sorted(range(len(raw)), key=raw.__getitem__), dtype="<i8")
    return ends, order, b"".join(raw)


class MappedIds:
    """A sequence of item IDs (a row's ID by its position) kept as :func:`layout` wrote
    them; :meth:`position` of an ID by a binary search."""

    def __init__(self, ends: Sequence[int], order: Sequence[int], blob: Any,
                 base: int = 0) -> None:
        """``ends``, ``order``: sequences of ``int`` (a ``memoryview`` cast to int64: each
        read a Python ``int``, not a NumPy scalar); the IDs' bytes are ``blob``'s from
        ``base`` on (``bytes``, or a ``mmap``: either sliced gives ``bytes``)."""
        self._ends, self._order, self._blob, self._base = ends, order, blob, base
        self._count = len(ends)
        #: the IDs looked up so far (a recall asks for its candidates several times)
        self._known: dict[str, int | None] = {}
        self._mapped: dict[str, int] | None = None

    def __len__(self) -> int:
        return self._count

    def _bytes(self, n: int) -> bytes:
        base = self._base
        return bytes(self._blob[base + (self._ends[n - 1] if n else 0):base + self._ends[n]])

    def __getitem__(self, n: int) -> str:
        if not -self._count <= n < self._count:
            raise IndexError(n)
        return self._bytes(n % self._count).decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        return (self[n] for n in range(self._count))

    def position(self, item_id: str) -> int | None:
        """The row of ``item_id``, ``None`` when it has none."""
        if self._mapped is not None:
            return self._mapped.get(item_id)
        if item_id in self._known:
            return self._known[item_id]
        key = encoded(item_id)
        ends, order, blob, base = self._ends, self._order, self._blob, self._base
        low, high = 0, self._count
        while low < high:  # (bisect_left, inline: a key function doubled a lookup's cost)
            middle = (low + high) // 2
            row = order[middle]
            if blob[base + (ends[row - 1] if row else 0):base + ends[row]] < key:
                low = middle + 1
            else:
                high = middle
        found = None
        if low < self._count:
            row = order[low]
            if blob[base + (ends[row - 1] if row else 0):base + ends[row]] == key:
                found = row
        self._known[item_id] = found
        return found

    def positions(self, ids: Iterable[str]) -> Iterator[int | None]:
        """:meth:`position` of each of ``ids`` (many: every ID mapped once, first)."""
        wanted = ids if isinstance(ids, (list, tuple, set, frozenset)) else list(ids)
        if self._mapped is None and len(wanted) > MANY:
            self._mapped = {item_id: n for n, item_id in enumerate(self)}
        return (self.position(item_id) for item_id in wanted)
