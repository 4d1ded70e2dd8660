"""Candidate bounds for a large learned-claim corpus, computed over arrays (numpy).

Why: at 100k claims a query with a few common words ("database", "index", "api") has
tens of thousands of postings, and the per-claim Python pass of
:meth:`waymarks.service.evolution_rank.Corpus.bounded` took 40-90 ms of its time. Here the
same sums are added posting list by posting list into dense arrays (one slot per claim),
so the per-query cost is a few vector additions over the postings of the query's
features, whatever the claims hold.

What must stay true (the property tests hold it to the Python pass and the full scan):
- the claims kept and their bounds are exactly those of ``Corpus.bounded`` with every
  focus feature walked: the same gates (strong matches, literals, a way to qualify), the
  same field factors, and the same floating-point sums added in the same order (each
  claim gets at most one term per feature, so adding 0 elsewhere changes nothing);
- the arrays are built once per corpus, lazily, and follow its changes in place
  (``Corpus.update``: a claim's lists and columns, never the whole build), so they always
  hold what arrays built afresh from the same claims hold; they are built only for
  corpora of :data:`DENSE_MIN` claims or more, once the corpus has served a few queries
  (``evolution_rank.DENSE_AFTER``), so a small home
  and a one-shot process (a CLI recall, a hook without the helper) never import numpy;
- with a limit, the first ``limit`` eligible claims by rank are exactly the full
  ranking's: claims are scored by an upper bound of their rank (relevance bound x
  freshness x evidence x feedback) until ``limit`` eligible ones rank above every bound
  left.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, Final

from waymarks.core.evolution.aging import (
    AGING,
    DAY_SECONDS,
    DEFAULT_RULE,
    accuracy_factor,
    evidence_weight,
    parse_time,
    utility_factor,
)
from waymarks.core.evolution.rows import ClaimRow
from waymarks.recall.analysis import is_generic, is_literal
from waymarks.recall.engine import evaluate
from waymarks.recall.scoring import (
    CONTEXT_WEIGHT,
    COVERAGE_TO_QUALIFY,
    FIELD_FACTORS,
    RELATIVE_CUTOFF,
    Candidate,
    QueryPlan,
    Scored,
    Stats,
)

#: corpora smaller than this are bounded by the Python pass (numpy is not imported)
DENSE_MIN: Final = 512
_EPSILON: Final = 1e-9
_WEAK: Final = FIELD_FACTORS["quoted"]
_ALIAS: Final = FIELD_FACTORS["aliases"]
_ORIGIN: Final = FIELD_FACTORS["origin"]
#: the four disjoint fields a feature can match a claim in, strongest first
_BODY, _ALIASES, _QUOTED, _ORIGINS = range(4)


class Dense:
    """Per feature, the claims holding it in each field (disjoint: a claim is listed under
    its strongest field only), as int32 arrays made on first use; and each claim's length
    norm."""

    def __init__(self, pairs: Sequence[tuple[ClaimRow, Candidate]],
                 alive: Sequence[bool] | None = None) -> None:
        from waymarks.semantic import one_blas_thread

        one_blas_thread()  # before NumPy loads its BLAS
        import numpy as np

        self._np = np
        self.size = len(pairs)
        self._lists: dict[str, tuple[list[int], list[int], list[int], list[int]]] = {}
        self._arrays: dict[str, tuple[Any, Any, Any, Any]] = {}
        for index, (_row, base) in enumerate(pairs):
            if alive is None or alive[index]:
                self._enter(index, base)
        self.norm = np.array([_norm(base) for _row, base in pairs], dtype=np.float64)
        # what bounds a claim's factors: the read-time-independent ones exactly, and what
        # its freshness is computed from (pinned: freshness 1; no readable date: age 0)
        self.ids = [base.id for _row, base in pairs]
        self.position = {cid: index for index, cid in enumerate(self.ids)}
        factors = [_factors(row) for row, _base in pairs]
        self.static = np.array([f[0] for f in factors], dtype=np.float64)
        self.half_life = np.array([f[1] for f in factors], dtype=np.float64)
        self.floor = np.array([f[2] for f in factors], dtype=np.float64)
        self.confirmed = np.array([f[3] for f in factors], dtype=np.float64)
        #: the same two numbers as plain floats per slot, for :meth:`asleep` (read one
        #: claim at a time, where a numpy scalar costs more than the test)
        self.wake = [f[3] for f in factors]
        self.horizon = [AGING.get(row.kind, DEFAULT_RULE).dormant_after_days
                        for row, _base in pairs]

    def asleep(self, index: int, now_s: float) -> bool:
        """Whether claim ``index`` is dormant at ``now_s``: exactly
        ``evolution_rank._dormant`` (the same float operations; pinned or undated: never),
        without reading its row."""
        return (now_s - self.wake[index]) / DAY_SECONDS > self.horizon[index]

    def _enter(self, index: int, base: Candidate) -> None:
        """List claim ``index`` under each of its features, in its strongest field."""
        lists = self._lists
        body, aliases, quoted = base.body, base.aliases, base.quoted
        for feature in body:
            lists.setdefault(feature, ([], [], [], []))[_BODY].append(index)
        for feature in aliases:
            if feature not in body:
                lists.setdefault(feature, ([], [], [], []))[_ALIASES].append(index)
        for feature in quoted:
            if feature not in body and feature not in aliases:
                lists.setdefault(feature, ([], [], [], []))[_QUOTED].append(index)
        for feature in base.origin_features:
            if feature not in body and feature not in aliases and feature not in quoted:
                lists.setdefault(feature, ([], [], [], []))[_ORIGINS].append(index)

    # -- following a changed corpus (``Corpus.update``): a long-lived process never
    # rebuilds the arrays after a write; the arrays of the features touched are made
    # again from their lists on next use, the per-claim columns are set in place

    def refresh(self, index: int, row: ClaimRow) -> None:
        """Claim ``index`` has new factors (dates, feedback, pin), the same features."""
        static, half_life, floor, confirmed = _factors(row)
        self.static[index], self.half_life[index] = static, half_life
        self.floor[index], self.confirmed[index] = floor, confirmed
        self.wake[index] = confirmed
        self.horizon[index] = AGING.get(row.kind, DEFAULT_RULE).dormant_after_days

    def unlink(self, index: int, base: Candidate) -> None:
        """Claim ``index`` is no longer ranked: it leaves every list it was in."""
        for feature in base.body | base.aliases | base.quoted | base.origin_features:
            lists = self._lists.get(feature)
            if lists is None:
                continue
            for values in lists:  # each ascending: found by bisection
                at = bisect_left(values, index)
                if at < len(values) and values[at] == index:
                    del values[at]
            if not any(lists):
                del self._lists[feature]
            self._arrays.pop(feature, None)

    def link(self, row: ClaimRow, base: Candidate) -> None:
        """A new claim, in a new last slot (every list stays in ascending order)."""
        np = self._np
        index = self.size
        self.size += 1
        self._enter(index, base)
        for feature in base.body | base.aliases | base.quoted | base.origin_features:
            self._arrays.pop(feature, None)
        self.ids.append(base.id)
        self.position[base.id] = index
        static, half_life, floor, confirmed = _factors(row)
        self.norm = np.append(self.norm, _norm(base))
        self.static = np.append(self.static, static)
        self.half_life = np.append(self.half_life, half_life)
        self.floor = np.append(self.floor, floor)
        self.confirmed = np.append(self.confirmed, confirmed)
        self.wake.append(confirmed)
        self.horizon.append(AGING.get(row.kind, DEFAULT_RULE).dormant_after_days)

    def rank_bounds(self, indices: Any, bounds: Any, now_s: float) -> Any:
        """Upper bounds of the ranks of the claims ``indices`` whose relevance is at most
        ``bounds``: relevance x freshness x evidence x utility x accuracy, with a slack
        for the rounding of a power computed another way."""
        np = self._np
        age = np.maximum(0.0, (now_s - self.confirmed[indices]) / 86_400.0)
        floor = self.floor[indices]
        fresh = floor + (1.0 - floor) * np.exp2(-age / self.half_life[indices])
        return bounds * np.minimum(1.0, fresh) * self.static[indices] * (1.0 + 1e-7) + 1e-12

    def fields(self, feature: str) -> tuple[Any, Any, Any, Any] | None:
        found = self._arrays.get(feature)
        if found is None:
            lists = self._lists.get(feature)
            if lists is None:
                return None
            np = self._np
            found = self._arrays[feature] = tuple(
                np.array(values, dtype=np.int32) for values in lists)
        return found

    def bounded(self, plan: QueryPlan, stats: Stats, cutoff: float = 0.0) -> tuple[Any, Any]:
        """(indices, bounds) of the claims ``Corpus.bounded`` keeps for ``plan`` with a
        bound of at least ``cutoff``, indices ascending."""
        np = self._np
        n = self.size
        weights = [(feature, stats.weight(feature)) for feature in plan.focus]
        unknown = any(not stats.df.get(f) and not is_generic(f) for f in plan.focus)
        need = 2 if len(plan.focus) >= 3 or unknown else 1
        context = [(f, stats.weight(f) * CONTEXT_WEIGHT) for f in plan.context
                   if f not in plan.focus]
        total = sum(w for _f, w in weights) or 1.0
        naming = {f for f in set(plan.focus) if is_literal(f) or stats.rare(f)}
        floor = COVERAGE_TO_QUALIFY * total
        score = np.zeros(n, dtype=np.float64)
        strong = np.zeros(n, dtype=np.float64)
        count = np.zeros(n, dtype=np.int32)
        named = np.zeros(n, dtype=bool)
        for feature, w in weights:
            fields = self.fields(feature)
            if fields is None:
                continue
            body, aliases, _quoted, _origin = fields
            _add_weight(score, fields, w)
            count[body] += 1
            count[aliases] += 1
            strong[body] += w
            strong[aliases] += w
            if feature in naming:
                named[body] = True
                named[aliases] = True
        keep = count >= need
        for literal in plan.literals:
            fields = self.fields(literal)
            holds = np.zeros(n, dtype=bool)
            if fields is not None:
                holds[fields[_BODY]] = True
                holds[fields[_ALIASES]] = True
            keep &= holds
        keep &= named | ~(strong + _WEAK * (total - strong) < floor)
        for feature, w in context:
            fields = self.fields(feature)
            if fields is None:
                continue
            _add_weight(score, fields, w)
        bound = score / total * self.norm + _EPSILON
        keep &= bound >= cutoff
        chosen = np.flatnonzero(keep)
        return chosen, bound[chosen]


def candidates(dense: Dense, plan: QueryPlan, stats: Stats, now_s: float,
               keep: Callable[[int], Candidate | None],
               rank_of: Callable[[Scored], float], limit: int | None,
               gated: Callable[[list[Candidate]], list[Scored]] | None = None
               ) -> list[Candidate]:
    """The candidates to score in full: every claim the gates could let through, with its
    bound (one vector pass); scored best bound first, a chunk at a time, until no bound is
    above the best eligible relevance found (the best); then those within the relative
    cutoff of it. With ``limit``, of those only enough to hold the ``limit`` best by rank
    exactly: scored by an upper bound of their rank until ``limit`` eligible ones rank
    above every bound left (the rest rank lower whatever they hold).

    ``gated`` scores a chunk and returns those that pass recall's gates (before the
    relative cutoff; the caller memoizes it, so no claim is scored twice in one query):
    a chunk's best is its best gated relevance, and a claim within the cutoff of the
    overall best is within its chunk's, so the choices are those of scoring each chunk
    with the cutoff (the default, without a memo)."""
    np = dense._np
    if gated is None:
        def gated(chunk: list[Candidate]) -> list[Scored]:
            return evaluate(plan, chunk, stats).eligible
    indices, bounds = dense.bounded(plan, stats)
    if len(indices) <= _SHORT:
        return [c for i in indices.tolist() if (c := keep(i)) is not None]
    order = np.lexsort((indices, -bounds))
    indices, bounds = indices[order], bounds[order]
    best, best_at, reached = 0.0, -1, 0
    while reached < len(indices) and bounds[reached] >= best:
        chunk = [c for i in indices[reached:reached + _CHUNK].tolist()
                 if (c := keep(i)) is not None]
        reached += _CHUNK
        for scored in gated(chunk):
            if scored.relevance > best:
                best, best_at = scored.relevance, _position(dense, scored)
    within = bounds >= RELATIVE_CUTOFF * best - _EPSILON
    indices, bounds = indices[within], bounds[within]
    if limit is None or len(indices) <= max(limit * 2, _SHORT):
        return [c for i in np.sort(indices).tolist() if (c := keep(i)) is not None]
    ranks = dense.rank_bounds(indices, bounds, now_s)
    order = np.lexsort((indices, -ranks))
    indices, ranks = indices[order], ranks[order]
    chosen: list[Candidate] = []
    found: list[float] = []  # the exact ranks of the eligible ones reached
    reached = 0
    while reached < len(indices):
        if len(found) >= limit and ranks[reached] < sorted(found, reverse=True)[limit - 1]:
            break  # every claim left ranks below the limit-th best found
        chunk = [c for i in indices[reached:reached + _CHUNK].tolist()
                 if (c := keep(i)) is not None]
        reached += _CHUNK
        chosen += chunk
        found += [rank_of(s) for s in gated(chunk) if s.relevance >= RELATIVE_CUTOFF * best]
    if best_at >= 0 and all(c.id != dense.ids[best_at] for c in chosen):
        top = keep(best_at)  # the best by relevance sets the relative cutoff
        if top is not None:
            chosen.append(top)
    return chosen


def _position(dense: Dense, scored: Scored) -> int:
    return dense.position[scored.candidate.id]


#: candidates scored at a time while looking for the best eligible relevance (or rank)
_CHUNK: Final = 16
#: up to this many candidates are scored without looking for a bound first
_SHORT: Final = 48


def _norm(base: Candidate) -> float:
    """A claim's length norm, as the scorer computes it."""
    return 0.8 + 0.2 * min(1.0, 12 / max(1, base.body_count))


def _factors(row: ClaimRow) -> tuple[float, float, float, float]:
    """(evidence x utility x accuracy, half-life, floor, confirmation time) of a claim:
    what bounds its rank's factors (pinned or without a readable date: never aging)."""
    rule = AGING.get(row.kind, DEFAULT_RULE)
    confirmed = parse_time(row.confirmed_at)
    static = (evidence_weight(row.basis, row.kind)
              * utility_factor(row.utility[0] if row.utility else None)
              * accuracy_factor(row.accuracy[0] if row.accuracy else None))
    return (static, rule.half_life_days, rule.floor,
            float("inf") if confirmed is None or row.pinned else confirmed)


def _add_weight(score: Any, fields: Sequence[Any], weight: float) -> None:
    """A feature's weight added to the claims holding it, by field (body, aliases,
    quoted, origin: the scorer's field factors), in the scorer's order of additions."""
    body, aliases, quoted, origin = fields
    score[body] += weight
    score[aliases] += weight * _ALIAS
    score[quoted] += weight * _WEAK
    score[origin] += weight * _ORIGIN
