"""Two words joined by a slash are no path (issue 20): "and/or", "w/o", "CI/CD" or
"TCP/IP" in a prompt was taken for a path literal that a record must hold, and no record
holds "and/or", so such a prompt recalled nothing at all. A folder typed in lower case
("src/checkout") stays a literal."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks

CLAIMS = [
    "Cache invalidation runs on every deploy.",
    "The CI pipeline runs on GitHub Actions runners.",
    "Release builds need a signed tag.",
]


@pytest.mark.parametrize(("query", "claim"), [
    ("does cache invalidation run on deploy and/or restart?", CLAIMS[0]),
    ("cache invalidation w/o a deploy?", CLAIMS[0]),
    ("which runners does the CI/CD pipeline use?", CLAIMS[1]),
])
def test_a_prompt_with_slash_joined_words_recalls_its_claim(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str, claim: str) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    project = tmp_path / "project"
    project.mkdir()
    with Waymarks(tmp_path / "home", cwd=str(project)) as app:
        ids = {app.remember(c).id: c for c in CLAIMS}  # type: ignore[union-attr]
        result = app.recall(query)
        assert not result.plan.literals
        assert [ids[i] for i in result.selected] == [claim]


@pytest.mark.parametrize(("text", "words"), [
    ("deploy and/or restart", ("c:deploy", "w:restart")),
    ("CI/CD pipeline", ("w:ci", "w:cd", "w:pipelin")),
    ("TCP/IP stack", ("w:tcp", "w:ip", "w:stack")),
    ("y/n prompt", ("w:prompt",)),
])
def test_slash_joined_words_are_words(text: str, words: tuple[str, ...]) -> None:
    found = analyze(text, query=True)
    assert found.features == words and not found.literals


@pytest.mark.parametrize(("text", "folder"), [
    ("src/checkout", "src/checkout"), ("what is in src/app?", "src/app"),
    ("docs/adr", "docs/adr"), ("Src/App holds the routes", "src/app")])
def test_a_folder_stays_a_literal(text: str, folder: str) -> None:
    assert analyze(text, query=True).literals == {"p:" + folder}
