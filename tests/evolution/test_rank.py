"""Ranking learned claims (service.evolution_rank): scoring only the claims the gates could
let through, with factors computed after the gates, selects and orders exactly as scoring
every claim with its factors does (property test), and the factors reorder what is
relevant without making anything relevant."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymarks.core.evolution.model import claim_id
from waymarks.core.evolution.rows import ClaimRow
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats
from waymarks.service import evolution_analysis as ea
from waymarks.service import evolution_rank as er

WORDS = ["kamal", "deploy", "staging", "port", "8080", "postgres", "tabs", "redis", "cache",
         "/etc/app.toml", "release", "friday", "owner", "alice", "timeout", "uv"]
KINDS = ["fact", "preference", "decision", "project_state"]
DATES = ["2024-01-01T00:00:00.000Z", "2026-06-01T00:00:00.000Z", "2026-11-28T00:00:00.000Z"]
NOW = "2026-12-01T00:00:00.000Z"
SLOTS = [None, ("useful", "m", NOW), ("unhelpful", "m", NOW)]


def _row(i: int, words: list[str], kind: int, date: int, slot: int, basis: str) -> ClaimRow:
    content = f"The {' '.join(words)} note {i}"
    return ClaimRow(claim_id("/w", KINDS[kind], content), "/w", KINDS[kind], content,
                    "provisional", basis, "model", f"s{i}", DATES[date], i + 1,
                    utility=SLOTS[slot])


rows_st = st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5),
                             st.integers(0, 3), st.integers(0, 2), st.integers(0, 2),
                             st.sampled_from(["summary", "user_statement",
                                              "manual_correction"])),
                   min_size=1, max_size=25)
query_st = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(rows_st, query_st, st.booleans())
@pytest.mark.slow
def test_the_prefilter_is_exact(spec: list[tuple[list[str], int, int, int, str]],
                                words: list[str], automatic: bool) -> None:
    ea._CACHE.clear()
    rows = [_row(i, *item) for i, item in enumerate(spec)]
    pairs = [(r, ea.base_candidate(r, None, 0)) for r in rows]
    plan = direct_plan(" ".join(words))
    fast = er.rank(plan, pairs, NOW, automatic=automatic)
    # reference: every claim with its factors, scored and gated by recall itself
    aged = [er.with_factors(b, r, NOW) for r, b in pairs]
    kept = [c for c, dormant in aged if not (automatic and dormant)]
    wanted = set((*plan.focus, *plan.context))
    df: dict[str, int] = {}
    for _r, b in pairs:
        for f in wanted & (b.body | b.aliases | b.quoted):
            df[f] = df.get(f, 0) + 1
    slow = evaluate(plan, kept, Stats(len(pairs), df))
    assert [(s.candidate.id, round(s.rank, 9)) for s in fast.eligible] == [
        (s.candidate.id, round(s.rank, 9)) for s in slow.eligible]


def test_factors_reorder_but_never_make_relevant() -> None:
    ea._CACHE.clear()
    fresh = _row(1, ["kamal", "deploy"], 1, 2, 0, "manual_correction")
    stale = _row(2, ["kamal", "deploy"], 0, 1, 2, "summary")
    other = _row(3, ["redis", "cache"], 1, 2, 1, "manual_correction")
    pairs = [(r, ea.base_candidate(r, None, 0)) for r in (stale, fresh, other)]
    result = er.rank(direct_plan("kamal deploy"), pairs, NOW, automatic=False)
    assert [s.candidate.id for s in result.eligible] == [fresh.id, stale.id]
    assert result.eligible[0].candidate.freshness > result.eligible[1].candidate.freshness
    auto = er.rank(direct_plan("kamal deploy"), pairs, NOW, automatic=True)
    assert [s.candidate.id for s in auto.eligible] == [fresh.id]  # the stale fact is dormant


def _reference(pairs: list[tuple[ClaimRow, object]], plan: object, automatic: bool) -> list:
    aged = [er.with_factors(b, r, NOW) for r, b in pairs]  # type: ignore[arg-type]
    kept = [c for c, dormant in aged if not (automatic and dormant)]
    wanted = set((*plan.focus, *plan.context))  # type: ignore[attr-defined]
    df: dict[str, int] = {}
    for _r, b in pairs:
        for f in wanted & (b.body | b.aliases | b.quoted):  # type: ignore[attr-defined]
            df[f] = df.get(f, 0) + 1
    slow = evaluate(plan, kept, Stats(len(pairs), df))  # type: ignore[arg-type]
    return [(s.candidate.id, round(s.rank, 9)) for s in slow.eligible]


@pytest.mark.slow
def test_the_prefilter_is_exact_on_larger_stores_where_words_are_common() -> None:
    """Stores of 150-400 claims over a small vocabulary, so most features are common and
    the coverage bound (not only rarity) decides what is scored."""
    import random

    checked = pruned = 0
    for seed in range(40):
        rng = random.Random(seed)
        ea._CACHE.clear()
        rows = [_row(i, rng.sample(WORDS, rng.randint(1, 6)), rng.randrange(4),
                     rng.randrange(3), rng.randrange(3),
                     rng.choice(["summary", "user_statement"]))
                for i in range(rng.randint(150, 400))]
        corpus = er.Corpus([(r, ea.base_candidate(r, None, 0)) for r in rows])
        for _ in range(15):
            plan = direct_plan(" ".join(rng.sample(WORDS, rng.randint(1, 5))))
            automatic = rng.random() < 0.5
            fast = er.rank(plan, corpus, NOW, automatic=automatic)
            assert [(s.candidate.id, round(s.rank, 9)) for s in fast.eligible] == \
                _reference(corpus.pairs, plan, automatic)
            stats = corpus.stats(plan)
            loose = sum(1 for _i, n in _strong_counts(corpus, plan).items()
                        if n >= (2 if len(plan.focus) >= 3 else 1))
            pruned += loose - len(corpus.possible(plan, stats))
            checked += 1
    assert checked == 600 and pruned > 0  # the bound did cut candidates, and stayed exact


def _strong_counts(corpus: er.Corpus, plan: object) -> dict[int, int]:
    counts: dict[int, int] = {}
    for feature in plan.focus:  # type: ignore[attr-defined]
        for index in corpus.strong.get(feature, ()):
            counts[index] = counts.get(index, 0) + 1
    return counts
