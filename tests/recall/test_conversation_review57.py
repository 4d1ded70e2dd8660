"""Review 57: follow-ups as people type them. A name the analysis cannot hold stops the
subject before ("what about Go?", issue 20's barrier) when the sentence starts with a
capital, and in Chinese ("那Go呢？", "Go 呢？"): the Postgres version was recalled for
"and the version?" after it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.recall.test_dropped_names import _store
from waymarks.recall.plan import plan_query
from waymarks.service.app import Waymarks

CLAIMS = ("The Postgres port is 5432.", "The Postgres version is 16.",
          "The Go version is 1.22.", "The Python version is 3.12.")


@pytest.fixture
def stored(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch
           ) -> tuple[Waymarks, dict[str, str]]:
    return _store(make_app, monkeypatch, CLAIMS)


def _recalled(stored: tuple[Waymarks, dict[str, str]], query: str,
              history: list[str]) -> list[str]:
    app, ids = stored
    return [ids[i] for i in app.recall(query, history).selected]


@pytest.mark.parametrize(("barrier", "follow_up"), [
    ("What about Go?", "And the version?"),
    ("How about Go?", "and the version?"),
])
def test_a_capitalized_sentence_naming_go_stops_the_subject(
        stored: tuple[Waymarks, dict[str, str]], barrier: str, follow_up: str) -> None:
    """"What about Go?" was Title Case (two capitals in three words, one of them the
    sentence's own), where "Go" is no name: Postgres stayed the subject."""
    history = ["Let's look at Postgres today", barrier]
    assert plan_query(barrier, history[:1]).reason == "barrier"
    assert _recalled(stored, follow_up, history) == ["The Go version is 1.22."]


@pytest.mark.parametrize("barrier", ["那Go呢？", "Go 呢？", "Go呢？", "那 Go 呢？"])
def test_a_name_asked_about_in_chinese_stops_the_subject(
        stored: tuple[Waymarks, dict[str, str]], barrier: str) -> None:
    """Chinese is typed with no space around a name, and "X 呢？" asks about X: the name
    needed a letter and a space before it, and first in a prompt an attribute after it,
    so "那Go呢？" and "Go 呢？" continued the Postgres subject."""
    history = ["我们看看 Postgres", barrier]
    assert plan_query(barrier, history[:1]).reason == "barrier"
    assert _recalled(stored, "版本呢？", history) == ["The Go version is 1.22."]


@pytest.mark.parametrize(("prompt", "reason"), [
    ("Postgres 呢？", "direct"), ("好的呢", "continued")])
def test_only_a_name_before_ne_is_asked_about(prompt: str, reason: str) -> None:
    assert plan_query(prompt, ["我们看看 Redis"]).reason == reason


@pytest.mark.parametrize(("follow_up", "expected"), [
    ("and the port number?", "The Postgres port is 5432."),
    ("and the version number?", "The Postgres version is 16."),
    ("what port number does it use?", "The Postgres port is 5432."),
])
def test_the_attributes_number_is_the_attribute(
        stored: tuple[Waymarks, dict[str, str]], follow_up: str, expected: str) -> None:
    """"number" beside the port was a new word, so "and the port number?" was a subject of
    its own that no claim holds: nothing was recalled."""
    history = ["Let's look at Postgres today"]
    assert plan_query(follow_up, history).reason == "followup"
    assert _recalled(stored, follow_up, history) == [expected]


@pytest.mark.parametrize(("query", "history", "expected"), [
    ("Postgres 的端口号是多少？", [], "The Postgres port is 5432."),
    ("Postgres 的版本号是多少？", [], "The Postgres version is 16."),
    ("端口号呢？", ["我们看看 Postgres"], "The Postgres port is 5432."),
    ("版本号呢？", ["我们看看 Postgres"], "The Postgres version is 16."),
])
def test_port_number_and_version_number_in_chinese_are_the_concepts(
        stored: tuple[Waymarks, dict[str, str]], query: str, history: list[str],
        expected: str) -> None:
    """端口号 and 版本号 (the usual Chinese for "port" and "version") were words of their
    own, not the port and version concepts: "Postgres 的端口号是多少？" recalled the
    Postgres version first, and "端口号呢？" after Postgres recalled nothing."""
    assert _recalled(stored, query, history) == [expected]
