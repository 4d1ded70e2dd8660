"""Bounds said in other words ("never exceeds", "no longer than", "is limited to", "不超过",
"至少需要"), held-out pairs of ``benchmarks/conflict_pairs.json`` (tags ``heldout-rr`` and
``heldout-s66``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Rejected

#: a bound | an amount past it | an amount within it
BOUNDS = """
The connection pool never exceeds 50 connections. | The connection pool uses 80 connections. \
| The connection pool uses 40 connections.
Sessions last no longer than 8 hours. | Sessions last 24 hours. | Sessions last 2 hours.
Session tokens last no longer than 12 hours. | Session tokens last 48 hours. \
| Session tokens last at most 12 hours.
The request body size never exceeds 10 MB. | The request body size is 50 MB. \
| The request body size is 4 MB.
Uploads are limited to 25 MB. | Uploads can be up to 100 MB. | Uploads can be 20 MB.
请求超时时间不超过 5 秒。 | 请求超时时间是 45 秒。 | 请求超时时间是 3 秒。
"""


@pytest.mark.parametrize("line", BOUNDS.strip().splitlines())
def test_a_bound_in_other_words_is_compared_by_size(app: Waymarks, line: str) -> None:
    """An amount past the bound contradicts it, one within it is written beside it (read as
    a word of the subject and a denied amount, neither was refused)."""
    bound, past, within = (part.strip() for part in line.split(" | "))
    kept = _written(app, bound).id
    refused = app.remember(past)
    assert isinstance(refused, Rejected) and refused.conflicts == (kept,), refused
    assert _written(app, within).id != kept
