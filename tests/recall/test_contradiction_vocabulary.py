"""Words of project notes that a Chinese claim says with its own, written through the
service (real session files, real SQLite): "Debug logging is enabled." beside "调试日志已禁
用。" (调试 was two characters of its own, another subject than "debug", and both were
written), "The docs URL is …" beside "文档网址是 …". The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Debug logging is enabled.", "调试日志已禁用。"),
    ("The docs URL is https://docs.example.com.", "文档网址是 https://docs.example.org。"),
    ("The monitoring alert threshold is 80%.", "监控告警阈值是 90%。"),
    ("The payment gateway timeout is 30 seconds.", "支付网关超时时间是 60 秒。"),
    ("The audit log retention is 90 days.", "审计日志保留 30 天。"),
    ("The proxy port is 3128.", "代理端口是 8888。"),
    ("Telemetry is disabled.", "遥测已启用。"),
    ("遥测已禁用。", "Telemetry is enabled."),
])
def test_a_word_of_project_notes_is_the_english_one(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Debug logging is enabled.", "审计日志已禁用。"),
    ("The payment gateway timeout is 30 seconds.", "支付网关端口是 8443。"),
    ("The docs URL is https://docs.example.com.", "监控网址是 https://grafana.example.com。"),
])
def test_another_word_is_another_subject(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Force push to main is forbidden.", "Force pushes to main are forbidden.",
     "Force pushes to main are allowed."),
    ("The nightly batch size is 500.", "Nightly batches size is 500.",
     "The nightly batches size is 800."),
    ("The process limit is 8.", "The processes limit is 8.", "The processes limit is 16."),
])
def test_a_plural_in_es_is_its_word(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"pushes" was "pushe" (a plural lost its s only), another subject than "push", and
    "Force pushes to main are allowed." was written beside "Force push to main is
    forbidden."; a word ending in sh, tch, nch, rch, ss or x takes "es"."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)
