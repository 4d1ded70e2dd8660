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


def second_refused_or_written(app: Waymarks, first: str, second: str, conflict: bool) -> None:
    """``first`` written, then ``second`` refused as a conflict naming it alone (``conflict``)
    or written beside it: what the memory holds after, either way."""
    kept = app.remember(first)
    second_written = app.remember(second)
    held = [(v.text, v.status) for v in app.items("memory")]
    if conflict:
        assert isinstance(second_written, Rejected), second_written
        assert second_written.conflicts == (kept.id,)  # type: ignore[union-attr]
        assert held == [(first, "active")]
    else:
        assert second_written.outcome == "committed", second_written
        assert held == [(first, "active"), (second, "active")]
