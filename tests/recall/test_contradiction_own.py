"""A thing of its own or shared ("has its own database" / "shares the main database",
"有自己的数据库" / "和主服务共用一个数据库"): held-out pairs of
``benchmarks/conflict_pairs.json`` (tags ``heldout-s66`` and ``heldout-s67``), written
through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.service.app import Waymarks

#: a claim | its other value (refused) | the same fact or another thing of its own (written)
OWN = """
The search service has its own database. | The search service shares the main database. \
| The search service has its own deploy pipeline.
The ledger service shares the main database. | The ledger service has its own database. \
| The ledger service uses the same database.
The audit service has its own database. | The audit service shares the main MySQL database. \
| The audit service uses a dedicated database.
报表服务有自己的数据库。 | 报表服务和主服务共用一个数据库。 | 报表服务有自己的部署流水线。
"""


@pytest.mark.parametrize("line", OWN.strip().splitlines())
def test_own_or_shared_is_a_value(app: Waymarks, line: str) -> None:
    """Neither stated a value, and both were written."""
    refused_beside_first(app, line)
