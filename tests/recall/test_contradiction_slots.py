"""Another value said in other words (issue 20 item 4, the typed slots of
``core/claim_slots.py``), written through the service (real session files, real SQLite):
"Nightly export starts at 3am UTC." beside "The nightly export runs at 01:00 UTC." was
written, the two subjects differing by a verb and 3am read as no value. The pairs are in
the ``dev-paraphrase`` set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.claim_slots import normalized, slots_conflict
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The nightly export runs at 01:00 UTC.", "Nightly export starts at 1am UTC.",
     "Nightly export starts at 3am UTC."),
    ("Uploads are capped at 25 MB.", "Max upload size: 25 MB.",
     "Max upload size: 100 MB."),
    ("Session tokens expire after 15 minutes.", "Session tokens expire after 900 seconds.",
     "The session token lifetime is 1 hour."),
    ("The canary gets 5% of traffic.", "The canary gets 5 percent of traffic.",
     "Canary traffic share is 10%."),
    ("The API gateway is deployed in us-east-1.", "API gateway region: us-east-1.",
     "API gateway region: eu-west-1."),
    ("日志保留 30 天。", "日志保存 30 天。", "日志保存 90 天。"),
    ("每晚的导出任务在凌晨 1 点运行。", "夜间导出任务 01:00 开始。", "夜间导出任务 03:00 开始。"),
    ("The orders service listens on port 8080.", "订单服务端口是 8080。", "订单服务端口是 8081。"),
])
def test_another_value_in_other_words_is_refused(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    # another subject, another environment, a second attribute of one kind, a bound
    # beside a plain value, two values of a kind, the thing counted
    ("The billing API listens on port 8085.", "The admin API listens on port 8086."),
    ("The staging API listens on port 8080.", "The production API listens on port 8081."),
    ("The billing API serves HTTP on 8080 and metrics on 9090.",
     "Billing API metrics port: 9090."),
    ("The job queue holds up to 500 jobs.", "The job queue currently holds 120 jobs."),
    ("The service runs on Python 3.11.", "The service supports Python 3.10 to 3.12."),
    ("The payments worker runs 4 replicas.", "The payments worker uses 8 threads."),
    ("The health check interval is 10s.", "The health check timeout is 5s."),
    ("The job timeout is 30 minutes.", "The task timeout is 5 minutes."),
    ("Redis is at 10.0.0.7.", "Redis is version 7.2."),
    ("The export starts at 01:00.", "The export ends at 02:00."),
    ("订单服务监听 8080 端口。", "库存服务监听 8081 端口。"),
    ("会话令牌 15 分钟后过期。", "刷新令牌 30 天后过期。"),
])
def test_a_look_alike_is_another_fact(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
    assert not slots_conflict(second, first)


@pytest.mark.parametrize(("typed", "read"), [
    ("starts at 3am", "starts at 03:00"),
    ("at 11:30pm.", "at 23:30."),
    ("begins at 12am", "begins at 00:00"),
    ("retained for one year", "retained for 365 days"),
    ("kept 6 months", "kept 180 days"),
    ("Redis memory: 4 GiB.", "Redis memory: 4 GB."),
    ("凌晨 2 点", "02:00"),
    ("晚上 8 点半", "20:30"),
    ("审计日志的保存期限为 365 天。", "审计日志的保留为 365 天。"),
])
def test_values_and_words_are_written_one_way(typed: str, read: str) -> None:
    assert normalized(typed) == read


@pytest.mark.parametrize(("first", "second"), [
    ("服务监听 8080 端口。", "The build uses port 9001."),
    ("The database is at 10.0.0.5.", "The database host is db1.internal."),
])
def test_an_attribute_of_no_thing_or_an_address_beside_a_name_compares_nothing(
        first: str, second: str) -> None:
    """A subject of an attribute word alone names no thing; an IP address and a host name
    may both be true of one machine."""
    assert not slots_conflict(first, second)
    assert slots_conflict("The billing API listens on port 8085.", "Billing API: port 8086.")


@pytest.mark.parametrize(("typed", "read"), [
    ("runs twelve replicas", "runs 12 replicas"),
    ("runs twenty-four replicas", "runs 24 replicas"),
    ("One of the replicas is down.", "One of the replicas is down."),
    ("runs at noon", "runs at 12:00"),
    ("runs at midnight", "runs at 00:00"),
    ("日志保留三十天。", "日志保留 30 天。"),
    ("日志保留一百二十天。", "日志保留 120 天。"),
    ("日志保留三个月。", "日志保留 90 天。"),
    ("凌晨两点", "02:00"),
    ("慢一点", "慢一点"),
])
def test_numbers_in_words_are_numbers(typed: str, read: str) -> None:
    assert normalized(typed) == read


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("日志保留 30 天。", "日志保留三十天。", "日志保存九十天。"),
    ("The payments worker runs 4 replicas.", "The payments worker runs four replicas.",
     "The payments worker runs twelve replicas."),
    ("The export runs at 00:00.", "The export runs at midnight.", "The export runs at noon."),
])
def test_another_value_in_words_is_refused(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The platform team owns the notifications service.",
     "The notifications service is owned by the platform team.",
     "Notifications service owner: payments team."),
    ("Alice owns the billing service.", "The owner of the billing service is Alice.",
     "The billing service is owned by Bob."),
    ("计费服务的负责人是张伟。", "计费服务由张伟负责。", "计费服务由李娜负责。"),
])
def test_an_owner_said_in_the_passive_or_after_owner_is_refused(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("Alice owns the billing service.", "The checkout service is owned by Bob."),
    ("计费服务的负责人是张伟。", "搜索服务由李娜负责。"),
])
def test_an_owner_of_another_thing_is_another_fact(app: Waymarks, first: str,
                                                   second: str) -> None:
    _written(app, first)
    _written(app, second)
