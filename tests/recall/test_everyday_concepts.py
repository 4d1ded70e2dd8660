"""The concept map is about software work (issue 20): an everyday word is no synonym of a
coding one. With "job" grouped with "career" and 工作 ("work"), a question about a career,
or "how does this function work?" in Chinese, recalled every CI job the store held; the
pets, hobbies and family groups (dog = puppy, book, trip, painting ...) named a record of
another person's store by a rare concept and injected it."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks

CLAIMS = [
    "The nightly job rebuilds the search index.",
    "The deploy job needs the staging token.",
    "Review advice: keep functions short.",
    "函数命名用小写加下划线。",
]
JOBS = {CLAIMS[0], CLAIMS[1]}


@pytest.mark.parametrize("query", ["any career advice?", "这个函数是怎么工作的？"])
def test_an_everyday_word_does_not_recall_a_ci_job(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   query: str) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    project = tmp_path / "project"
    project.mkdir()
    with Waymarks(tmp_path / "home", cwd=str(project)) as app:
        ids = {app.remember(claim).id: claim for claim in CLAIMS}  # type: ignore[union-attr]
        recalled = {ids[i] for i in app.recall(query).selected}
        assert not recalled & JOBS, recalled
        # the job is still found by its own word
        assert {ids[i] for i in app.recall("what jobs run nightly?").selected} == {CLAIMS[0]}


@pytest.mark.parametrize(("one", "other"), [
    ("job", "career"), ("job", "工作"), ("dog", "puppy"), ("trip", "travel"),
    ("family", "家人"), ("book", "书"), ("painting", "画画"), ("kids", "children"),
])
def test_everyday_words_are_words_of_their_own(one: str, other: str) -> None:
    assert analyze(one).features != analyze(other).features
    assert not any(f.startswith("c:") for f in (*analyze(one).features,
                                                 *analyze(other).features))
