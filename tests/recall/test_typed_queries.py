"""Recall of questions as people type them, reviewed: a typographic apostrophe ("what’s",
"node’s"), a name at the start of a prompt ("Go version?"), Title Case, a question put in
quotes, and a dotted capital I ("İlker")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.recall.test_dropped_names import _store
from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks

CLAIMS = ("The build takes about 12 minutes.", "The Node version is 22.",
          "The Postgres version is 16.", "The default branch is main.")


@pytest.fixture
def stored(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch
           ) -> tuple[Waymarks, dict[str, str]]:
    return _store(make_app, monkeypatch, CLAIMS)


def _recalled(stored: tuple[Waymarks, dict[str, str]], query: str) -> list[str]:
    app, ids = stored
    return [ids[i] for i in app.recall(query).selected]


@pytest.mark.parametrize("apostrophe", ["'", "\u2019", "\u2018", "\u02bc"])
def test_a_typographic_apostrophe_is_an_apostrophe(
        stored: tuple[Waymarks, dict[str, str]], apostrophe: str) -> None:
    assert _recalled(stored, f"what{apostrophe}s the build time?") == [
        "The build takes about 12 minutes."]
    assert analyze(f"what{apostrophe}s the node{apostrophe}s version?", query=True
                   ).features == ("w:node", "c:version")
