"""A Chinese cloud region in words (华东 1 区) and a region in a mixed pair (pairs tagged
``dev-s68`` of ``benchmarks/conflict_pairs.json``, beside ``heldout-fresh``'s "主数据库部署
在华东 1 区。" / "… 华北 2 区。" and "Production is deployed in eu-west-1." / "生产环境部署在
us-east-1。"), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.service.app import Waymarks

#: a claim | another region (refused) | the same region written otherwise, or another thing
REGIONS = """
主数据库部署在华东 1 区。 | 主数据库部署在华北 2 区。 | 主数据库部署在华东1区。
订单数据库部署在华东 2 区。 | 订单数据库部署在华南 1 区。 | 日志集群部署在华北 3 区。
Production is deployed in eu-west-1. | 生产环境部署在 us-east-1。 | 生产环境部署在 eu-west-1。
Production is hosted in ap-southeast-1. | 生产环境部署在 ap-northeast-1。 \
| 预发环境部署在 ap-northeast-1。
"""


@pytest.mark.parametrize("line", REGIONS.strip().splitlines())
def test_another_region_contradicts_it(app: Waymarks, line: str) -> None:
    """华东 1 区 was characters of the subject and a number (another subject than 华北 2
    区), and 生产环境 production and an environment, more than "Production" alone."""
    refused_beside_first(app, line)
