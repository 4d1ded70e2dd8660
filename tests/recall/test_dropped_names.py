"""A direct question naming what the analysis cannot hold ("Go", "R", "C#") is about that
name: a record must say it. Scored on "version" alone, "what is the Go version?" recalled
the Python version first, and "which R version do we use?" both languages' claims."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from waymarks.recall.analysis import analyze
from waymarks.recall.plan import direct_plan, plan_query
from waymarks.recall.scoring import Candidate, Stats, score_all
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

CLAIMS = ("The Python version is 3.12.", "The Go toolchain version is 1.22.",
          "The C compiler is gcc 13.", "We write the parser in C#, version 12.")


def _store(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch,
           claims: tuple[str, ...]) -> tuple[Waymarks, dict[str, str]]:
    """A lexical app holding ``claims``, and their texts by ID."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = make_app()
    ids = {}
    for text in claims:
        written = app.remember(text)
        assert isinstance(written, Committed)
        ids[written.id] = text
    return app, ids


@pytest.fixture
def stored(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch
           ) -> tuple[Waymarks, dict[str, str]]:
    return _store(make_app, monkeypatch, CLAIMS)


@pytest.mark.parametrize(("query", "expected"), [
    ("what is the Go version?", ["The Go toolchain version is 1.22."]),
    ("which R version do we use?", []),
    ("what compiler do we use for R?", []),
    ("which version of C# do we use?", ["We write the parser in C#, version 12."]),
    ("what is the Python version?", ["The Python version is 3.12."])])
def test_a_name_the_analysis_drops_must_be_in_the_record(
        stored: tuple[Waymarks, dict[str, str]], query: str, expected: list[str]) -> None:
    app, ids = stored
    assert [ids[i] for i in app.recall(query).selected] == expected


@pytest.mark.parametrize("query", [
    "Who did Maria have dinner with on May 3, 2023?",
    "What J.K. Rowling quote does Tim resonate with?",
    "Would Tim enjoy reading books by C. S. Lewis?",
    "What areas of the U.S. has John been to?"])
def test_a_month_or_an_initial_is_no_name_asked_about(query: str) -> None:
    assert direct_plan(query).names == frozenset()


def test_a_follow_up_keeps_its_barrier_and_a_direct_plan_names_only_its_own() -> None:
    assert plan_query("what about Go?", ["Which Python version?"]).reason == "barrier"
    assert direct_plan("what is the Go version?").names == frozenset({"Go"})


@pytest.mark.parametrize(("claims", "query", "expected"), [
    (("Service A listens on port 8080.", "Service B listens on port 9090."),
     "Which ports do service A and service B listen on?",
     ["Service A listens on port 8080.", "Service B listens on port 9090."]),
    (("We go with the Python version 3.12 for now.", "The Rust toolchain version is 1.78."),
     "What is the Go version?", []),
    (("The Golang toolchain version is 1.22.", "The Python version is 3.12."),
     "What is the Go version?", ["The Golang toolchain version is 1.22."]),
    (("Run a linter before every push.",), "which R linter do we run?", [])])
def test_any_asked_name_counts_and_a_name_is_matched_as_people_write_it(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch,
        claims: tuple[str, ...], query: str, expected: list[str]) -> None:
    """Every asked name was required, as written: a question naming two things recalled
    nothing, and "Golang" did not count as "Go". A one-letter name, or one that is a
    common word ("we go with"), is still matched as written (the article "a" is no "A")."""
    app, ids = _store(make_app, monkeypatch, claims)
    assert sorted(ids[i] for i in app.recall(query).selected) == sorted(expected)


@pytest.mark.parametrize(("text", "eligible"), [
    ("The ingestion service is built with Golang 1.22.", True),
    ("The ingestion service is written in Go 1.22.", True),
    ("The Helm chart for the gateway is 2.4.1.", False)])
def test_a_version_after_another_spelling_of_the_name_is_its_version(
        text: str, eligible: bool) -> None:
    """"Golang 1.22" named Go (the name gate read it so) but was no version of Go: the
    versions a claim says after a name were matched to the name as written only. A claim
    that is a candidate (by meaning, with the semantic extra) is now recalled."""
    features = analyze(text).features
    record = Candidate(id="r", kind="memory", status="active", origin="", created_at=0,
                       text=text, body=frozenset(features), sequence=features,
                       body_count=len(features))
    plan = direct_plan("What is the Go version?")
    scored = score_all(plan, [record], Stats(10, {f: 1 for f in (*plan.focus, *features)}))
    assert scored[0].eligible is eligible, scored[0].reason
