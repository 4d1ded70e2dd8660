"""A question of one name and a concept of software work ("how does the mailer deploy?")
asks that concept of the thing named: a claim must name the thing and say the concept, as
a short question of a name and an attribute needs both (issue 20's everyday store,
:mod:`tests.recall.everyday_store`). Without it, the mailer's deploy recalled the release
tags, the production approvals and the payments restart, and "how do I run the payments
tests?" the analytics tests and the nightly integration tests ("run", a generic word,
counted as a second name)."""

from __future__ import annotations

import pytest

from tests.recall.everyday_store import CLAIMS, Everyday
from tests.recall.test_everyday_questions import _asked
from waymarks.recall.analysis import fold
from waymarks.recall.asked_action import action_asked
from waymarks.service.app import Waymarks


def _store(app: Waymarks, claims: tuple[str, ...]) -> dict[str, str]:
    """Each of ``claims`` remembered, by its ID."""
    return {app.remember(text).id: text for text in claims}  # type: ignore[union-attr]


@pytest.mark.parametrize("question", [
    "how does the mailer deploy?",
    "how do I deploy the mailer?",
    "how does the scheduler deploy?",
])
def test_a_name_and_a_concept_no_claim_says_together_recall_nothing(
        everyday: Everyday, question: str) -> None:
    assert _asked(everyday, [question]) == {question: []}


def test_a_generic_verb_is_no_second_name(everyday: Everyday) -> None:
    """"run" names nothing: the payments' tests are asked, and another service's tests or
    the nightly integration tests are no answer (whatever names payments may still be)."""
    question = "how do I run the payments tests?"
    recalled = _asked(everyday, [question])[question]
    assert [text for text in recalled if "ayments" not in text] == []


@pytest.mark.parametrize(("question", "answer"), [
    ("how does billing deploy?", "Billing deploys through"),
    ("how does search deploy?", "Search deploys every Tuesday"),
    ("how do I run the auth tests?", "Run the auth tests"),
    ("how do I run the inventory tests?", "Run the inventory tests"),
    ("where are the billing logs?", "Billing logs go to"),
    # a word the store never saw names nothing a claim could say ("often")
    ("how often are dependencies updated?", "Renovate"),
])
def test_the_name_and_the_concept_said_together_answer(everyday: Everyday, question: str,
                                                        answer: str) -> None:
    recalled = _asked(everyday, [question])[question]
    assert recalled and all(answer in text for text in recalled), recalled


def test_the_gate_holds_in_a_store_of_other_words(app: Waymarks) -> None:
    """Not the everyday store's words: a Rust service's build is no answer to its deploy,
    nor the API's deploy to the worker's."""
    ids = _store(app, (
        "Deploy the API with `kamal deploy`.",
        "The ingest service is written in Rust and listens on port 7000.",
        "Ingest logs go to CloudWatch under /tally/ingest.",
        "The web app deploys automatically when main is merged."))
    assert app.recall("how does ingest deploy?").selected == []
    assert [ids[i] for i in app.recall("how does the web app deploy?").selected] == [
        "The web app deploys automatically when main is merged."]
    assert len(CLAIMS) > len(ids)  # (the everyday store is not used here)


def test_a_path_in_code_is_found_by_the_path_and_its_words_outside_the_code(
        everyday: Everyday) -> None:
    """The `deploy/auth` of a command is held as the path alone (no "deploy" of auth), and
    still found by it; the claim's words outside the code find it too."""
    for question in ("how do I restart deploy/auth?", "how do I restart auth?"):
        recalled = _asked(everyday, [question])[question]
        assert recalled == ["Restart auth with `kubectl rollout restart deploy/auth`."], recalled


@pytest.mark.parametrize("question", [
    "how do I reindex billing?",  # "Reindex search with …": rare, the verb alone was enough
    "how do I reindex the billing service?",  # the billing service's port, owner, route
    "how can we reindex billing?",
    "how to reindex billing?",
])
def test_the_verb_asked_how_to_do_is_asked_of_the_thing_named(everyday: Everyday,
                                                              question: str) -> None:
    assert _asked(everyday, [question]) == {question: []}


def test_a_rare_verb_does_not_answer_for_another_thing(app: Waymarks) -> None:
    """"how do I restart ingest?" in a store where one claim restarts (the workers) and
    six name ingest: the rare verb outweighed the name and recalled the workers' restart."""
    ids = _store(app, (
        "Restart the workers with `systemctl restart sidekiq`.",
        "The ingest service is written in Rust and listens on port 7000.",
        "Ingest logs go to CloudWatch under /tally/ingest.",
        "Build ingest with `cargo build`.",
        "Run the ingest tests with `cargo test -p ingest`.",
        "Yuki Tanaka owns the ingest service."))
    assert app.recall("how do I restart ingest?").selected == []
    assert [ids[i] for i in app.recall("how do I restart the workers?").selected] == [
        "Restart the workers with `systemctl restart sidekiq`."]
    assert [ids[i] for i in app.recall("how do I build ingest?").selected] == [
        "Build ingest with `cargo build`."]


@pytest.mark.parametrize(("question", "verb"), [
    ("how do I reindex billing?", "w:reindex"),
    ("How can we restart the mailer?", "w:restart"),
    ("and how to deploy it?", "c:deploy"),
    ("how should I test inventory?", "c:test"),
    ("how does the mailer deploy?", None),  # the thing does it: no one is asked how to
    ("how long do sessions last?", None),
    ("how do I get the logs?", None),  # a stop word holds no feature
])
def test_the_verb_of_a_how_to_question(question: str, verb: str | None) -> None:
    assert action_asked(fold(question)) == verb  # (it reads the folded question)


def test_a_clause_asking_only_the_thing_named_needs_no_attribute(app: Waymarks) -> None:
    """"what runs the staging database and on which port?" asks two things: what runs it
    (a claim naming the staging database answers that) and its port. Once "run" named
    nothing, the question read as the staging database's port alone, and the claim of what
    runs it, which says no port, was refused (test_learning_cli's learned claim)."""
    question = "what runs the staging database and on which port?"
    texts = _store(app, ("The staging database runs Postgres 16.",
                         "The staging database port is 5433.",
                         "The billing database runs MySQL 8."))
    recalled = [texts[i] for i in app.recall(question).selected]
    assert "The staging database runs Postgres 16." in recalled
    assert "The staging database port is 5433." in recalled
    assert "The billing database runs MySQL 8." not in recalled


def test_a_question_asking_which_thing_needs_no_concept_said(app: Waymarks) -> None:
    """"Which continuous integration service runs our builds?" asks which service: a claim
    naming it is not refused for saying no "build" (the real Pi learning test's learned
    claim, whose search terms name continuous integration, was refused so; other gates
    still weigh it)."""
    question = "Which continuous integration service runs our builds?"
    texts = _store(app, ("Our continuous integration service is Buildkite.",))
    reasons = [s.reason for s in app.recall(question).scored if s.candidate.id in texts]
    assert reasons and not any("says nothing about build" in r for r in reasons), reasons
