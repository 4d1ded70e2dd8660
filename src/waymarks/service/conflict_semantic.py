"""The semantic similarity of two claims' masked texts (:mod:`waymarks.core.claim_masked`),
from the optional embedder (``waymarks[semantic]``): the cosine of their query vectors.
The core decides with it where a caller passes it (:class:`~waymarks.core.decision_types.
WriteContext` ``similar``); the write path does not: measured on the ``dev-masked`` pairs
(``benchmarks/conflicts.py --semantic``), it catches no pair the lexical overlap misses,
and each claim it is asked about costs an embedding (docs/conflicts.md)."""

from __future__ import annotations

from collections.abc import Callable

from waymarks.recall.fusion import Embedder


def similarity(embedder: Embedder) -> Callable[[str, str], float]:
    """The cosine of two texts' vectors (the embedder keeps its latest queries' vectors:
    a text asked again costs no embedding)."""
    from waymarks.semantic import cosines

    def similar(one: str, other: str) -> float:
        return cosines(embedder.query(one), [embedder.query(other)])[0]

    return similar
