"""Bounded lookups of pins and memory by the words of a query (for model-callable tools)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from waymarks.recall.analysis import analyze
from waymarks.recall.engine import RecallResult
from waymarks.service.views import ItemView

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


def find_items(app: Waymarks, kind: Literal["pin", "memory"], query: str, *,
               active_only: bool, limit: int,
               admits: Callable[[ItemView], bool]) -> list[ItemView]:
    """Visible items sharing words with ``query`` that the destination ``admits``, best
    first, at most ``limit``.

    Active memory comes from the recall index (candidates by term, ranked by relevance,
    without the gates that automatic recall applies); pins, and memory in any status, are
    few enough per session to score directly by shared features. An item the destination
    may not receive is never matched: listing it (its ID, its level) for the words it holds
    told a model, guess by guess, what the withheld text says.
    """
    wanted = set(analyze(query, query=True).features)
    if not wanted:
        return []
    if kind == "memory" and active_only:
        # recall's candidates are claims in effect (the index also holds superseded,
        # invalid and expired ones): checked again on the projection, so a find never
        # previews what no longer applies
        recalled = app.recall(query, inherit=False, privacy=False, every_candidate=True)
        # the words' share of the score (a semantic signal scores every claim a little:
        # a query sharing no word with any claim found them all)
        ranked = sorted((s for s in recalled.scored
                         if s.lexical > 0 and s.candidate.status == "active"),
                        key=lambda s: -s.relevance)
        found: list[ItemView] = []
        for start in range(0, len(ranked), max(1, limit)):  # in rank order until ``limit``
            # are admitted: not every candidate of a large store (the admission check
            # made this read them all)
            chunk = [s.candidate.id for s in ranked[start:start + max(1, limit)]]
            by_id = {v.id: v for v in app.items("memory", ids=chunk)
                     if v.status == "active" and admits(v)}
            found += [by_id[i] for i in chunk if i in by_id]
            if len(found) >= limit:
                break
        return found[:limit]
    views = [v for v in app.items(kind) if (v.status == "active" or not active_only)
             and admits(v)]
    scored = [(len(wanted.intersection(analyze(v.text).features)), v) for v in views]
    matched = [(n, v) for n, v in scored if n]
    matched.sort(key=lambda nv: (-nv[0], -nv[1].created_at, nv[1].id))
    return [v for _n, v in matched[:limit]]


def selected_rows(result: RecallResult) -> list[dict[str, Any]]:
    """The claims a recall selected, as rows the destination may see."""
    return [dict(row) for row in result.rows]


def features(text: str, *, query: bool = False) -> frozenset[str]:
    """The recall features of ``text`` (words, identifiers, CJK segments), for matching."""
    return frozenset(analyze(text, query=query).features)
