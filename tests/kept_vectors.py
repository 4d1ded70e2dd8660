"""The process's embedder with each text's vector kept after its first embedding, for tests
that embed the same few texts again and again (a differential test asking the same ten
queries after every step, a claim corrected 30 times among four wordings).

The engine gives a text the same bits every time (``waymarks.semantic``: with one thread or
two), so recall ranks with the vector it would have embedded; only the engine's repeated
work is saved. The engine's own tests embed afresh (the long differential runs keep vectors
too: asking the same ten queries after each of 200 steps, re-embedding them was most of
the whole suite's longest tests and tested nothing more).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from waymarks.recall.fusion import Embedder
from waymarks.service import semantic_recall


class VectorsKept:
    """An embedder answering a text it embedded before from what it kept."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.queries: dict[str, bytes] = {}
        self.passages_kept: dict[str, bytes] = {}

    def __getattr__(self, name: str) -> object:
        return getattr(self.embedder, name)

    def query(self, text: str) -> bytes:
        if text not in self.queries:
            self.queries[text] = self.embedder.query(text)
        return self.queries[text]

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        new = list(dict.fromkeys(t for t in texts if t not in self.passages_kept))
        self.passages_kept.update(zip(new, self.embedder.passages(new) if new else [],
                                      strict=True))
        return [self.passages_kept[text] for text in texts]


def keep_vectors(monkeypatch: pytest.MonkeyPatch) -> VectorsKept:
    """For this test, the service's embedder (``semantic_recall.loaded``) keeps what it
    embeds."""
    embedder = semantic_recall.loaded()
    assert embedder is not None, "the semantic extra is switched off or not installed"
    kept = VectorsKept(embedder)
    monkeypatch.setattr(semantic_recall, "loaded", lambda: kept)
    return kept
