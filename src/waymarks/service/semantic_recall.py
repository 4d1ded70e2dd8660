"""Hybrid recall's two jobs in the service: the query's semantic side, and embedding records.

On the prompt path (:func:`semantic_side_for`) only the *query* is embedded: the stored
records' vectors are read (or held in memory by a long-lived process) and compared, the
nearest ones the lexical side missed join the candidates, and scoring fuses the two
(:mod:`waymarks.recall.fusion`). A record without a current vector is scored lexically.

Records are embedded off the prompt path (:func:`embed_pending`): right after a memory is
written (a few records, ~40 ms each) and in bulk by ``waymarks index --semantic``
(resumable: each batch is committed, and a rerun continues with the records still
missing). Without the extra (``waymarks[semantic]``) or with ``WAYMARKS_SEMANTIC=off``,
every function here is a no-op and recall is exactly the lexical engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from waymarks.recall.fusion import Embedder, Semantic, semantic_side
from waymarks.recall.scoring import Candidate
from waymarks.semantic import cosines, load
from waymarks.store.recall_index import RecallIndex
from waymarks.store.recall_vectors import VectorStore

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: records embedded per committed batch by :func:`embed_pending`
BATCH: Final = 32
#: records embedded right after a write (the rest wait for ``waymarks index --semantic``)
AFTER_WRITE: Final = 8


@dataclass
class VectorMemo:
    """A long-lived process's copy of the visible vectors (read past a row watermark)."""

    model: str = ""
    visible: tuple[str, str | None] | None = None
    generation: int = -1
    watermark: int = 0
    ids: list[str] = field(default_factory=list)
    vectors: list[bytes] = field(default_factory=list)

    def current(self, store: VectorStore, model: str, visible: tuple[str, str | None],
                generation: int) -> tuple[list[str], list[bytes]]:
        if (model, visible, generation) != (self.model, self.visible, self.generation):
            self.model, self.visible, self.generation = model, visible, generation
            self.watermark, self.ids, self.vectors = 0, [], []
        for rowid, item_id, vector in store.vectors(model, visible, after=self.watermark):
            self.ids.append(item_id)
            self.vectors.append(vector)
            self.watermark = rowid
        return self.ids, self.vectors


def semantic_side_for(app: Waymarks, index: RecallIndex, query: str,
                      lexical: Sequence[Candidate], visible: tuple[str, str | None],
                      memo: VectorMemo | None = None,
                      ) -> tuple[list[Candidate], Semantic | None]:
    """The candidates with the records nearest in meaning added, and the query's
    similarities; ``(lexical, None)`` without an embedder or without stored vectors."""
    embedder = load()
    if embedder is None or not query.strip():
        return list(lexical), None
    store = VectorStore(index.db)
    if memo is not None:
        # a vector written after the memo read its rows (a write, then a late embed) has a
        # lower row than the watermark: start over when the count says so
        ids, vectors = memo.current(store, embedder.model, visible, index.generation())
    else:
        rows = store.vectors(embedder.model, visible)
        ids, vectors = [r[1] for r in rows], [r[2] for r in rows]
    if not ids:
        return list(lexical), None
    side, extra = semantic_side(ids, cosines(embedder.query(query), vectors),
                                [c.id for c in lexical], embedder.calibration, query=query)
    return [*lexical, *store.candidates(extra)], side


ProgressFn = Callable[[int, int], None]


def embed_pending(index: RecallIndex, embedder: Embedder | None = None,
                  limit: int | None = None, progress: ProgressFn | None = None,
                  transaction: Callable[[], AbstractContextManager[object]] | None = None,
                  ) -> int:
    """Embed records that have no current vector, in committed batches; returns how many.

    ``limit``: stop after about this many (``None``: all). ``progress(done, total)`` after
    each batch. ``transaction``: a context manager factory for each batch's write (the
    projection's), so an interrupted run keeps every finished batch."""
    embedder = embedder if embedder is not None else load()
    if embedder is None:
        return 0
    store = VectorStore(index.db)
    records, done_before = store.counts(embedder.model)
    total = records - done_before
    done = 0
    while limit is None or done < limit:
        size = BATCH if limit is None else min(BATCH, limit - done)
        todo = store.missing(embedder.model, size)
        if not todo:
            break
        vectors = embedder.passages([text for _, text in todo])
        rows = [(i, t, v) for (i, t), v in zip(todo, vectors, strict=True)]
        if transaction is not None:
            with transaction():
                store.put(embedder.model, rows)
        else:
            store.put(embedder.model, rows)
        done += len(rows)
        if progress is not None:
            progress(done, max(total, done))
    return done
