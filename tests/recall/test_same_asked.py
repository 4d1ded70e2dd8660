"""Two things joined, each said with the same attribute ("where is the gateway config and
the billing config?"), ask that attribute of each: a claim must name one of them and say
it. Before, "config and the billing" made billing a second ask of the gateway: two claims
naming the gateway and billing, neither saying a config, were recalled, and the billing
config was refused for not naming the gateway (found probing the name gate with clauses
joined by "and", issue 20's everyday store)."""

from __future__ import annotations

import pytest

from tests.recall.everyday_store import Everyday
from tests.recall.test_everyday_questions import _asked
from waymarks.recall.plan import direct_plan


@pytest.mark.parametrize(("question", "answers"), [
    ("where is the gateway config and the billing config?",
     ["The billing config lives in services/billing/settings.toml.",
      "The gateway config lives in gateway/envoy.yaml."]),
    ("what is the billing config and the search config?",
     ["The billing config lives in services/billing/settings.toml.",
      "The search config lives in search/conf/search.yml."]),
])
def test_each_thing_joined_is_asked_the_attribute(
        everyday: Everyday, question: str, answers: list[str]) -> None:
    assert sorted(_asked(everyday, [question])[question]) == answers


def test_the_things_are_subjects_and_the_attribute_no_ask_of_one() -> None:
    plan = direct_plan("where are the gateway config, and the billing config?")
    assert (plan.asks, plan.co_subjects) == (frozenset(), frozenset({"w:gateway", "w:bill"}))
    # a word said once after the joiner is still asked of the one subject
    assert direct_plan("which deploy host and key?").asks == frozenset({"w:host", "w:key"})
