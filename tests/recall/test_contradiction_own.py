"""A thing of its own or shared ("has its own database" / "shares the main database",
"有自己的数据库" / "和主服务共用一个数据库"): held-out pairs of
``benchmarks/conflict_pairs.json`` (tags ``heldout-s66`` and ``heldout-s67``), written
through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Rejected

#: a claim | its other value (refused) | the same fact or another thing of its own (written)
OWN = """
The search service has its own database. | The search service shares the main database. \
| The search service has its own deploy pipeline.
The ledger service shares the main database. | The ledger service has its own database. \
| The ledger service uses the same database.
报表服务有自己的数据库。 | 报表服务和主服务共用一个数据库。 | 报表服务有自己的部署流水线。
"""


@pytest.mark.parametrize("line", OWN.strip().splitlines())
def test_own_or_shared_is_a_value(app: Waymarks, line: str) -> None:
    """Neither stated a value, and both were written."""
    first, other, kept_beside = (part.strip() for part in line.split(" | "))
    kept = _written(app, first).id
    refused = app.remember(other)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (kept,)
    assert _written(app, kept_beside).id != kept
