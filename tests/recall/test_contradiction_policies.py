"""A policy said in other words: "blocked" beside "allowed", 需要 beside 不需要 and 无需, and
the words of policies a Chinese claim says with its own (pairs tagged ``dev-s68`` of
``benchmarks/conflict_pairs.json``, beside ``heldout-fresh``'s "Direct pushes to main are
blocked." / "… allowed." and 合并到 main 分支需要 / 不需要代码评审), written through the
service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.service.app import Waymarks

#: a claim | the opposite policy (refused) | another thing's, or another attribute
POLICIES = """
Force pushes to release branches are blocked. | Force pushes to release branches are \
allowed. | Force pushes to feature branches are allowed.
Outbound SMTP traffic is blocked by the firewall. | Outbound SMTP traffic is permitted. \
| Outbound SMTP traffic is logged to syslog.
发布到生产环境需要审批。 | 发布到生产环境不需要审批。 | 发布到测试环境不需要审批。
提交前需要运行单元测试。 | 提交前无需运行单元测试。 | 提交前需要运行 lint。
Direct pushes to main are blocked. | 直接推送到 main 是允许的。 | 直接推送到 main 是禁止的。
合并到 main 分支需要代码评审。 | 合并到 main 分支不需要代码评审。 | 合并到 dev 分支不需要代码评审。
"""


@pytest.mark.parametrize("line", POLICIES.strip().splitlines())
def test_the_opposite_policy_contradicts_it(app: Waymarks, line: str) -> None:
    """"blocked" and 需要 were no state (both written), and 代码评审 four characters of the
    subject, too many for one fact (no signature)."""
    refused_beside_first(app, line)
