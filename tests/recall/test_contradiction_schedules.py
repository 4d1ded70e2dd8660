"""A schedule's day of the week beside its time, and a schedule written in Chinese (pairs
tagged ``dev-s68`` of ``benchmarks/conflict_pairs.json``, beside ``heldout-fresh``'s
"starts on Friday at 16:00" / "… Thursday …" and 凌晨两点 / 凌晨四点), written through the
service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.claim_schedules import han_schedule
from waymarks.service.app import Waymarks

#: a claim | another day or time (refused) | the same schedule said otherwise (written)
SCHEDULES = """
The weekly report is sent every Tuesday at 09:00. | The weekly report is sent every \
Friday at 09:00. | The weekly report is sent on Tuesdays at 09:00.
周报每周一上午九点发送。 | 周报每周三上午九点发送。 | 周报每周一 09:00 发送。
数据库备份每天凌晨两点执行。 | 数据库备份每天凌晨四点执行。 | 数据库备份每天凌晨 2 点执行。
日志清理每天晚上十一点运行。 | 日志清理每天晚上十点运行。 | 日志清理每天 23:00 运行。
The database backup runs every day at 02:00. | 数据库备份每天凌晨四点执行。 \
| 数据库备份每天 2:00 执行。
"""


@pytest.mark.parametrize("line", SCHEDULES.strip().splitlines())
def test_another_day_or_time_of_a_schedule_contradicts_it(app: Waymarks, line: str) -> None:
    """A time in common was taken for agreement on the day ("… every Friday at 09:00."
    written beside "… every Tuesday at 09:00."), and a Chinese day or clock time in words
    was no value (每周三, 凌晨四点: written)."""
    refused_beside_first(app, line)


def test_two_things_on_the_same_day_at_one_time_are_two_facts(app: Waymarks) -> None:
    kept = _written(app, "The staging deploy runs every Monday at 08:00.").id
    assert _written(app, "The production deploy runs every Thursday at 08:00.").id != kept


@pytest.mark.parametrize(("said", "read"), [
    ("每周二上午十点发布", " every tuesday  10:00 发布"),
    ("星期日下午 3 点半开会", " on sunday  15:30 开会"),
    ("中午12点吃饭", " 12:00 吃饭"),
    ("中午1点", " 13:00 "),
    ("凌晨 12 点", " 00:00 "),
    ("晚上十一点二十分", " 23:20 "),
    ("每天 4 点", "每天 04:00 "),
    ("3 点钟", " 03:00 "),
    # no time: points counted, a count a week, the weekend
    ("有 3 点需要注意", "有 3 点需要注意"),
    ("每周五次", "每周五次"),
    ("周末不发布", "周末不发布"),
])
def test_a_chinese_schedule_reads_as_the_english_one(said: str, read: str) -> None:
    assert han_schedule(said) == read
