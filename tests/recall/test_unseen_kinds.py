"""A word saying what kind of thing the subject is ("the healthz endpoint", "the billing
service") that no record holds is no word of the store's to demand (issue 20, "healthz
endpoint"): unseen, it weighed the most of the query, so the one record naming the
subject ("healthz") matched a single word beside one the store does not know and was
refused, and its coverage was under the bar. Such a word leaves the plan once the store
is known; a subject word the store does not know still refuses a lone match."""

from __future__ import annotations

import pytest

from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats
from waymarks.service.app import Waymarks

CLAIMS = [
    "Health check: http://localhost:8080/healthz returns 200.",
    "The billing exporter retries three times before paging.",
    "The database port is 5433.",
    "Logs rotate daily at midnight.",
    "Restart the API with make restart after changing .env.",
]


@pytest.mark.parametrize(("query", "claim"), [
    ("where is the healthz endpoint?", 0),
    ("healthz endpoint", 0),
    ("what does the exporter service do?", 1),
])
def test_a_kind_the_store_never_saw_does_not_hide_the_subject(
        app: Waymarks, query: str, claim: int) -> None:
    ids = [app.remember(c).id for c in CLAIMS]  # type: ignore[union-attr]
    result = app.recall(query)
    assert result.selected == [ids[claim]]
    assert "w:endpoint" not in result.plan.focus and "w:servic" not in result.plan.focus


@pytest.mark.parametrize("query", [
    "where is the healthz dashboard?",  # an unknown subject word: a lone match stays out
    "which endpoint serves metrics?",  # the kind alone names nothing to match
    # the kind is the subject itself, no word of the store's naming it: the database's
    # port and the API's restart are not the queue's nor the worker's
    "what port does the queue use?",
    "how do I restart the worker?",
    "when did the worker restart?",
])
def test_an_unknown_subject_still_refuses_a_lone_match(app: Waymarks, query: str) -> None:
    for claim in CLAIMS:
        app.remember(claim)
    assert app.recall(query).selected == []


def test_a_kind_the_store_holds_stays_and_a_plan_without_one_is_unchanged() -> None:
    from waymarks.recall.subject import settle

    plan = direct_plan("where is the healthz endpoint?")
    assert settle(plan, Stats(10, {"w:healthz": 1})).focus == ("w:healthz",)
    assert settle(plan, Stats(10, {"w:healthz": 1, "w:endpoint": 2})).focus == plan.focus
    # nothing the store knows beside it: the kind is kept (no record matches either way)
    assert settle(plan, Stats(10, {})).focus == plan.focus
    other = direct_plan("what does healthz return?")
    assert settle(other, Stats(10, {"w:healthz": 1})) is other
