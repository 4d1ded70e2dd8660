"""A warm process's ranking corpus follows writes instead of being rebuilt (service
.evolution_corpus, Corpus.update, Dense.link/unlink/refresh).

The property that must hold: after any change, ranking with the corpus brought up to date
in place gives exactly (float for float) what a corpus built afresh from the same claims
gives, on the array path and on the Python pass. Checked two ways: on random corpora
changed at random (claims removed, added, given new factors), and through the real
service in one process (learned claims, feedback, a quarantine, a forget, a pin, a
re-derivation that only confirms, an undo, a new claim), each compared with a fresh
corpus built from the same projection."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import StepClock
from tests.evolution.test_aging import learn
from tests.evolution.test_rank import NOW, WORDS, _row
from tests.evolution.test_rank_candidates import RARE, _query, _store
from tests.lanes import lanes
from waymarks.core.model_port import ModelReply
from waymarks.core.records import replace
from waymarks.recall.plan import direct_plan, plan_query
from waymarks.service import evolution_analysis as ea
from waymarks.service import evolution_rank as er
from waymarks.service import evolution_recall
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_edits import feedback, forget, pin, undo

DATES = ["2024-01-01T00:00:00.000Z", "2026-06-01T00:00:00.000Z", "2026-11-28T00:00:00.000Z"]


def _ranked(corpus: er.Corpus, plan: object, automatic: bool,
            limit: int | None) -> list[tuple[str, float, float]]:
    result = er.rank(plan, corpus, NOW, automatic=automatic, limit=limit)  # type: ignore[arg-type]
    got = [(s.candidate.id, s.rank, s.relevance) for s in result.eligible]
    return got[:limit] if limit is not None else got


def _by_id(corpus: er.Corpus, plan: object) -> dict[str, float]:
    dense = corpus.dense()
    stats = corpus.stats(plan)  # type: ignore[arg-type]
    indices, bounds = dense.bounded(plan, stats)  # type: ignore[arg-type]
    return {dense.ids[i]: b for i, b in zip(indices.tolist(), bounds.tolist(), strict=True)}


def _change(rng: random.Random, corpus: er.Corpus, serial: int
            ) -> tuple[list[tuple[object, object]], list[str]]:
    """A random write: some claims leave, some get new factors, some are new."""
    live = [pair for pair in corpus.live_pairs()]
    removed = [base.id for _row, base in rng.sample(live, rng.randint(0, 4))]
    changed = []
    for row, _base in rng.sample(live, rng.randint(0, 6)):
        if row.id in removed:
            continue
        row = replace(row, reinforced_at=rng.choice(DATES), pinned=rng.random() < 0.3,
                      utility=rng.choice([None, ("useful", "m", NOW), ("unhelpful", "m", NOW)]),
                      accuracy=rng.choice([None, ("accurate", "a", NOW)]))
        changed.append((row, ea.base_candidate(row, None, 0)))
    for i in range(rng.randint(0, 5)):
        words = rng.sample(WORDS, rng.randint(1, 5))
        if rng.random() < 0.2:
            words.append(rng.choice(RARE))
        row = _row(10_000 + serial * 10 + i, words, rng.randrange(4), rng.randrange(3),
                   rng.randrange(3), rng.choice(["summary", "user_statement"]))
        changed.append((row, ea.base_candidate(row, None, 0)))
    return changed, removed  # type: ignore[return-value]


@lanes(quick=1, long=12)
def test_a_corpus_updated_in_place_ranks_as_a_fresh_one_float_for_float(examples: int) -> None:
    compared = updates = 0
    for seed in range(examples):
        rng = random.Random(7_000 + seed)
        warm = _store(rng)
        warm.dense_wanted = True
        warm.dense()  # the arrays exist before the changes: they must follow them
        for serial in range(8):
            changed, removed = _change(rng, warm, serial)
            if not warm.update(changed, removed):  # type: ignore[arg-type]
                break  # too many emptied slots: the caller builds afresh
            updates += 1
            fresh = er.Corpus(warm.live_pairs(), dense=True)
            python = er.Corpus(warm.live_pairs(), dense=False)
            assert warm.df == fresh.df and len(warm) == len(fresh)
            assert {f: sorted(warm.pairs[i][1].id for i in p) for f, p in warm.strong.items()} \
                == {f: sorted(fresh.pairs[i][1].id for i in p) for f, p in fresh.strong.items()}
            for _ in range(6):
                words = _query(rng)
                plan = (plan_query(" ".join(words[:2]) + "?", [" ".join(rng.sample(WORDS, 3))])
                        if rng.random() < 0.4 else direct_plan(" ".join(words)))
                assert _by_id(warm, plan) == _by_id(fresh, plan)  # bit-identical bounds
                automatic = rng.random() < 0.5
                assert _ranked(warm, plan, automatic, None) == \
                    _ranked(fresh, plan, automatic, None) == \
                    _ranked(python, plan, automatic, None)
                for limit in (1, 3, 16):
                    assert _ranked(warm, plan, automatic, limit) == \
                        _ranked(fresh, plan, automatic, limit)
                compared += 1
    assert updates >= 5 * examples and compared >= 30 * examples


def test_too_many_emptied_slots_ask_for_a_fresh_corpus() -> None:
    corpus = _store(random.Random(5))
    live = corpus.live_pairs()
    assert corpus.update([], [base.id for _r, base in live[:10]])
    assert not corpus.update([], [base.id for _r, base in live[10:10 + len(live) // 2]])


CLAIMS = [("fact", "The kamal deploy of the api runs on port 8080"),
          ("decision", "We deploy with kamal and keep capistrano out"),
          ("preference", "Staging deploys happen on friday after the release"),
          ("fact", "The redis cache timeout is 30 seconds in staging"),
          ("project_state", "The postgres migration for the deploy is half done"),
          ("fact", "Alice owns the kamal deploy configuration"),
          ("decision", "The release owner signs off every staging deploy"),
          ("fact", "The api cache uses redis with a 8080 health port"),
          ("preference", "Tabs not spaces in the deploy scripts"),
          ("fact", "uv manages the python environment of the api")]
QUERIES = ["kamal deploy port", "who owns the deploy", "redis cache timeout",
           "staging release friday", "postgres migration deploy", "api health port"]
PAST = "2026-11-20T00:00:00.000Z"
LATER = "2026-11-29T00:00:00.000Z"


def _results(home: Path) -> list[list[tuple[str, float]]]:
    out = []
    for query in QUERIES:
        for automatic in (False, True):
            result = evolution_recall.recall_learned(home, query, automatic=automatic,
                                                     now=NOW)
            out.append([(s.candidate.id, s.rank) for s in result.eligible[:16]])
    return out


def _fresh(home: Path) -> list[list[tuple[str, float]]]:
    """What a corpus built now from the projection ranks (the warm one is put back)."""
    warm = dict(evolution_recall._CORPORA)
    evolution_recall._CORPORA.clear()
    try:
        return _results(home)
    finally:
        evolution_recall._CORPORA.clear()
        evolution_recall._CORPORA.update(warm)


@pytest.mark.slow
def test_one_process_follows_every_kind_of_write_without_a_rebuild(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(er, "DENSE_MIN", 4)  # the array path, with a handful of claims
    evolution_recall._CORPORA.clear()
    ids = {content: learn(home, str(project), {"kind": kind, "content": content,
                                               "searchTerms": []}, PAST)
           for kind, content in CLAIMS}
    first = _results(home)
    cached = evolution_recall._CORPORA[str(home)]
    corpus = cached.corpus
    assert corpus._dense is not None and any(first)  # warm: arrays built
    dense = corpus._dense
    contents = [c for _k, c in CLAIMS]
    writes = []

    def check(what: str) -> None:
        got = _results(home)
        assert evolution_recall._CORPORA[str(home)].corpus is corpus, what  # no rebuild
        assert corpus._dense is dense, what
        assert got == _fresh(home), what
        writes.append(what)

    with Evolution(home) as evo:
        assert feedback(evo, ids[contents[0]], "unhelpful").ok
    check("feedback")
    with Evolution(home) as evo:
        quarantined = feedback(evo, ids[contents[5]], "incorrect")
        assert quarantined.ok
    check("incorrect")
    with Evolution(home) as evo:
        assert forget(evo, ids[contents[3]]).ok
    check("forget")
    with Evolution(home) as evo:
        assert pin(evo, ids[contents[4]], True).ok
    check("pin")
    with Evolution(home, clock=StepClock(datetime(2026, 11, 29, tzinfo=UTC))) as evo:
        # the same content derived again: a confirmation (its stamp moves), not an event
        src = evo.capture(str(project), "statement", f"Again: {contents[7]}", session="s",
                          key="again")
        assert src is not None
        reply = {"claims": [{"kind": "fact", "content": contents[7], "searchTerms": []}]}
        assert evo.apply(src.source_id, ModelReply(json.dumps(reply), "f", "m"),
                         LATER).code == "no_change"
        confirmed = evo.store.view.claim(ids[contents[7]])
        assert confirmed is not None and confirmed.reinforced_at.startswith("2026-11-29")
    check("confirm")
    with Evolution(home) as evo:
        assert quarantined.event is not None and undo(evo, quarantined.event).ok
    check("undo")
    learn(home, str(project), {"kind": "fact", "content": "The kamal deploy port moved to 9090",
                               "searchTerms": ["kamal port"]}, LATER)
    check("new claim")
    assert cached.deltas == len(writes) == 7
    assert _results(home) != first  # the writes changed the ranking (and it followed)
