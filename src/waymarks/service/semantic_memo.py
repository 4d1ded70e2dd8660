"""A long-lived process's copy of the stored vectors (:class:`VectorMemo`), read past a
row watermark, and the running sum of every vector of the model (hub values of a query
whose script is centred). A one-shot process reads them at once instead
(:func:`waymarks.service.semantic_recall.kept_vectors`).

The sum is kept with the projection (:meth:`VectorStore.kept_sum`): moved forward in the
transaction of each batch :func:`~waymarks.service.semantic_recall.embed_pending` writes
(:func:`advance_sum`), and summed again by ``waymarks index --semantic`` and the
background worker after they embed when it no longer holds (a new index generation, a
vector stored again below others, a damaged row dropped: :func:`keep_sum`). A long-lived
process's first query whose script is centred read every stored vector to sum them (10k:
112-137 ms of CPU, linear in the store); it now reads the kept sum and the rows past it.
The sum is made as a one-shot process makes it over its matrix, one row after another in
record order (:class:`~waymarks.semantic.matrix.Crowd`), so both give the same bits."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from typing import TYPE_CHECKING

import msgspec

from waymarks.semantic import Nearest, new_crowd, new_matrix

if TYPE_CHECKING:
    from waymarks.recall.fusion import Embedder
    from waymarks.semantic.matrix import Crowd
    from waymarks.store.recall_index import RecallIndex
    from waymarks.store.recall_vectors import VectorStore


class VectorMemo(msgspec.Struct):
    """A long-lived process's copy of the visible vectors (read past a row watermark)."""

    model: str = ""
    visible: tuple[str, str | None] | None = None
    generation: int = -1
    rewrites: int = -1
    watermark: int = 0
    held: Nearest | None = None
    #: every vector of the model summed (a query whose script is centred: :meth:`crowd_of`)
    crowd: Crowd | None = None

    def current(self, store: VectorStore, embedder: Embedder, visible: tuple[str, str | None],
                generation: int) -> Nearest:
        model = embedder.model
        rewrites = store.rewrites()  # a vector stored below what this copy read: start over
        if (self.held is None or (model, visible, generation, rewrites)
                != (self.model, self.visible, self.generation, self.rewrites)):
            if (model, generation, rewrites) != (self.model, self.generation, self.rewrites):
                self.crowd = None  # (every session's vectors: kept for another session)
            self.model, self.visible, self.generation = model, visible, generation
            self.rewrites = rewrites
            self.watermark, self.held = 0, new_matrix(embedder.dim)
        rows = store.vectors(model, visible, after=self.watermark)
        self.held.extend(rows)
        if rows:
            self.watermark = rows[-1][0]
        return self.held

    def crowd_of(self, store: VectorStore, embedder: Embedder) -> Crowd:
        """Every current vector of the model summed, as a one-shot process sums its matrix
        of them (:meth:`Nearest.crowd`), read past the last one read: hub values taken over
        the vectors this session sees made a Chinese question at the margin recall
        otherwise here than in a one-shot process. Call after :meth:`current`."""
        if self.crowd is None:  # (the sum kept with the projection, when it holds)
            self.crowd = kept_crowd(store, embedder, self.generation, self.rewrites
                                    ) or new_crowd(embedder.dim)
        self.crowd.extend(store.vectors(embedder.model, after=self.crowd.watermark))
        return self.crowd


def kept_crowd(store: VectorStore, embedder: Embedder, generation: int, rewrites: int
               ) -> Crowd | None:
    """The sum of the embedder's vectors kept with the projection, when it was kept at
    index ``generation`` and ``rewrites`` (:meth:`VectorStore.rewrites`); else ``None``."""
    from waymarks.semantic.matrix import Crowd

    kept = store.kept_sum(embedder.model)
    if kept is None:
        return None
    (at, rewritten, watermark, count), total = kept
    if (at, rewritten) != (generation, rewrites):
        return None
    return Crowd.kept(embedder.dim, total, count, watermark)


def _note(store: VectorStore, embedder: Embedder, generation: int, rewrites: int,
          crowd: Crowd) -> None:
    store.note_sum(embedder.model, (generation, rewrites, crowd.watermark, crowd.count),
                   crowd.kept_bytes())


def advance_sum(store: VectorStore, embedder: Embedder, generation: int) -> None:
    """Move the kept sum past the vectors stored since it was kept (after a batch, in its
    transaction); nothing when none holds (:func:`keep_sum` sums them all, outside it)."""
    rewrites = store.rewrites()
    crowd = kept_crowd(store, embedder, generation, rewrites)
    if crowd is None:
        return
    rows = store.vectors(embedder.model, after=crowd.watermark)
    if rows:
        crowd.extend(rows)
        _note(store, embedder, generation, rewrites, crowd)


def keep_sum(index: RecallIndex, embedder: Embedder,
             transaction: Callable[[], AbstractContextManager[object]]) -> bool:
    """Sum every current vector of the embedder and keep the sum, when the one kept does
    not hold (none, another generation, a vector stored again); whether it did. The read
    is made outside ``transaction`` (the write's), and kept only when no vector was
    stored again meanwhile: rows added past it are read past its watermark."""
    import sqlite3

    from waymarks.service.outcomes import ServiceError
    from waymarks.store.recall_vectors import VectorStore

    store = VectorStore(index.db, items_backed=index.items_backed)
    generation, rewrites = index.generation(), store.rewrites()
    if kept_crowd(store, embedder, generation, rewrites) is not None:
        return False
    crowd = new_crowd(embedder.dim)
    crowd.extend(store.vectors(embedder.model))
    if not crowd.count:
        return False
    with suppress(sqlite3.Error, OSError, ServiceError), transaction():
        if (index.generation(), store.rewrites()) == (generation, rewrites):
            _note(store, embedder, generation, rewrites, crowd)
            return True
    return False
