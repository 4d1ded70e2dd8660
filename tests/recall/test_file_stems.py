"""A claim naming a file by its name holds the word it is named by (issue 20): "Release
notes live in README.md" held the literal README.md alone, so "update the readme" or
"what does the contributing guide ask for?" recalled nothing, the word never said apart
from its extension. A query keeps a file name as the literal alone (what a record must
hold, or pasted material's pointer, whose stem is a common word)."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks

CLAIMS = [
    "Release notes live in README.md under the Changes heading.",
    "CONTRIBUTING.md asks for signed commits.",
    "src/checkout/cart.py caches prices for 90 seconds.",
    "The database port is 5433.",
    "Logs rotate daily at midnight.",
    "docker-compose.yml starts the api, the worker and redis services.",
]


@pytest.mark.parametrize(("query", "claim"), [
    ("where are the readme release notes?", 0),
    ("readme", 0),
    ("what does the contributing guide ask for?", 1),
    ("how long does the cart cache prices?", 2),
    ("README.md", 0),
    ("which services does docker compose start?", 5),
])
def test_a_word_a_file_is_named_by_recalls_the_claim_naming_the_file(
        app: Waymarks, query: str, claim: int) -> None:
    ids = [app.remember(c).id for c in CLAIMS]  # type: ignore[union-attr]
    assert app.recall(query).selected == [ids[claim]]


def test_a_record_holds_the_stem_and_a_query_the_literal_alone() -> None:
    assert analyze("see README.md").features == ("f:readme.md", "w:readm")
    assert analyze("see README.md", query=True).features == ("f:readme.md",)
    assert analyze("see README.md", query=True).literals == {"f:readme.md"}
    # a pasted pointer's stem is a common word: in a query, no feature of its own
    assert "w:main" not in analyze("it fails at main.py:12", query=True).features
    # a folder's words stay out, and a stem of other than ASCII words
    assert analyze("src/checkout/cart.py").features == (
        "p:src/checkout/cart.py", "p:checkout/cart.py", "f:cart.py", "w:cart")
    assert analyze("docker-compose.yml").features == (
        "f:docker-compose.yml", "w:docker", "w:compos")
    assert analyze("PULL_REQUEST_TEMPLATE.md").features == (
        "f:pull_request_template.md", "w:pull", "w:request", "w:templat")
    assert analyze("v2-notes.md").features == ("f:v2-notes.md",)
    assert analyze("文档/设计.md").features == ("p:文档/设计.md", "f:设计.md")
