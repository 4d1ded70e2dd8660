"""Ranking learned claims for one query: candidate prefilter, read-time aging and
feedback factors, then recall's own gates (no I/O here; the rows and their analysed
candidates come in: :mod:`waymarks.service.evolution_analysis`).

Why a prefilter: learned claims have no recall index, so every query would score every
claim. :class:`Corpus` keeps postings (feature -> claims) built once per corpus, and scores
only the claims that could pass recall's gates: a claim without enough strong matches
(body or aliases), or missing a literal, fails a gate whatever its score, so leaving it out
is exact for the selection. The weights use document frequencies over every recallable
learned claim, as scoring everything would.

Aging and factors are computed only for the claims that pass the prefilter, from the
last confirmation (:mod:`waymarks.core.evolution.aging`). ``automatic`` leaves out
dormant claims (never injected; still recallable on request).
"""

from __future__ import annotations

from bisect import bisect_left
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
from waymarks.recall.analysis import is_generic, is_literal
from waymarks.recall.engine import RecallResult, evaluate
from waymarks.recall.scoring import (
    CONTEXT_WEIGHT,
    COVERAGE_TO_QUALIFY,
    FIELD_FACTORS,
    RELATIVE_CUTOFF,
    Candidate,
    QueryPlan,
    Scored,
    Stats,
    ranked,
)
from waymarks.recall.subject import settle
from waymarks.service.evolution_analysis import MAX_CACHED
from waymarks.service.evolution_rank_dense import DENSE_MIN, Dense
from waymarks.service.evolution_rank_dense import candidates as dense_candidates


def matches(wanted: frozenset[str], candidate: Candidate) -> bool:
    """Whether ``candidate`` holds any query feature (else it can never be eligible)."""
    return not (wanted.isdisjoint(candidate.body) and wanted.isdisjoint(candidate.aliases)
                and wanted.isdisjoint(candidate.quoted)
                and wanted.isdisjoint(candidate.origin_features))


def with_factors(base: Candidate, row: ClaimRow, now: str) -> tuple[Candidate, bool]:
    """``base`` with its aging and feedback factors, and whether it is dormant (a pinned
    claim: freshness 1, never dormant; its evidence weight is not raised)."""
    age = aging(row.kind, row.confirmed_at, now)
    if row.pinned:
        return replace(base, freshness=1.0,
                       evidence_weight=evidence_weight(row.basis, row.kind),
                       utility=utility_factor(row.utility[0] if row.utility else None),
                       accuracy=accuracy_factor(row.accuracy[0] if row.accuracy else None)), \
            False
    return replace(base, freshness=age.freshness,
                   evidence_weight=evidence_weight(row.basis, row.kind),
                   utility=utility_factor(row.utility[0] if row.utility else None),
                   accuracy=accuracy_factor(row.accuracy[0] if row.accuracy else None)), \
        age.dormant


