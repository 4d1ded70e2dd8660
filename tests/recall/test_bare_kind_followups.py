"""A kind of thing named by nothing in a short question ("how do I restart the
service?"): the kind says which thing, not what is asked of it."""

from __future__ import annotations

from typing import Final

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
