"""Recall of questions as people type them, reviewed: a typographic apostrophe ("what’s",
"node’s"), a name at the start of a prompt ("Go version?"), Title Case, a question put in
quotes, and a dotted capital I ("İlker")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.recall.test_dropped_names import _store
from waymarks.recall.analysis import analyze, first_match
from waymarks.recall.plan import direct_plan, plan_query
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


@pytest.mark.parametrize(("query", "expected"), [
    ("Go version?", ["The Go toolchain version is 1.22."]),
    ("C# version?", []),
    ("R version?", []),
    # a function word first is no name: the question is about the version alone
    ("What version of Postgres?", ["The Postgres version is 16."]),
])
def test_a_name_first_in_the_prompt_is_asked_about(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch, query: str,
        expected: list[str]) -> None:
    """"Go version?" recalled the Postgres, Node and Python versions: the rule for names
    the analysis drops looked only after a sentence's first word."""
    store = _store(make_app, monkeypatch, (*CLAIMS, "The Go toolchain version is 1.22.",
                                           "The Python minimum version is 3.10."))
    assert _recalled(store, query) == expected


@pytest.mark.parametrize(("prompt", "names"), [
    ("Go version?", {"Go"}), ("C++ version?", {"C++"}), ("R version?", {"R"}),
    ("What version?", set()), ("Is the build green?", set()),
    ("Go ahead and fix the login bug", set()), ("A teammate asked about the build", set())])
def test_only_a_name_first_in_the_prompt_is_a_name(prompt: str, names: set[str]) -> None:
    assert direct_plan(prompt).names == names


@pytest.mark.parametrize(("prompt", "reason"), [
    ("C#?", "barrier"), ("C++", "barrier"), ("Y", "continued"), ("K thanks", "continued")])
def test_a_lone_name_first_is_a_barrier_and_a_reply_is_not(prompt: str, reason: str) -> None:
    assert plan_query(prompt, ["Which Python version?"]).reason == reason


@pytest.mark.parametrize(("query", "expected"), [
    ("What Is Our Default Branch?", ["The default branch is main."]),
    ("Update Node Version To 22", ["The Node version is 22."]),
    ("What Is The Go Version?", []),
])
def test_title_case_asks_for_no_function_word(
        stored: tuple[Waymarks, dict[str, str]], query: str, expected: list[str]) -> None:
    """Title Case made "Is", "Our" and "To" names a claim had to hold ("does not name Is
    or Our"), so nothing was recalled and the plan fell back to recent claims."""
    assert _recalled(stored, query) == expected


@pytest.mark.parametrize(("prompt", "names"), [
    ("What Is Our Default Branch?", set()), ("Update Node Version To 22", set()),
    ("Write A Test For The Login", set()), ("What Is The Go Version?", {"Go"}),
    ("what is the Go version?", {"Go"}), ("which version of C# do we use?", {"C#"}),
    ("Which ports do service A and service B listen on?", {"A", "B"}),
    # inside a sentence a capitalized stop word is a name: Title Case's rule is not its
    ("what did Will say about the database migration?", {"Will"})])
def test_a_function_word_is_never_a_name(prompt: str, names: set[str]) -> None:
    assert direct_plan(prompt).names == names


def test_a_capitalized_stop_word_inside_a_sentence_is_still_a_barrier() -> None:
    """Title Case's rule went for every prompt: "and what about Will?" after a question
    on the database migration continued that subject instead of stopping at the name."""
    plan = plan_query("and what about Will?", ["when does the database migration run?"])
    assert plan.reason == "barrier" and not plan.focus, plan


@pytest.mark.parametrize("query", [
    'A teammate asked "what port does the API server listen on?" - can you answer?',
    "A teammate asked \u201cwhat port does the API server listen on?\u201d",
    "what port does the API server listen on?"])
def test_a_question_put_in_quotes_is_the_question_asked(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    """Seed 004 sets a record's quoted question apart (a note quoting a question is no
    evidence of its answer); applied to the query, it dropped the question itself."""
    store = _store(make_app, monkeypatch, (*CLAIMS, "The API server listens on port 8080."))
    assert _recalled(store, query) == ["The API server listens on port 8080."]


def test_a_query_keeps_its_quoted_question_and_a_record_sets_it_apart() -> None:
    text = 'answer this: "what is the JWT expiry?"'
    assert analyze(text, query=True).features == ("w:jwt", "c:timeout")
    record = analyze(text)
    assert "w:jwt" not in record.features and "w:jwt" in record.quoted


@pytest.mark.parametrize("query", ["who is İlker?", "who is Ilker?", "who is ilker?",
                                   "İZMİR cluster?"])
def test_a_dotted_capital_i_does_not_split_a_word(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    """"İ".casefold() is "i" and a combining dot, which no word holds: "İlker" was the
    word "lker", and "Ilker" found nothing."""
    claim = "Deploys to the İzmir cluster need approval from İlker."
    store = _store(make_app, monkeypatch, (*CLAIMS, claim))
    assert _recalled(store, query) == [claim]
    assert analyze("İlker").features == ("w:ilker",)
    assert first_match(claim, frozenset({"w:ilker"})) == claim.index("İlker")