def _dormant(row: ClaimRow, now_s: float) -> bool:
    if row.pinned:
        return False
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

    def __init__(self, pairs: Sequence[tuple[ClaimRow, Candidate]],
                 dense: bool | None = None) -> None:
        #: one slot per claim; a slot :meth:`update` emptied keeps its pair but is not
        #: :attr:`alive` (it is in no posting, so nothing ever reaches it)
        self.pairs = list(pairs)
        self.alive = [True] * len(self.pairs)
        self.live = len(self.pairs)
        self.position = {base.id: index for index, (_row, base) in enumerate(self.pairs)}
        #: bound over arrays (:mod:`.evolution_rank_dense`): ``None``: for a large corpus
        #: once it has served :data:`DENSE_AFTER` queries (the arrays cost about as much to
        #: build as a few queries save: a one-shot process never builds them)
        self.dense_wanted = dense
        self.served = 0
        self._dense: Dense | None = None
        self.strong: dict[str, list[int]] = {}
        self.df: dict[str, int] = {}
        for index, (_row, base) in enumerate(self.pairs):
            for feature in base.body | base.aliases:
                self.strong.setdefault(feature, []).append(index)
            for feature in base.body | base.aliases | base.quoted:
                self.df[feature] = self.df.get(feature, 0) + 1

    def __len__(self) -> int:
        return self.live

    def live_pairs(self) -> list[tuple[ClaimRow, Candidate]]:
        """The pairs of the live slots, in slot order."""
        return [pair for pair, alive in zip(self.pairs, self.alive, strict=True) if alive]

    def update(self, changed: Sequence[tuple[ClaimRow, Candidate]],
               removed: Sequence[str]) -> bool:
        """Follow a change of the projection in place: ``changed`` claims (new, or with new
        dates, feedback, pin or analysis) and ``removed`` IDs (no longer recallable). The
        postings, document frequencies and arrays then hold exactly what a corpus built
        from the new claims holds, claim for claim (in other slots: slot order only breaks
        ties among equal bounds, never what is ranked; see :meth:`rank`). Returns False,
        changing nothing more, once emptied slots pass a quarter of the live ones: the
        caller builds a fresh corpus (the slots stay compact)."""
        for cid in removed:
            index = self.position.pop(cid, None)
            if index is not None:
                self._unlink(index)
        for row, base in changed:
            index = self.position.get(base.id)
            if index is not None:
                old = self.pairs[index][1]
                if (old.body, old.aliases, old.quoted, old.origin_features, old.body_count) \
                        == (base.body, base.aliases, base.quoted, base.origin_features,
                            base.body_count):
                    self.pairs[index] = (row, base)  # the same postings: factors only
                    if self._dense is not None:
                        self._dense.refresh(index, row)
                    continue
                del self.position[base.id]
                self._unlink(index)
            self._link(row, base)
        return len(self.pairs) - self.live <= max(64, self.live // 4)

    def _unlink(self, index: int) -> None:
        base = self.pairs[index][1]
        for feature in base.body | base.aliases:
            postings = self.strong[feature]
            del postings[bisect_left(postings, index)]  # ascending: found by bisection
            if not postings:  # as a fresh corpus: no key for a feature nobody holds
                del self.strong[feature]
        for feature in base.body | base.aliases | base.quoted:
            left = self.df[feature] - 1
            if left:
                self.df[feature] = left
            else:
                del self.df[feature]
        self.alive[index] = False
        self.live -= 1
        if self._dense is not None:
            self._dense.unlink(index, base)

    def _link(self, row: ClaimRow, base: Candidate) -> None:
        index = len(self.pairs)  # the last slot: every posting stays in ascending order
        self.pairs.append((row, base))
        self.alive.append(True)
        self.live += 1
        self.position[base.id] = index
        for feature in base.body | base.aliases:
            self.strong.setdefault(feature, []).append(index)
        for feature in base.body | base.aliases | base.quoted:
            self.df[feature] = self.df.get(feature, 0) + 1
        if self._dense is not None:
            self._dense.link(row, base)

    @property
    def use_dense(self) -> bool:
        """Whether the next query bounds its candidates over arrays."""
        if self.dense_wanted is not None:
            return self.dense_wanted
        return self.live >= DENSE_MIN and self.served >= DENSE_AFTER

    def dense(self) -> Dense:
        """The corpus's arrays (built on first use)."""
        if self._dense is None:
            self._dense = Dense(self.pairs, self.alive)
        return self._dense

    def stats(self, plan: QueryPlan) -> Stats:
        """The weights' statistics for ``plan`` over every recallable learned claim."""
        wanted = (*plan.focus, *plan.context)
        return Stats(self.live, {f: self.df[f] for f in wanted if f in self.df})

    def possible(self, plan: QueryPlan, stats: Stats) -> list[int]:
        """Claims with enough strong matches, every literal, and either a feature that
        could name them (a literal, or one rare in the store) or a coverage that could
        reach the threshold: at most their strong matches' weight plus 0.25 (the largest
        weak field factor) of every other focus feature's weight."""
        return sorted(index for _bound, index in self.bounded(plan, stats))

    def bounded(self, plan: QueryPlan, stats: Stats, cutoff: float = 0.0,
                generators: Sequence[str] | None = None) -> list[tuple[float, int]]:
        """:meth:`possible`'s claims, each with an upper bound of its relevance (the same
        sum of weight x field factor as recall's, focus and context, over the focus
        weight, times the length norm; ``origin`` counted for every feature).

        Only the postings of :meth:`generators` are walked (rare terms first; the
        common-word tail is checked by membership on the claims found, never walked).
        With ``cutoff``, claims whose bound is below it are left out too; ``generators``
        (default :meth:`generators`) names the postings walked."""
        weights = [(feature, stats.weight(feature)) for feature in plan.focus]
        # recall's gates: three or more focus features need two strong matches, and so
        # does a query with a word the store has never seen
        unknown = any(not stats.df.get(f) and not is_generic(f) for f in plan.focus)
        need = 2 if len(plan.focus) >= 3 or unknown else 1
        context = [(f, stats.weight(f) * CONTEXT_WEIGHT) for f in plan.context
                   if f not in plan.focus]
        total = sum(w for _f, w in weights) or 1.0
        naming = {f for f in set(plan.focus) if is_literal(f) or stats.rare(f)}
        floor = COVERAGE_TO_QUALIFY * total
        walked = (self.generators(plan, stats, cutoff) if generators is None
                  else list(generators))
        # a cheap first pass: each claim's strong weight from the walked features, plus
        # at most all of the others' (never walked), bounds its coverage and relevance;
        # only the claims that bound cannot rule out get the exact pass below
        mass: dict[str, float] = {}
        for feature, w in weights:
            mass[feature] = mass.get(feature, 0.0) + w
        tail = sum(m for f, m in mass.items() if f not in walked)
        # a naming feature left unwalked may name a claim found through another: then the
        # coverage bound cannot rule anything out here (the exact pass decides)
        tail_names = any(f in naming for f in mass if f not in walked)
        reach_context = sum(w for _f, w in context)
        pool: dict[int, float] = {}
        named_pool: set[int] = set()
        for feature in walked:
            postings = self.strong.get(feature, ())
            w = mass.get(feature, 0.0)
            get = pool.get
            for index in postings:
                pool[index] = get(index, 0.0) + w
            if feature in naming:
                named_pool.update(postings)
        alias_f, quoted_f, origin_f = _ALIAS, _WEAK, _ORIGIN
        chosen = []
        for index, found in pool.items():
            most = found + tail
            reach = most + _WEAK * (total - most)
            if not tail_names and index not in named_pool and reach < floor - _EPSILON:
                continue
            if (reach + reach_context) / total + _EPSILON < cutoff:
                continue
            base = self.pairs[index][1]
            body, aliases = base.body, base.aliases
            n = 0
            strong = score = 0.0
            named = False
            for feature, w in weights:
                if feature in body:
                    score += w
                elif feature in aliases:
                    score += w * alias_f
                else:
                    if feature in base.quoted:
                        score += w * quoted_f
                    elif feature in base.origin_features:
                        score += w * origin_f
                    continue
                n += 1
                strong += w
                named = named or feature in naming
            if n < need:
                continue
            if any(lit not in body and lit not in aliases for lit in plan.literals):
                continue
            if not named and strong + _WEAK * (total - strong) < floor:
                continue
            for feature, w in context:
                if feature in body:
                    score += w
                elif feature in aliases:
                    score += w * alias_f
                elif feature in base.quoted:
                    score += w * quoted_f
                elif feature in base.origin_features:
                    score += w * origin_f
            norm = 0.8 + 0.2 * min(1.0, 12 / max(1, base.body_count))
            bound = score / total * norm + _EPSILON
            if bound >= cutoff:
                chosen.append((bound, index))
        return chosen

    def generators(self, plan: QueryPlan, stats: Stats, cutoff: float = 0.0) -> list[str]:
        """The focus features whose postings hold every claim :meth:`possible` can keep
        with a relevance of at least ``cutoff``.

        With a literal, a kept claim holds every literal: the literal with the shortest
        postings alone. Otherwise the common features are left out, most common first,
        while a claim whose strong matches are all among them is cut whatever it holds:

        - by the coverage bound (its strong weight is at most theirs, the bound grows with
          the strong weight): only while none of them could name a claim (literal, rare);
        - or by ``cutoff``: its relevance is at most their weight, plus 0.25 of the other
          focus features' and all of the context's, over the focus weight.

        So the long postings of the common-word tail are never walked."""
        if plan.literals:
            return [min(plan.literals, key=lambda f: len(self.strong.get(f, ())))]
        weights = [(feature, stats.weight(feature)) for feature in plan.focus]
        total = sum(w for _f, w in weights) or 1.0
        floor = COVERAGE_TO_QUALIFY * total - _EPSILON
        context = sum(stats.weight(f) * CONTEXT_WEIGHT for f in plan.context
                      if f not in plan.focus)
        naming = {f for f, _w in weights if is_literal(f) or stats.rare(f)}
        mass: dict[str, float] = {}
        for feature, w in weights:
            mass[feature] = mass.get(feature, 0.0) + w
        common = sorted(mass, key=lambda f: (-len(self.strong.get(f, ())), f))

        def walked(by_cutoff: bool) -> list[str]:
            tail = 0.0  # strong weight a claim can get from the features left out
            tail_names = False
            chosen = []
            for feature in common:
                reach = tail + mass[feature]
                names = tail_names or feature in naming
                bound = reach + _WEAK * (total - reach)
                if (not names and bound < floor) or (
                        by_cutoff and (bound + context) / total < cutoff - _EPSILON):
                    tail, tail_names = reach, names
                else:
                    chosen.append(feature)
            return sorted(chosen)

        by_coverage = walked(False)
        if cutoff <= 0.0:
            return by_coverage
        return min(by_coverage, walked(True), key=self._postings)

    def _postings(self, features: Sequence[str]) -> int:
        return sum(len(self.strong.get(f, ())) for f in features)


#: the largest weak field factor (a quoted question; the origin counts less)
_WEAK: Final = FIELD_FACTORS["quoted"]
_ALIAS: Final = FIELD_FACTORS["aliases"]
_ORIGIN: Final = FIELD_FACTORS["origin"]
#: float slack for bounds compared with sums added in another order
_EPSILON: Final = 1e-9
#: queries a large corpus serves by the Python pass before it builds its arrays
DENSE_AFTER: Final = 2
#: candidates scored at a time while looking for the best eligible relevance
_CHUNK: Final = 16
#: up to this many postings (or candidates) are scored without looking for a bound first
_SHORT: Final = 48


def rank(plan: QueryPlan, rows: Sequence[tuple[ClaimRow, Candidate]] | Corpus, now: str, *,
         automatic: bool, admits: Callable[[Candidate], bool] | None = None,
         limit: int | None = None) -> RecallResult:
    """Score the claims of ``rows`` (a :class:`Corpus`, or pairs of a claim and its base
    candidate) that the gates could let through (:meth:`Corpus.possible`) for ``plan``.

    The gates and the relative cutoff never look at the factors, so candidates are gated
    on relevance alone and the factors are computed only for the eligible ones, whose rank
    (relevance x freshness x evidence x utility x accuracy) then orders them with the same
    key as :func:`waymarks.recall.scoring.score_all`.

    Only the claims that can survive the relative cutoff are scored in full: each possible
    claim's relevance bound (:meth:`Corpus.bounded`) orders them; scoring in that order
    until no bound is above the best eligible relevance found gives the best, and a claim
    whose bound is below 75% of it is cut whatever the gates say. Dormancy and egress are
    checked only for the claims reached.

    A large corpus (:attr:`Corpus.use_dense`) computes the bounds over arrays
    (:mod:`.evolution_rank_dense`); there ``limit`` bounds the work: the eligible list then
    starts with exactly the ``limit`` best by rank (as the full ranking's does), and holds
    only some of the eligible claims below them (without ``limit``: all of them)."""
    corpus = rows if isinstance(rows, Corpus) else Corpus(rows)
    dense = corpus.use_dense
    corpus.served += 1
    stats = corpus.stats(plan)
    plan = settle(plan, stats)  # (as recall reads it: "frontend/backend", a kind named)
    now_s = parse_time(now) or 0.0
    memo = stats.memoized((*plan.focus, *plan.context))
    by_id: dict[str, ClaimRow] = {}

    def keep(index: int) -> Candidate | None:
        row, base = corpus.pairs[index]
        if automatic and _dormant(row, now_s):
            return None
        if admits is not None and not admits(base):
            return None
        by_id[base.id] = row
        return base

    def best_of(order: list[tuple[float, int]], best: float) -> float:
        """The best eligible relevance in ``order`` (by bound, best first), or ``best``:
        scored a chunk at a time until no bound is above the best found."""
        reached = 0
        while reached < len(order) and order[reached][0] >= best:
            chunk = [c for _b, i in order[reached:reached + _CHUNK]
                     if (c := keep(i)) is not None]
            reached += _CHUNK
            best = max([best, *(s.relevance for s in evaluate(plan, chunk, stats).eligible)])
        return best

    def by_bound(pairs: list[tuple[float, int]]) -> list[tuple[float, int]]:
        return sorted(pairs, key=lambda pair: (-pair[0], pair[1]))

    if dense:
        arrays = corpus.dense()

        def keep_dense(index: int) -> Candidate | None:  # keep, dormancy from the arrays
            if automatic and arrays.asleep(index, now_s):
                return None
            row, base = corpus.pairs[index]
            if admits is not None and not admits(base):
                return None
            by_id[base.id] = row
            return base

        def rank_of(item: Scored) -> float:
            aged, _ = with_factors(item.candidate, by_id[item.candidate.id], now)
            return (item.relevance * aged.freshness * aged.evidence_weight * aged.utility
                    * aged.accuracy)

        scored: dict[str, Scored] = {}  # each claim scored once in this query

        def gated(chunk: list[Candidate]) -> list[Scored]:
            fresh = [c for c in chunk if c.id not in scored]
            for item in ranked(plan, fresh, memo):
                scored[item.candidate.id] = item
            # in the order recall's scorer gives them (the first best decides ties)
            return sorted((s for c in chunk if (s := scored[c.id]).eligible), key=_order)

        chosen = dense_candidates(arrays, plan, memo, now_s, keep_dense, rank_of, limit,
                                  gated)
        # a claim the gates already rejected is not scored again: it is in the result as
        # scored (the cutoff and the final order never change a rejected claim)
        rejected = [s for c in chosen if (s := scored.get(c.id)) is not None
                    and not s.eligible]
        chosen = [c for c in chosen if (s := scored.get(c.id)) is None or s.eligible]
        return _finish(plan, stats, chosen, by_id, now, rejected)
    # a lower bound of the best first, from the rarest feature's claims (an eligible
    # claim's relevance is at most the best): it raises the cutoff that the generators
    # and the bounds apply, so the common words' long postings are not walked. A query
    # whose postings are short anyway skips it (and scores its few claims at once).
    loose = corpus.generators(plan, memo)
    lower = 0.0
    if corpus._postings(loose) > _SHORT:
        rarest = min((f for f in loose if f in corpus.strong), default=None,
                     key=lambda f: (len(corpus.strong[f]), f))
        if rarest is not None:
            lower = best_of(by_bound(corpus.bounded(plan, memo, generators=[rarest])), 0.0)
        order = by_bound(corpus.bounded(plan, memo, RELATIVE_CUTOFF * lower - _EPSILON))
    else:
        order = corpus.bounded(plan, memo, generators=loose)
    if len(order) > _SHORT:
        best = best_of(order, lower)
        floor = RELATIVE_CUTOFF * best - _EPSILON
    else:
        floor = 0.0
    chosen = [c for bound, i in sorted(order, key=lambda pair: pair[1])
              if bound >= floor and (c := keep(i)) is not None]
    return _finish(plan, stats, chosen, by_id, now)


def _order(s: Scored) -> tuple[bool, float, float, int, str]:
    """Recall's order of scored claims (:func:`waymarks.recall.scoring.score_all`)."""
    return (not s.eligible, -s.rank, -s.relevance, -s.candidate.created_at, s.candidate.id)


def _finish(plan: QueryPlan, stats: Stats, chosen: list[Candidate],
            by_id: dict[str, ClaimRow], now: str,
            rejected: Sequence[Scored] = ()) -> RecallResult:
    """Score ``chosen`` in full, then order the eligible by their rank with the factors
    (``rejected``: claims scored already and rejected by the gates, kept as they are)."""
    result = evaluate(plan, chosen, stats)
    scored = list(rejected)
    for item in result.scored:
        if item.eligible:
            aged, _ = with_factors(item.candidate, by_id[item.candidate.id], now)
            item = replace(item, candidate=aged, rank=item.relevance * aged.freshness
                           * aged.evidence_weight * aged.utility * aged.accuracy)
        scored.append(item)
    scored.sort(key=_order)
    return replace(result, scored=scored)
