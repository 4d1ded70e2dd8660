"""A thing named by two words side by side ("the edge proxy", "the order-router", "the
report builder"): a short question asking one attribute of it needs a claim naming the
thing and saying the attribute, as it does of a thing of one word ("what port does the
mailer use?"). Two words were two names to that rule, which then did not apply: "what port
does the edge proxy use?" recalled every claim about the edge proxy, none saying a port
(found by the second held-out everyday project, benchmarks/everyday_heldout2.py, whose
words these are not)."""

from __future__ import annotations

import pytest

from waymarks.recall.plan import direct_plan
from waymarks.service.app import Waymarks

CLAIMS = (
    "The order-router listens on port 8200.",
    "Nadia Petrova owns the order-router.",
    "Start the order-router locally with `make order-router`.",
    "The edge proxy is HAProxy 2.8.",
    "The edge proxy config lives in edge/haproxy.cfg.",
    "Restart the edge proxy with `systemctl restart haproxy`.",
    "The report builder runs on Python 3.12.",
    "Run the report builder tests with `pytest tests/reports`.",
    "Kofi Mensah owns the report builder.",
    "The payments worker listens on port 8300.",
    "Run the payments worker tests with `make test-payments`.",
    "The web.api gateway times out after 30 seconds.",
)


def _recalled(app: Waymarks, question: str) -> list[str]:
    texts = {app.remember(claim).id: claim for claim in CLAIMS}  # type: ignore[union-attr]
    return [texts[i] for i in app.recall(question).selected]


@pytest.mark.parametrize("question", [
    "how do I deploy the order-router?",
    "what is the order-router timeout?",
    "how do I run the order-router tests?",
    "what port does the edge proxy use?",
    "how do I deploy the report builder?",
    "what port does the report builder use?",
])
def test_what_no_claim_says_of_a_thing_of_two_words_recalls_nothing(
        app: Waymarks, question: str) -> None:
    assert _recalled(app, question) == []


@pytest.mark.parametrize(("question", "answer"), [
    ("what port does the order-router listen on?", "The order-router listens on port 8200."),
    ("who owns the order-router?", "Nadia Petrova owns the order-router."),
    ("how do I restart the edge proxy?",
     "Restart the edge proxy with `systemctl restart haproxy`."),
    ("where is the edge proxy config?", "The edge proxy config lives in edge/haproxy.cfg."),
    ("how do I run the report builder tests?",
     "Run the report builder tests with `pytest tests/reports`."),
    ("what python version does the report builder use?", "The report builder runs on Python 3.12."),
    ("what is the web.api timeout?", "The web.api gateway times out after 30 seconds."),
    ("what port does the payments worker use?", "The payments worker listens on port 8300."),
])
def test_what_a_claim_says_of_a_thing_of_two_words_is_recalled(
        app: Waymarks, question: str, answer: str) -> None:
    assert _recalled(app, question) == [answer]


@pytest.mark.parametrize(("question", "runs"), [
    ("what is the order-router timeout?", (("w:order", "w:router", "c:timeout"),)),
    ("what port does the edge proxy use?", (("w:edg", "w:proxi"),)),
    # the verb of "does X VERB?" is no word of the name
    ("what port does billing expose?", ()),
    ("what port does the order-router listen on?", (("w:order", "w:router"),)),
    # an adverb says how, and names nothing
    ("how do I bring up every service locally?", (("w:everi", "w:servic"),)),
    ("管理后台的负责人是谁？", (("w:管理", "w:后台"),)),
])
def test_the_words_said_side_by_side(question: str, runs: tuple[tuple[str, ...], ...]) -> None:
    assert direct_plan(question).runs == runs


def test_a_verb_before_a_name_is_no_word_of_it(app: Waymarks) -> None:
    """"how do I restart search" asks a restart of search, no thing named "restart
    search": the clause's claims are both recalled (the first reading of runs lost both)."""
    claims = ("Search logs are in /var/log/search/search.log.",
              "Restart search with `docker compose restart search`.",
              "Restart billing with `systemctl restart billing-api`.")
    texts = {app.remember(claim).id: claim for claim in claims}  # type: ignore[union-attr]
    recalled = app.recall("where are the search logs and how do I restart search?").selected
    assert sorted(texts[i] for i in recalled) == [
        "Restart search with `docker compose restart search`.",
        "Search logs are in /var/log/search/search.log."]
    assert direct_plan("and how to restart the edge proxy?").runs == (("w:edg", "w:proxi"),)
    assert direct_plan("how do I restart search?").runs == ()


def test_a_possessive_is_part_of_the_name(app: Waymarks) -> None:
    """"the mailer's bounce handler" is one thing, the mailer's: a claim must name it
    whole and say the port ("The mailer's bounce handler is mailer/bounces.rb." says none,
    and was recalled: the apostrophe cut the name in two, mailer and bounce handler)."""
    claims = ("The mailer's bounce handler is mailer/bounces.rb.",
              "The mailer listens on port 2525.",
              "The bounce handler of the mailer retries every 5 minutes.")
    texts = {app.remember(claim).id: claim for claim in claims}  # type: ignore[union-attr]
    assert app.recall("what port does the mailer's bounce handler use?").selected == []
    recalled = app.recall("how often does the mailer's bounce handler retry?").selected
    assert [texts[i] for i in recalled] == [
        "The bounce handler of the mailer retries every 5 minutes."]
    assert direct_plan("what port does the mailer’s bounce handler use?").runs == (
        ("w:mailer", "w:bounc", "w:handler"),)
