"""One line of a held-out conflict table, checked through the service (real SQLite): its
first claim written, its second refused as a conflict naming the first alone, its third
(the same fact or another attribute) written beside the first."""

from __future__ import annotations

from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Rejected


def refused_beside_first(app: Waymarks, line: str) -> None:
    first, other, kept_beside = (part.strip() for part in line.split(" | "))
    kept = _written(app, first).id
    refused = app.remember(other)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (kept,)
    assert _written(app, kept_beside).id != kept
