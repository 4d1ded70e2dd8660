"""Bounded candidate generation for learned-claim ranking (service.evolution_rank).

The new generator walks only the postings of the rarer focus features (and, once a lower
bound of the best is known, only what can survive the relative cutoff). These tests hold
it to the old scan, which walked every focus feature's postings: the same candidates
where the old gates apply unchanged, only claims the gates reject anyway dropped where
the query has a word the store has never seen, and exactly the reference ranking for
queries with history (context features) and literals too."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.evolution.test_rank import NOW, WORDS, _reference, _row
from waymarks.recall.analysis import is_literal
from waymarks.recall.plan import direct_plan, plan_query
from waymarks.recall.scoring import COVERAGE_TO_QUALIFY, QueryPlan, Stats
from waymarks.service import evolution_analysis as ea
from waymarks.service import evolution_rank as er

RARE = ["zebrafish", "quokka", "/srv/one.toml", "ledgerline", "tiramisu"]
UNSEEN = ["xylophone", "marzipan"]


def _old_possible(corpus: er.Corpus, plan: QueryPlan, stats: Stats) -> list[int]:
    """The scan before bounded generation: every focus feature's postings counted."""
    need = 2 if len(plan.focus) >= 3 else 1
    weights = [(feature, stats.weight(feature)) for feature in plan.focus]
    total = sum(w for _f, w in weights) or 1.0
    counts: Counter[int] = Counter()
    for feature, _w in weights:
        counts.update(corpus.strong.get(feature, ()))
    naming: set[int] = set()
    for feature in set(plan.focus):
        if is_literal(feature) or stats.rare(feature):
            naming.update(corpus.strong.get(feature, ()))
    floor = COVERAGE_TO_QUALIFY * total
    chosen = []
    for index, n in counts.items():
        if n < need:
            continue
        if index not in naming:
            base = corpus.pairs[index][1]
            strong = sum(w for f, w in weights if f in base.body or f in base.aliases)
            if strong + 0.25 * (total - strong) < floor:
                continue
        chosen.append(index)
    for literal in plan.literals:
        holding = set(corpus.strong.get(literal, ()))
        chosen = [index for index in chosen if index in holding]
    return sorted(chosen)


def _store(rng: random.Random) -> er.Corpus:
    ea._CACHE.clear()
    vocabulary = WORDS + RARE
    rows = []
    for i in range(rng.randint(120, 360)):
        words = rng.sample(WORDS, rng.randint(1, 5))
        if rng.random() < 0.04:
            words.append(rng.choice(RARE))
        rows.append(_row(i, words, rng.randrange(4), rng.randrange(3), rng.randrange(3),
                         rng.choice(["summary", "user_statement", "manual_correction"])))
    assert vocabulary
    return er.Corpus([(r, ea.base_candidate(r, None, 0)) for r in rows])


def _query(rng: random.Random) -> list[str]:
    words = rng.sample(WORDS, rng.randint(1, 5))
    if rng.random() < 0.3:
        words.append(rng.choice(RARE))
    if rng.random() < 0.15:
        words.append(rng.choice(UNSEEN))
    rng.shuffle(words)
    return words


@pytest.mark.slow
def test_generation_keeps_the_old_candidates_and_drops_only_what_the_gates_reject() -> None:
    same = narrower = walked_less = 0
    for seed in range(30):
        rng = random.Random(seed)
        corpus = _store(rng)
        for _ in range(20):
            plan = direct_plan(" ".join(_query(rng)))
            stats = corpus.stats(plan)
            old = _old_possible(corpus, plan, stats)
            new = corpus.possible(plan, stats)
            if new == old:
                same += 1
            else:
                # only a query with an unseen word: one strong match is never enough then
                assert set(new) < set(old)
                assert any(not stats.df.get(f) for f in plan.focus)
                dropped = [corpus.pairs[i][1].id for i in set(old) - set(new)]
                ranked = {i for i, _r in _reference(corpus.pairs, plan, False)}
                assert ranked.isdisjoint(dropped)
                narrower += 1
            generators = corpus.generators(plan, stats)
            walked_less += len(generators) < len(set(plan.focus))
    assert same > 400 and narrower > 0 and walked_less > 0


