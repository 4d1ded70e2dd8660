"""A URL with a port is words, as one without a port is (issue 20, "bare URLs"): the
path expression took "8080/healthz" of "http://localhost:8080/healthz" for a path
literal, so the port and the path's words were no words of the claim: "what is on
localhost:8080?" and "where is the admin users page?" recalled nothing."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks

CLAIMS = [
    "Health check: http://localhost:8080/healthz returns 200.",
    "The admin UI is at http://127.0.0.1:3000/admin/users for local dev.",
    "The database port is 5433.",
    "Logs rotate daily at midnight.",
]


@pytest.mark.parametrize(("query", "claim"), [
    ("what is on localhost:8080?", 0),
    ("http://localhost:8080/healthz", 0),
    ("where is the admin users page?", 1),
])
def test_a_url_with_a_port_is_found_by_its_words(
        app: Waymarks, query: str, claim: int) -> None:
    ids = [app.remember(c).id for c in CLAIMS]  # type: ignore[union-attr]
    assert app.recall(query).selected == [ids[claim]]


def test_a_port_and_path_are_words_and_a_path_list_stays_paths() -> None:
    found = analyze("http://localhost:8080/healthz")
    assert found.features == ("w:http", "w:localhost", "w:8080", "w:healthz")
    assert not analyze("localhost:8080/healthz", query=True).literals
    # a colon before a path that starts with no port: paths as before
    assert {"p:/usr/bin", "p:/usr/local/bin"} <= set(
        analyze("PATH=/usr/bin:/usr/local/bin").features)
