"""Pair 731 of the fixture set, the review's last miss, written through the service (real
session files, real SQLite): "The importer does not retry failed rows." beside "The
importer retries failed rows 3 times." (a negation of no value: the first stated nothing,
and both were written). An action denied outright is done no times, the count 0. The
pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The importer does not retry failed rows.", "The importer never retries failed rows.",
     "The importer retries failed rows 3 times."),
    ("The importer retries failed rows 3 times.", "The importer retries failed rows three times.",
     "The importer won't retry failed rows."),
    ("Redis does not persist data.", "Redis doesn't persist data.",
     "Redis persists data every 60 seconds."),
])
def test_an_action_denied_outright_is_done_no_times(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The nightly job does not send emails.", "The nightly job runs at 02:00."),
    ("The worker does not retry jobs.", "The worker retries timeouts 3 times."),
    ("The service is not public.", "The service port is 8080."),
])
def test_another_action_or_a_copula_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The gateway doesn't use the default port.", "The gateway listens on port 8443."),
    ("The gateway doesn't use the default port.", "The default port is 8080."),
    ("The worker does not run on port 9000.", "The worker listens on port 9100."),
])
def test_a_generic_verb_denied_denies_its_object_and_counts_nothing(
        app: Waymarks, first: str, second: str) -> None:
    """"doesn't use the default port" says which port is not used, no count of uses: read
    as done no times (the count 0), it was refused beside any port the gateway listens on."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("导入器不重试失败的行。", "导入器从不重试失败的行。", "导入器重试失败的行 3 次。"),
    ("同步任务重试 5 次。", "同步任务重试五次。", "同步任务不再重试。"),
    ("导入器从不重试失败的行。", "导入器不重试失败的行。", "导入器重试失败的行 2 次。"),
])
def test_an_action_denied_in_chinese_is_done_no_times(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"导入器不重试失败的行。" stated no value (不 a function character), and "… 重试失败的
    行 3 次。" was written beside it, as the English claim was before pair 731's rule."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("网关不使用默认端口。", "网关监听 8443 端口。"),
    ("服务不稳定。", "服务端口是 8080。"),
    ("数据库端口不是 3306。", "数据库端口是 5432。"),
])
def test_a_chinese_verb_of_no_subject_word_or_a_copula_denied_counts_nothing(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


def test_every_in_chinese_is_a_function_character(app: Waymarks) -> None:
    """每 ("every") was a subject character before its period, a narrower thing: "Redis 每
    60 秒持久化数据。" was written beside "Redis 不持久化数据。", as "every" is a stop word."""
    _written(app, "Redis 不持久化数据。")
    _refused(app, "Redis 每 60 秒持久化数据。")
    _written(app, "Redis 从不持久化数据。")