@pytest.mark.slow
def test_ranking_equals_the_reference_with_history_literals_and_unseen_words() -> None:
    checked = 0
    for seed in range(30):
        rng = random.Random(100 + seed)
        corpus = _store(rng)
        for _ in range(12):
            words = _query(rng)
            if rng.random() < 0.5:
                history = [" ".join(rng.sample(WORDS + RARE, 3))]
                plan = plan_query(" ".join(words[:2]) + "?", history)
            else:
                plan = direct_plan(" ".join(words))
            automatic = rng.random() < 0.5
            fast = er.rank(plan, corpus, NOW, automatic=automatic)
            assert [(s.candidate.id, round(s.rank, 9)) for s in fast.eligible] == \
                _reference(corpus.pairs, plan, automatic)
            checked += 1
    assert checked == 360


def test_the_cutoff_generators_never_walk_more_than_the_coverage_ones() -> None:
    tighter = 0
    rng = random.Random(7)
    corpus = _store(rng)
    for _ in range(50):
        plan = direct_plan(" ".join(_query(rng)))
        stats = corpus.stats(plan)
        loose = set(corpus.generators(plan, stats))
        tight = set(corpus.generators(plan, stats, 0.6))
        assert sum(len(corpus.strong.get(f, ())) for f in tight) <= \
            sum(len(corpus.strong.get(f, ())) for f in loose)
        tighter += tight != loose
    assert tighter > 0  # the cutoff did leave common words out


@pytest.mark.slow
def test_the_array_bounds_equal_the_python_pass_bit_for_bit() -> None:
    """A large corpus bounds its candidates over arrays (evolution_rank_dense): the same
    claims, with the same floating-point bounds, as the Python pass walking every focus
    feature; and the same ranking as the full reference."""
    checked = 0
    for seed in range(20):
        rng = random.Random(500 + seed)
        corpus = _store(rng)
        dense = er.Corpus(corpus.pairs, dense=True)
        assert not corpus.use_dense  # small: the Python pass by default
        for _ in range(10):
            words = _query(rng)
            if rng.random() < 0.5:
                plan = plan_query(" ".join(words[:2]) + "?",
                                  [" ".join(rng.sample(WORDS + RARE, 3))])
            else:
                plan = direct_plan(" ".join(words))
            stats = corpus.stats(plan)
            walked = sorted(corpus.bounded(plan, stats, generators=sorted(set(plan.focus))),
                            key=lambda pair: pair[1])
            indices, bounds = dense.dense().bounded(plan, stats)
            assert indices.tolist() == [i for _b, i in walked]
            assert bounds.tolist() == [b for b, _i in walked]
            automatic = rng.random() < 0.5
            assert [(s.candidate.id, round(s.rank, 9)) for s in
                    er.rank(plan, dense, NOW, automatic=automatic).eligible] == \
                _reference(corpus.pairs, plan, automatic)
            checked += 1
    assert checked == 200


@pytest.mark.slow
def test_a_limit_keeps_exactly_the_best_and_scores_less() -> None:
    """With ``limit`` (recall_learned's), the array path scores only enough claims to hold
    the ``limit`` best by rank: they are exactly the full ranking's first ``limit``."""
    compared = fewer = 0
    for seed in range(30):
        rng = random.Random(900 + seed)
        corpus = _store(rng)
        dense = er.Corpus(corpus.pairs, dense=True)
        for _ in range(10):
            plan = direct_plan(" ".join(_query(rng)))
            automatic = rng.random() < 0.5
            full = _reference(corpus.pairs, plan, automatic)
            for limit in (1, 3, 5):
                got = [(s.candidate.id, round(s.rank, 9)) for s in
                       er.rank(plan, dense, NOW, automatic=automatic, limit=limit).eligible]
                assert got[:limit] == full[:limit]
                fewer += len(got) < len(full)
                compared += 1
    assert compared == 900 and fewer > 0


