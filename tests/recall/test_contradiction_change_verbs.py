"""A claim saying a value was changed, by a verb of change in any of its forms, is about
the same subject as the value stated plainly (``core/claim_change_verbs.py``): "Upgrade
Django to 5.0" was written beside "Bump Django to 4.2", "numpy pinned to 2.0.1" beside
"Pin numpy to 1.26", "测试环境已经升到 Node 20 了" beside "测试环境 Node 版本是 18" (the
verb a word of the subject, so the subjects differed; pairs of
``benchmarks/conflict_pairs_registers.json``).
The pairs after the first five were written after the change, in shapes the set lacks."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Bump Django to 4.2", "Upgrade Django to 5.0", True),
    ("Pin numpy to 1.26", "numpy pinned to 2.0.1", True),
    ("CI runs on CircleCI", "Switch CI from CircleCI to GitHub Actions", True),
    ("web deploy has 3 replicas", "web deploy scaled to 6 replicas", True),
    ("测试环境 Node 版本是 18", "测试环境已经升到 Node 20 了", True),
    # written after the change, shapes the set lacks
    ("The queue is RabbitMQ.", "Swap the queue from RabbitMQ to NATS", True),
    ("日志级别是 info", "日志级别调整为 debug", True),
    ("Retention window is 7 days.", "Retention window extended to 14 days.", True),
    ("数据保留 7 天", "数据保留时间延长到 30 天", True),
    # look-alikes: a change of another thing, a noun after a determiner, an adjective
    ("Redis bumped to 7.2.", "Postgres bumped to 16.", False),
    ("Upgrade the web nodes to Ubuntu 24.04", "Upgrade the db nodes to Ubuntu 22.04", False),
    ("缓存迁到 cache-2", "队列迁到 mq-2", False),
    ("The update window is 02:00.", "The maintenance window is 04:00.", False),
    ("Users number 2000.", "Migrated users number 1500.", False),
    ("CI builds with Go 1.21.", "The Go toolchain in CI is 1.22.", True),
])
def test_a_change_verb_is_no_word_of_the_subject(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)
