"""A kind of thing named by nothing in a short question ("how do I restart the
service?"): the kind says which thing, not what is asked of it."""

from __future__ import annotations

from typing import Final

from tests.recall.test_fusion import CAL, record
from waymarks.recall.fusion import Semantic
from waymarks.recall.plan import plan_query
from waymarks.recall.scoring import Stats, score_all
from waymarks.service.app import Waymarks

CLAIMS: Final = (
    "Restart search with `docker compose restart search`.",
    "Restart billing with `systemctl restart billing-api`.",
    "Restart auth with `kubectl rollout restart deploy/auth`.",
    "The search service listens on port 7700.",
    "The billing service listens on port 8041.",
    "Billing logs go to /var/log/billing/app.log.",
    "Restart the mailer with `systemctl restart mailer`.",
    "Workers pull jobs from the jobs-default queue.",
    "The search config lives in search/conf/search.yml.",
    "The nginx config for the docs site lives in ops/nginx/docs.conf.",
)


def _recalled(app: Waymarks, history: tuple[str, ...], question: str) -> list[str]:
    texts = {app.remember(claim).id: claim for claim in CLAIMS}  # type: ignore[union-attr]
    return [texts[i] for i in app.recall(question, history).selected]


def test_a_record_matching_the_kind_alone_says_nothing_asked(app: Waymarks) -> None:
    """In a small store the kind is a rare word: "how do I restart the service?" recalled
    both services' ports, which match "service" alone, and "restart the worker" the
    workers' queue."""
    assert _recalled(app, (), "how do I restart the service?") == []
    assert app.recall("restart the worker").selected == []
    assert [app.recall(q).selected != [] for q in ("and the worker?", "the services")] == [
        True, True]


def test_the_kind_a_turn_named_is_that_thing_in_the_next_question(app: Waymarks) -> None:
    """"let's look at the search service", then "how do I restart the service?": the
    service is the search, whose restart claim never says "service" (refused: "does not
    name servic"); another thing's restart, or the billing service's port, is no answer."""
    assert _recalled(app, ("let's look at the search service",),
                     "how do I restart the service?") == [CLAIMS[0]]
    assert app.recall("where are the logs of the service?",
                      ("tell me about the billing service",)).selected == [
        app.recall("billing logs").selected[0]]


def test_a_similarity_of_the_question_alone_cannot_name_the_thing_meant() -> None:
    """With the semantic side, "how do I restart the service?" after the search service
    recalled billing's, the mailer's and auth's restart (each fairly near the question,
    which lifted the gate) and left the search's past the digest: the question's vector
    does not hold the thing the turn before named, so it cannot say a record is about it."""
    records = [record(str(at), text) for at, text in enumerate(CLAIMS)]
    stats = Stats(len(records), {f: 1 for r in records for f in r.body})
    side = Semantic({"0": 0.84, "1": 0.86, "2": 0.85, "6": 0.85}, CAL, "latin")
    plan = plan_query("how do I restart the service?", ["let's look at the search service"])
    assert [s.candidate.id for s in score_all(plan, records, stats, side) if s.eligible] == ["0"]


def test_a_generic_word_asked_of_the_thing_meant(app: Waymarks) -> None:
    """"where is the service config?" after the search service: "config" is a generic
    word, and the search's config claim, which names the thing meant, was refused as
    matching only generic words (the kind's word, which it need not say, not counted)."""
    assert _recalled(app, ("let's look at the search service",),
                     "where is the service config?") == [CLAIMS[8]]


def test_the_thing_meant_after_a_follow_up_cue(app: Waymarks) -> None:
    """"and how do I restart the service?" (a cue, "and", with a new word) after the
    search service recalled nothing: the turn before was kept only to rank by, and the
    kind was asked of every record again."""
    assert _recalled(app, ("let's look at the search service",),
                     "and how do I restart the service?") == [CLAIMS[0]]


def test_the_thing_meant_is_the_word_naming_the_kind(app: Waymarks) -> None:
    """"the search service keeps crashing", then "how do I restart the service?": the
    service is the search, named by the word before the kind; the turn's other words
    ("crashing") are no part of its name, and a restart claim need not say them."""
    assert _recalled(app, ("the search service keeps crashing",),
                     "how do I restart the service?") == [CLAIMS[0]]