def test_a_one_shot_process_never_builds_the_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arrays cost about as much as a few queries save: a large corpus builds them only
    once it has served ``DENSE_AFTER`` queries, and ranks the same before and after."""
    monkeypatch.setattr(er, "DENSE_MIN", 50)
    rng = random.Random(3)
    corpus = _store(rng)
    assert len(corpus) >= 50
    plans = [direct_plan(" ".join(_query(rng))) for _ in range(er.DENSE_AFTER + 2)]
    for n, plan in enumerate(plans):
        built = corpus._dense is not None
        assert built == (n > er.DENSE_AFTER)  # built by query DENSE_AFTER (0-based)
        full = _reference(corpus.pairs, plan, False)
        got = [(s.candidate.id, round(s.rank, 9)) for s in
               er.rank(plan, corpus, NOW, automatic=False, limit=5).eligible]
        assert got[:5] == full[:5]
    assert corpus._dense is not None


@pytest.mark.slow
def test_scoring_each_claim_once_per_query_changes_no_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The array path scores a claim once per query (a memo over its chunks, and a claim
    the gates rejected is not scored again at the end): every scored claim, its verdict,
    relevance and rank, in order, is what scoring each chunk and the final list afresh
    gives (the path before the memo)."""
    def results() -> list[list[tuple[str, bool, str, float, float]]]:
        out = []
        for seed in range(12):
            rng = random.Random(1_300 + seed)
            corpus = er.Corpus(_store(rng).pairs, dense=True)
            for _ in range(8):
                plan = direct_plan(" ".join(_query(rng)))
                for limit in (None, 3, 16):
                    result = er.rank(plan, corpus, NOW, automatic=rng.random() < 0.5,
                                     limit=limit)
                    out.append([(s.candidate.id, s.eligible, s.reason, s.relevance, s.rank)
                                for s in result.scored])
        return out

    memoized = results()
    original = er.dense_candidates
    monkeypatch.setattr(er, "dense_candidates",
                        lambda *args: original(*args[:7]))  # without the memo
    assert memoized == results()
    assert sum(len(r) for r in memoized) > 1_000


def test_the_arrays_dormancy_is_exactly_the_rows() -> None:
    """The array path reads dormancy from per-slot floats, not from each row: the same
    answer as ``_dormant`` for every claim and time (pinned, undated, in the future,
    past every kind's horizon), before and after the corpus follows a change."""
    from waymarks.core.evolution.aging import parse_time
    from waymarks.core.records import replace as with_

    rng = random.Random(77)
    corpus = _store(rng)
    pairs = []
    for row, base in corpus.pairs:
        pick = rng.random()
        if pick < 0.2:
            row = with_(row, pinned=True)
        elif pick < 0.3:
            row = with_(row, updated_at="not a date")
        elif pick < 0.4:
            row = with_(row, reinforced_at="2031-01-01T00:00:00.000Z")
        pairs.append((row, base))
    corpus = er.Corpus(pairs, dense=True)
    dense = corpus.dense()
    times = [parse_time(t) or 0.0 for t in ("2024-01-02T00:00:00.000Z", NOW,
                                            "2027-06-01T00:00:00.000Z",
                                            "2029-01-01T00:00:00.000Z")]
    for now_s in times:
        assert [dense.asleep(i, now_s) for i in range(len(pairs))] == \
            [er._dormant(row, now_s) for row, _b in pairs]
    row, _base = pairs[0]
    moved = with_(row, pinned=not row.pinned, reinforced_at="2020-01-01T00:00:00.000Z")
    corpus.update([(moved, ea.base_candidate(moved, None, 0))], [])
    index = corpus.position[moved.id]
    assert all(dense.asleep(index, t) == er._dormant(moved, t) for t in times)
    assert sum(dense.asleep(i, times[-1]) for i in range(len(pairs))) > 0
