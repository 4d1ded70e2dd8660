"""A person or a team as the value of an attribute whose values are people: who is
on-call, who owns a thing, 值班人, 由 … 负责 (pairs tagged ``dev-s68`` of
``benchmarks/conflict_pairs.json``, beside ``heldout-fresh``'s "primary on-call is Chen" /
"… Laura" and 由平台组负责 / 由基础设施组负责), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks

#: a claim | another person (refused) | the same person said otherwise, or another thing
PEOPLE = """
The primary on-call this week is Priya. | The primary on-call this week is Marco. \
| The secondary on-call this week is Marco.
The payments API is owned by the platform team. | The payments API is owned by the billing \
team. | The payments docs are owned by the billing team.
本周值班人是王强。 | 本周值班人是李娜。 | 下周值班人是李娜。
监控告警由运维组负责。 | 监控告警由开发组负责。 | 日志采集由开发组负责。
The billing service is owned by Zhang Wei. | 计费服务的负责人是 Li Na。 \
| 计费服务的负责人是 Zhang Wei。
"""


@pytest.mark.parametrize("line", PEOPLE.strip().splitlines())
def test_another_person_contradicts_one(app: Waymarks, line: str) -> None:
    """A name after "on-call is", "owned by", 值班人是 or 由 … 负责 was no value (or its
    characters words of the subject): each claim another subject, both written."""
    refused_beside_first(app, line)


@pytest.mark.parametrize("claim", [
    "The payments API is owned by whoever is on call.",
    "The maintainer is on leave.",
])
def test_words_holding_a_stop_word_or_too_many_are_no_person(claim: str) -> None:
    found = signature(claim)
    assert found is None or not any(value.startswith("v:") for value in found.values)


def test_a_person_is_read_whole() -> None:
    found = signature("The search service is owned by Wang Fang.")
    assert found is not None and found.values == {"v:wang fang"}
