"""A Chinese count's verbs (有 and 分成 before "N 个"): "搜索集群有 6 个分片。" is about the
search cluster's shards, as "搜索集群没有分片。" is (held-out pairs of
``benchmarks/conflict_pairs.json``, tags ``heldout-rr``, ``heldout-s66`` and
``heldout-s67``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks

#: a claim | another count of it | another attribute (written beside it)
COUNTS = """
搜索集群没有分片。 | 搜索集群有 6 个分片。 | 搜索集群有一个按时间的索引。
用户表没有分片。 | 用户表有 8 个分片。 | 用户表有 3 个索引。
订单明细表没有分片。 | 订单明细表分成 8 个分片。 | 订单明细表保留 90 天。
"""


@pytest.mark.parametrize("line", COUNTS.strip().splitlines())
def test_a_count_after_its_verb_is_the_subjects(app: Waymarks, line: str) -> None:
    """有 was a subject character ("有 6 个分片": another subject than "没有分片"), and
    分成 two (the claim had too many subject terms to have a signature)."""
    refused_beside_first(app, line)


def test_the_count_verbs_are_no_subject_words() -> None:
    has, split = signature("搜索集群有 6 个分片。"), signature("订单明细表分成 8 个分片。")
    assert has is not None and "有" not in has.subject
    assert split is not None and not {"分", "成"} & split.subject
