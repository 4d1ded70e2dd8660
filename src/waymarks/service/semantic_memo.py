"""A long-lived process's copy of the stored vectors (:class:`VectorMemo`), read past a
row watermark, and the running sum of every vector of the model (hub values of a query
whose script is centred). A one-shot process reads them at once instead
(:func:`waymarks.service.semantic_recall.kept_vectors`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from waymarks.semantic import Nearest, new_crowd, new_matrix

if TYPE_CHECKING:
    from waymarks.recall.fusion import Embedder
    from waymarks.semantic.matrix import Crowd
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
        if self.crowd is None:
            self.crowd = new_crowd(embedder.dim)
        self.crowd.extend(store.vectors(embedder.model, after=self.crowd.watermark))
        return self.crowd
