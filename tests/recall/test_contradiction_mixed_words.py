"""Words a mixed English/Chinese pair says in each language: 主 (primary), 公共 (public),
应用 (application), and "allows" (允许, a state: the English verb names nothing):
held-out pairs of ``benchmarks/conflict_pairs.json`` (tags ``heldout-s66`` and
``heldout-s67``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.service.app import Waymarks

#: an English claim | the Chinese claim of another value (refused) | the same fact (written)
MIXED = """
The primary database runs in us-east-1. | 主数据库运行在 eu-west-1。 | 主数据库运行在 us-east-1。
The public API port is 8088. | 公共 API 端口是 9000。 | 公共 API 端口是 8088。
Application logs are kept for 14 days. | 应用日志保留 90 天。 | 应用日志保留 14 天。
The public API allows 100 requests per minute. | 公共 API 每分钟允许 500 次请求。 \
| 公共 API 每分钟允许 100 次请求。
"""


@pytest.mark.parametrize("line", MIXED.strip().splitlines())
def test_the_chinese_word_is_the_english_one(app: Waymarks, line: str) -> None:
    """Read as characters of its own, each Chinese word made another subject, and the
    Chinese claim was written beside the English one."""
    refused_beside_first(app, line)
