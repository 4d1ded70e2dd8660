"""Ranking learned claims for one query: analysis cache, candidate prefilter, read-time
aging and feedback factors, then recall's own gates (no I/O here; the rows come in).

Why a prefilter: learned claims have no recall index, so every query would score every
claim. A claim that shares no feature with the query (body, aliases, quoted, origin) has
coverage 0 and names nothing, so the gates can never make it eligible; leaving it out is
exact for the selection. The document frequencies the weights need come only from claims
holding a query feature (all of them pass the prefilter), and the corpus size is every
recallable learned claim, so the weights are the same as scoring everything.

Aging and factors are computed only for the claims that pass the prefilter, from the
last confirmation (:mod:`waymarks.core.evolution.aging`). ``automatic`` leaves out
dormant claims (never injected; still recallable on request).

Analysis (:func:`waymarks.recall.learned.candidate`) is cached per process by (ID,
content, search terms, classification): a long-lived host process analyses a claim once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

from waymarks.core.evolution.aging import (
    DAY_SECONDS,
    accuracy_factor,
    aging,
    dormant,
    evidence_weight,
    parse_time,
    utility_factor,
)
from waymarks.core.evolution.rows import ClaimRow
from waymarks.recall.engine import RecallResult, evaluate
from waymarks.recall.learned import LearnedClaim, candidate
from waymarks.recall.scoring import Candidate, QueryPlan, Stats

MAX_CACHED: Final = 250_000
_CACHE: dict[tuple[str, str, tuple[str, ...], str | None, str], Candidate] = {}


def learned(row: ClaimRow, level: str | None, updated_ms: int) -> LearnedClaim:
    return LearnedClaim(row.id, row.kind, row.state, row.origin, row.content, row.search_terms,
                        f"{row.basis}/{row.method}", row.source_id, updated_ms, level)


def base_candidate(row: ClaimRow, level: str | None, updated_ms: int) -> Candidate:
    """The claim analysed as scoring sees it (cached), without read-time factors."""
    key = (row.id, row.content, row.search_terms, level, row.updated_at)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= MAX_CACHED:
            _CACHE.clear()
        found = _CACHE[key] = candidate(learned(row, level, updated_ms))
    return found


def matches(wanted: frozenset[str], candidate: Candidate) -> bool:
    """Whether ``candidate`` holds any query feature (else it can never be eligible)."""
    return not (wanted.isdisjoint(candidate.body) and wanted.isdisjoint(candidate.aliases)
                and wanted.isdisjoint(candidate.quoted)
                and wanted.isdisjoint(candidate.origin_features))


def with_factors(base: Candidate, row: ClaimRow, now: str) -> tuple[Candidate, bool]:
    """``base`` with its aging and feedback factors, and whether it is dormant."""
    age = aging(row.kind, row.confirmed_at, now)
    return replace(base, freshness=age.freshness,
                   evidence_weight=evidence_weight(row.basis, row.kind),
                   utility=utility_factor(row.utility[0] if row.utility else None),
                   accuracy=accuracy_factor(row.accuracy[0] if row.accuracy else None)), \
        age.dormant


def _dormant(row: ClaimRow, now_s: float) -> bool:
    confirmed = _confirmed_s(row)
    return confirmed is not None and dormant(row.kind, (now_s - confirmed) / DAY_SECONDS)


def _confirmed_s(row: ClaimRow) -> float | None:
    key = row.confirmed_at
    found = _TIMES.get(key, _MISSING)
    if found is _MISSING:
        if len(_TIMES) >= MAX_CACHED:
            _TIMES.clear()
        found = _TIMES[key] = parse_time(key)
    return found if isinstance(found, float) else None


_MISSING: Final = object()
_TIMES: dict[str, object] = {}


def rank(plan: QueryPlan, rows: Sequence[tuple[ClaimRow, Candidate]], now: str, *,
         automatic: bool, admits: Callable[[Candidate], bool] | None = None) -> RecallResult:
    """Score ``rows`` (each claim and its base candidate) for ``plan``.

    The gates and the relative cutoff never look at the factors, so candidates are gated
    on relevance alone and the factors are computed only for the eligible ones, whose rank
    (relevance x freshness x evidence x utility x accuracy) then orders them with the same
    key as :func:`waymarks.recall.scoring.score_all`."""
    wanted = frozenset((*plan.focus, *plan.context))
    now_s = parse_time(now) or 0.0
    chosen: list[Candidate] = []
    by_id: dict[str, ClaimRow] = {}
    df: dict[str, int] = {}
    for row, base in rows:
        if not matches(wanted, base):
            continue
        for feature in wanted & (base.body | base.aliases | base.quoted):
            df[feature] = df.get(feature, 0) + 1
        if automatic and _dormant(row, now_s):
            continue
        if admits is not None and not admits(base):
            continue
        chosen.append(base)
        by_id[base.id] = row
    result = evaluate(plan, chosen, Stats(len(rows), df))
    scored = []
    for item in result.scored:
        if item.eligible:
            aged, _ = with_factors(item.candidate, by_id[item.candidate.id], now)
            item = replace(item, candidate=aged, rank=item.relevance * aged.freshness
                           * aged.evidence_weight * aged.utility * aged.accuracy)
        scored.append(item)
    scored.sort(key=lambda s: (not s.eligible, -s.rank, -s.relevance,
                               -s.candidate.created_at, s.candidate.id))
    return replace(result, scored=scored)
