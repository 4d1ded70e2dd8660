"""Chinese "always" and "never" (总是, 总是要, 始终, 一直 / 从不, 从来不): held-out pairs of
``benchmarks/conflict_pairs.json`` (tags ``heldout-rr``, ``heldout-s66`` and
``heldout-s67``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.service.app import Waymarks

#: a claim | its opposite | another rule of the same thing (written beside it)
ALWAYS = """
合并前总是要跑完整测试。 | 合并前从不跑完整测试。 | 合并前总是要更新变更日志。
发布前从不打标签。 | 发布前总是打标签。 | 发布前从不改版本号。
总是在提交前运行 lint。 | 从不在提交前运行 lint。 | 总是在提交前格式化代码。
测试始终在 CI 中并行运行。 | 测试从来不在 CI 中并行运行。 | 测试始终在 CI 中重试两次。
"""


@pytest.mark.parametrize("line", ALWAYS.strip().splitlines())
def test_always_is_the_affirmative_of_never(app: Waymarks, line: str) -> None:
    """As English "always" beside "never": read as characters of the claim, 总是 made
    "合并前总是要跑完整测试" no very negation of "合并前从不跑完整测试", and both were written."""
    refused_beside_first(app, line)
