"""Ranking learned claims for one query: analysis cache, candidate prefilter, read-time
aging and feedback factors, then recall's own gates (no I/O here; the rows come in).

Why a prefilter: learned claims have no recall index, so every query would score every
claim. :class:`Corpus` keeps postings (feature -> claims) built once per corpus, and scores
only the claims that could pass recall's gates: a claim without enough strong matches
(body or aliases), or missing a literal, fails a gate whatever its score, so leaving it out
is exact for the selection. The weights use document frequencies over every recallable
learned claim, as scoring everything would.

Aging and factors are computed only for the claims that pass the prefilter, from the
last confirmation (:mod:`waymarks.core.evolution.aging`). ``automatic`` leaves out
dormant claims (never injected; still recallable on request).

Analysis (:func:`waymarks.recall.learned.candidate`) is cached per process by (ID,
content, search terms, classification): a long-lived host process analyses a claim once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
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
from waymarks.core.records import replace
from waymarks.recall.analysis import is_literal
from waymarks.recall.engine import RecallResult, evaluate
from waymarks.recall.learned import LearnedClaim, candidate
from waymarks.recall.scoring import (
    COVERAGE_TO_QUALIFY,
    FIELD_FACTORS,
    Candidate,
    QueryPlan,
    Stats,
)

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


class Corpus:
    """Every recallable learned claim with its base candidate, and two postings built once:
    the claims holding each feature in their body or aliases (the gates' "strong" fields),
    and each feature's document frequency over body, aliases and quoted text (the weights).

    :meth:`possible` is a superset of the claims the gates can let through: at least one
    strong match (two when the query has three or more focus features), every literal in
    the body or aliases, and a way to qualify (a feature that could name it, or a coverage
    that could reach 0.45). Any other claim fails a gate whatever its score."""

    def __init__(self, pairs: Sequence[tuple[ClaimRow, Candidate]]) -> None:
        self.pairs = list(pairs)
        self.strong: dict[str, list[int]] = {}
        self.df: dict[str, int] = {}
        for index, (_row, base) in enumerate(self.pairs):
            for feature in base.body | base.aliases:
                self.strong.setdefault(feature, []).append(index)
            for feature in base.body | base.aliases | base.quoted:
                self.df[feature] = self.df.get(feature, 0) + 1

    def __len__(self) -> int:
        return len(self.pairs)

    def stats(self, plan: QueryPlan) -> Stats:
        """The weights' statistics for ``plan`` over every recallable learned claim."""
        wanted = (*plan.focus, *plan.context)
        return Stats(len(self.pairs), {f: self.df[f] for f in wanted if f in self.df})

    def possible(self, plan: QueryPlan, stats: Stats) -> list[int]:
        """Claims with enough strong matches, every literal, and either a feature that
        could name them (a literal, or one rare in the store) or a coverage that could
        reach the threshold: at most their strong matches' weight plus 0.25 (the largest
        weak field factor) of every other focus feature's weight."""
        need = 2 if len(plan.focus) >= 3 else 1
        weights = [(feature, stats.weight(feature)) for feature in plan.focus]
        total = sum(w for _f, w in weights) or 1.0
        counts: Counter[int] = Counter()
        for feature, _w in weights:
            counts.update(self.strong.get(feature, ()))
        naming: set[int] = set()
        for feature in set(plan.focus):
            if is_literal(feature) or stats.rare(feature):
                naming.update(self.strong.get(feature, ()))
        weak = FIELD_FACTORS["quoted"]
        floor = COVERAGE_TO_QUALIFY * total
        chosen = []
        for index, n in counts.items():
            if n < need:
                continue
            if index not in naming:
                base = self.pairs[index][1]
                strong = sum(w for f, w in weights if f in base.body or f in base.aliases)
                if strong + weak * (total - strong) < floor:
                    continue
            chosen.append(index)
        for literal in plan.literals:
            holding = set(self.strong.get(literal, ()))
            chosen = [index for index in chosen if index in holding]
        chosen.sort()
        return chosen


def rank(plan: QueryPlan, rows: Sequence[tuple[ClaimRow, Candidate]] | Corpus, now: str, *,
         automatic: bool, admits: Callable[[Candidate], bool] | None = None) -> RecallResult:
    """Score the claims of ``rows`` (a :class:`Corpus`, or pairs of a claim and its base
    candidate) that the gates could let through (:meth:`Corpus.possible`) for ``plan``.

    The gates and the relative cutoff never look at the factors, so candidates are gated
    on relevance alone and the factors are computed only for the eligible ones, whose rank
    (relevance x freshness x evidence x utility x accuracy) then orders them with the same
    key as :func:`waymarks.recall.scoring.score_all`."""
    corpus = rows if isinstance(rows, Corpus) else Corpus(rows)
    stats = corpus.stats(plan)
    now_s = parse_time(now) or 0.0
    chosen: list[Candidate] = []
    by_id: dict[str, ClaimRow] = {}
    for index in corpus.possible(plan, stats):
        row, base = corpus.pairs[index]
        if automatic and _dormant(row, now_s):
            continue
        if admits is not None and not admits(base):
            continue
        chosen.append(base)
        by_id[base.id] = row
    result = evaluate(plan, chosen, stats)
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
