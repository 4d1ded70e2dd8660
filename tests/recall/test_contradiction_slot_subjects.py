"""A subject said with a word more or less (the typed slots of ``core/claim_slots.py``):
"The checkout cache listens on port 6380." beside "The checkout service's Redis cache
listens on port 6379." was written, the two subjects equal but for "redis", and 前端已经升级到
React 18 beside 前端使用 React 17 (升级到 read as subject words). A word more that names
another thing (an environment, a rank, a time, another component, a participle) or a
shorter subject of one word keeps two claims apart. The pairs are in the ``dev-paraphrase``
set, area ``subjects`` (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.claim_slots import slots_conflict
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The checkout service's Redis cache listens on port 6379.",
     "The checkout cache listens on port 6380."),
    ("The payments API gateway listens on port 8443.",
     "The payments gateway serves on port 9443."),
    ("The staging cluster's Kafka broker listens on 9092.",
     "The staging Kafka broker is on port 9093."),
    ("The nightly backup of the main database runs at 02:00.",
     "The main database backup runs at 3am."),
    ("前端使用 React 17。", "前端已经升级到 React 18。"),
    ("后台管理系统使用 Vue 2。", "后台管理已经升级到 Vue 3。"),
    ("The order service uses Python 3.10.", "订单服务已经升级到 Python 3.12。"),
])
def test_a_subject_with_a_word_more_is_refused(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    assert slots_conflict(first, contradicting) and slots_conflict(contradicting, first)


@pytest.mark.parametrize(("first", "second"), [
    # a component and its parent, another environment, a rank, a time, a pool, a state,
    # a subject named by one word beside its attribute ("log level", "Redis instance")
    ("The checkout service's Redis cache listens on port 6379.",
     "The checkout service listens on port 8080."),
    ("The staging Kafka broker listens on port 9092.",
     "The staging Kafka broker exporter listens on port 9308."),
    ("The database backup runs at 02:00.", "The secondary database backup runs at 04:00."),
    ("The export job runs at 01:00 UTC.",
     "The export job will run at 03:00 UTC starting next week."),
    ("The database has 200 max connections.", "The database pool has 20 max connections."),
    ("Nodes run kernel 5.15.", "Upgraded nodes run kernel 6.1."),
    ("The Redis instance listens on 6380.", "The Redis sentinel instance listens on 26379."),
    ("日志级别是 debug。", "The API log level is info."),
    ("The search cluster has 5 nodes.", "The search cluster's shard group has 3 nodes."),
])
def test_a_word_more_naming_another_thing_keeps_them_apart(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
    assert not slots_conflict(second, first) and not slots_conflict(first, second)
