"""Benchmark: ranking learned claims with read-time aging and feedback (memory evolution II).

For each size (default 1k, 10k, 100k evolved claims) a deterministic generator makes varied
claims (the generator of ``recall_latency.py``), each with a random kind, an evidence date
spread over two years, a confirmation stamp on some, a random evidence basis, and feedback
slots on about 10% (useful/unhelpful/accurate). Each claim is analysed once (the
per-process analysis cache of ``service.evolution_analysis``; its one-time cost is reported).
Then ~300 queries (60% about an existing claim, 40% unrelated to the store) are ranked in
the same warm process, each timed end to end (``perf_counter``):

- ``ranked``: the production path: ``direct_plan`` + ``evolution_rank.rank`` over the
  corpus with ``recall_learned``'s limit, as a warm process runs it (a corpus of 512
  claims or more bounds its candidates over arrays from its third query on,
  ``service.evolution_rank_dense``, and scores only enough to hold the limit's best
  exactly; a smaller one takes main's path);
- ``main``: main's code before this change (the Python candidate pass, every eligible
  claim scored: ``Corpus(..., dense=False)``), on the same queries in the same run;
  ``results_differ`` counts queries whose ``limit`` best differ from main's (must be 0),
  ``exact_differ`` the queries (of a sample) where the array path without a limit gives
  a different eligible list than main's (must be 0);
- ``before``: the ranking before bounded candidate generation (every focus feature's
  postings walked, every possible claim scored), on a sample of queries only;
- ``full_scan``: scoring every claim with factors (the path before the prefilter), on a
  sample of queries only (it is slow at 100k).

Also reported: how often the top claim changes because of the factors (``top_changed``),
the share of queries about a claim whose result holds that claim (``named_hit``), and what
a fresh process pays before it can rank: ``fresh_analyse_s`` analyses every claim (before
migration 13), ``fresh_persisted_s`` reads the persisted analyses from a real SQLite
projection and builds the candidates from them (after), both in this run.
Targets (the architecture issue's plan targets): ranking p99 <= 2 ms at 1k, <= 10 ms at
100k. Not a test; prints one JSON document to stdout.

``--baseline REF`` instead compares the production path of the source tree at ``REF``
(``git archive``, e.g. ``main``) with this tree's, in alternating child processes on the
same queries (CPU beside wall, and the load average), and measures what a warm process
pays to follow a write (``write_follow``: the in-place update against main's rebuild of
the corpus and its arrays, each write's ranking checked against a fresh corpus).

    .venv/bin/python benchmarks/evolution_rank.py [--sizes 1000,10000,100000]
        [--queries 300] [--full-scan-queries 20] [--seed 11] [--baseline main --rounds 2]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench_stats import summary
from recall_latency import UNRELATED, claim
from waymarks.core.evolution.aging import parse_time
from waymarks.core.evolution.model import BASES, KINDS, claim_id
from waymarks.core.evolution.rows import ClaimRow
from waymarks.core.records import replace
from waymarks.recall.analysis import is_literal
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import COVERAGE_TO_QUALIFY, Candidate, Stats
from waymarks.service import evolution_analysis, evolution_rank
from waymarks.service.evolution_rank_dense import DENSE_MIN
from waymarks.service.evolution_recall import RANKED_LIMIT
from waymarks.service.ports import iso
from waymarks.store.evolution import EvolutionStore

NOW = datetime(2026, 12, 1, tzinfo=UTC)
TARGET_P99_MS = {1_000: 2.0, 100_000: 10.0}


def rows_for(size: int, seed: int) -> tuple[list[ClaimRow], list[str]]:
    """``size`` claims with distinct IDs (a projection holds a claim once: the generator's
    repeats of one origin, kind and text are skipped, as capture would merge them)."""
    rng = random.Random(seed)
    rows, about = [], []
    seen: set[str] = set()
    i = -1
    while len(rows) < size:
        i += 1
        text, query = claim(rng, i)
        kind = rng.choice(KINDS)
        updated = NOW - timedelta(days=rng.uniform(0, 730))
        confirmed = "" if rng.random() < 0.7 else iso(updated + timedelta(
            days=rng.uniform(0, (NOW - updated).days or 1)))
        slot = None
        accuracy = None
        if rng.random() < 0.1:
            slot = (rng.choice(["useful", "unhelpful"]), f"m{i}", iso(NOW))
        if rng.random() < 0.05:
            accuracy = ("accurate", f"a{i}", iso(NOW))
        origin = f"/work/project-{i % 40}"
        cid = claim_id(origin, kind, text)
        if cid in seen:
            continue
        seen.add(cid)
        rows.append(ClaimRow(cid, origin, kind, text, "provisional",
                             rng.choice(BASES), "model", f"s{i}", iso(updated), i + 1,
                             search_terms=(), reinforced_at=confirmed, utility=slot,
                             accuracy=accuracy))
        about.append(query)
    return rows, about


def possible_before(corpus: evolution_rank.Corpus, plan: Any, stats: Stats) -> list[int]:
    """Candidate generation before bounded generation: every focus feature's postings."""
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


def rank_before(plan: Any, corpus: evolution_rank.Corpus, now: str) -> Any:
    """The ranking before bounded generation: every possible claim scored (automatic)."""
    stats = corpus.stats(plan)
    now_s = parse_time(now) or 0.0
    chosen: list[Candidate] = []
    by_id = {}
    for index in possible_before(corpus, plan, stats):
        row, base = corpus.pairs[index]
        if evolution_rank._dormant(row, now_s):
            continue
        chosen.append(base)
        by_id[base.id] = row
    result = evaluate(plan, chosen, stats)
    scored = []
    for item in result.scored:
        if item.eligible:
            aged, _ = evolution_rank.with_factors(item.candidate, by_id[item.candidate.id], now)
            item = replace(item, candidate=aged, rank=item.relevance * aged.freshness
                           * aged.evidence_weight * aged.utility * aged.accuracy)
        scored.append(item)
    scored.sort(key=lambda s: (not s.eligible, -s.rank, -s.relevance,
                               -s.candidate.created_at, s.candidate.id))
    return replace(result, scored=scored)


def fresh_costs(rows: list[ClaimRow], pairs: list[tuple[ClaimRow, Candidate]]
                ) -> dict[str, float]:
    """What a fresh process pays for the candidates: analysing every claim, or reading
    the persisted analyses from a real projection (written once here, not timed)."""
    evolution_analysis._CACHE.clear()
    start, cpu = time.perf_counter(), time.process_time()
    for r in rows:
        evolution_analysis.base_candidate(r, None, 0)
    analyse_s, analyse_cpu = time.perf_counter() - start, time.process_time() - cpu
    with tempfile.TemporaryDirectory() as tmp:
        store = EvolutionStore(Path(tmp) / "waymarks.db", 0)
        store.put_analyses([(r.id, evolution_analysis.analysis_of(
                                b, evolution_analysis.analysis_key(r))) for r, b in pairs])
        store.close()
        evolution_analysis._CACHE.clear()
        start, cpu = time.perf_counter(), time.process_time()
        store = EvolutionStore(Path(tmp) / "waymarks.db", 0)
        stored = store.analyses()
        rebuilt = [evolution_analysis.stored_candidate(r, None, 0, stored.get(r.id)) for r in rows]
        persisted_s, persisted_cpu = time.perf_counter() - start, time.process_time() - cpu
        store.close()
    assert all(computed is None for _c, computed in rebuilt)
    assert [c for c, _ in rebuilt] == [b for _r, b in pairs]
    return {"fresh_analyse_s": round(analyse_s, 2), "fresh_persisted_s": round(persisted_s, 2),
            "fresh_analyse_cpu_s": round(analyse_cpu, 2),
            "fresh_persisted_cpu_s": round(persisted_cpu, 2)}


def full_scan(plan: Any, pairs: list[tuple[ClaimRow, Candidate]], now: str) -> Any:
    aged = [evolution_rank.with_factors(base, row, now)[0] for row, base in pairs]
    wanted = frozenset((*plan.focus, *plan.context))
    df: dict[str, int] = {}
    for c in aged:
        for feature in wanted & (c.body | c.aliases | c.quoted):
            df[feature] = df.get(feature, 0) + 1
    return evaluate(plan, aged, Stats(len(aged), df))


def run(size: int, queries: int, scan_queries: int, seed: int) -> dict[str, Any]:
    rows, about = rows_for(size, seed)
    start = time.perf_counter()
    pairs = [(r, evolution_analysis.base_candidate(r, None, 0)) for r in rows]
    analysis_s = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    main_corpus = evolution_rank.Corpus(pairs, dense=False)
    index_s, index_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    # a warm process: a large corpus bounds over arrays from its third query on (built then,
    # once; timed here as dense_index_once); a smaller one takes main's path
    corpus = evolution_rank.Corpus(pairs, dense=True if size >= DENSE_MIN else None)
    if corpus.use_dense:
        corpus.dense()
    dense_s, dense_cpu = time.perf_counter() - start, time.process_time() - cpu
    rng = random.Random(seed + 1)
    mix = []
    for _ in range(queries):
        if rng.random() < 0.6:
            index = rng.randrange(size)
            mix.append((about[index], rows[index].id))
        else:
            mix.append((rng.choice(UNRELATED), ""))
    now = iso(NOW)
    gc.collect()
    gc.freeze()  # the corpus is long-lived: a collection does not walk it per query
    ranked_ms, main_ms, before_ms, scan_ms = [], [], [], []
    hits = named = changed = differ = exact_differ = exact_checked = 0
    ranked_cpu, main_cpu = [], []
    for n, (query, wanted) in enumerate(mix):
        # the two paths alternate which runs first (a shared machine's pauses fall on both)
        for path in ((0, 1) if n % 2 else (1, 0)):
            t0, c0 = time.perf_counter(), time.process_time()
            if path == 0:
                result = evolution_rank.rank(direct_plan(query), corpus, now, automatic=True,
                                             limit=RANKED_LIMIT)
            else:
                main = evolution_rank.rank(direct_plan(query), main_corpus, now,
                                           automatic=True)
            wall, cpu = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
            (ranked_ms if path == 0 else main_ms).append(wall)
            (ranked_cpu if path == 0 else main_cpu).append(cpu)
        differ += [(s.candidate.id, round(s.rank, 9)) for s in
                   result.eligible[:RANKED_LIMIT]] != [
            (s.candidate.id, round(s.rank, 9)) for s in main.eligible[:RANKED_LIMIT]]
        by_relevance = sorted(main.eligible, key=lambda s: (-s.relevance, s.candidate.id))
        changed += main.eligible[:1] != by_relevance[:1]
        if wanted:
            named += 1
            hits += wanted in [s.candidate.id for s in result.eligible[:3]]
        if n < scan_queries:
            exact = evolution_rank.rank(direct_plan(query), corpus, now, automatic=True)
            exact_checked += 1
            exact_differ += [(s.candidate.id, round(s.rank, 9)) for s in exact.eligible] != [
                (s.candidate.id, round(s.rank, 9)) for s in main.eligible]
            t2 = time.perf_counter()
            before = rank_before(direct_plan(query), main_corpus, now)
            before_ms.append((time.perf_counter() - t2) * 1000)
            exact_differ += [s.candidate.id for s in before.eligible] != [
                s.candidate.id for s in main.eligible]
            t3 = time.perf_counter()
            full_scan(direct_plan(query), pairs, now)
            scan_ms.append((time.perf_counter() - t3) * 1000)
    gc.unfreeze()
    target = TARGET_P99_MS.get(size)
    ranked = summary(ranked_ms, 3)
    ranked_c = summary(ranked_cpu, 3)
    return {"claims": size, "analysis_once_s": round(analysis_s, 2),
            "index_once_s": round(index_s, 2), "index_once_cpu_s": round(index_cpu, 2),
            "dense_index_once_s": round(dense_s, 2),
            "dense_index_once_cpu_s": round(dense_cpu, 2), "dense": corpus.use_dense,
            **fresh_costs(rows, pairs),
            "ranked": ranked, "main": summary(main_ms, 3),
            "ranked_cpu": ranked_c, "main_cpu": summary(main_cpu, 3),
            "limit": RANKED_LIMIT, "results_differ": differ,
            "exact_checked": exact_checked, "exact_differ": exact_differ,
            "before": summary(before_ms, 1) if before_ms else None,
            "full_scan": summary(scan_ms, 1) if scan_ms else None,
            "target_p99_ms": target,
            "within_target_cpu": None if target is None else ranked_c["p99_ms"] <= target,
            "within_target_wall": None if target is None else ranked["p99_ms"] <= target,
            "top_changed_by_factors": round(changed / len(mix), 3),
            "named_hit_top3": round(hits / named, 3) if named else None}


def ranked_only(size: int, queries: int, seed: int) -> dict[str, Any]:
    """Only the production path's per-query times (``--ranked-only``: the child process
    of ``--baseline``, run on either source tree), CPU beside wall."""
    rows, about = rows_for(size, seed)
    pairs = [(r, evolution_analysis.base_candidate(r, None, 0)) for r in rows]
    corpus = evolution_rank.Corpus(pairs, dense=True if size >= DENSE_MIN else None)
    if corpus.use_dense:
        corpus.dense()
    rng = random.Random(seed + 1)
    mix = [about[rng.randrange(size)] if rng.random() < 0.6 else rng.choice(UNRELATED)
           for _ in range(queries)]
    now = iso(NOW)
    gc.collect()
    gc.freeze()
    wall, cpu, top = [], [], []
    for query in mix:
        t0, c0 = time.perf_counter(), time.process_time()
        result = evolution_rank.rank(direct_plan(query), corpus, now, automatic=True,
                                     limit=RANKED_LIMIT)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        top.append([(s.candidate.id, round(s.rank, 9)) for s in
                    result.eligible[:RANKED_LIMIT]])
    gc.unfreeze()
    return {"claims": size, "ranked": summary(wall, 3), "ranked_cpu": summary(cpu, 3),
            "top": top, "wall_raw": wall, "cpu_raw": cpu}


def write_follow(size: int, seed: int, writes: int = 20) -> dict[str, Any]:
    """What a warm process pays to follow a write at ``size`` claims: main rebuilt the
    corpus and its arrays (``rebuild``), this code updates them in place
    (``Corpus.update``: one claim with new factors, one new, one gone per write). Every
    write is checked: 12 queries ranked by the updated corpus and by one built afresh
    from the same claims must give the same 16 best, float for float."""
    rows, about = rows_for(size + writes, seed)
    spare = rows[size:]
    pairs = [(r, evolution_analysis.base_candidate(r, None, 0)) for r in rows[:size]]
    corpus = evolution_rank.Corpus(pairs, dense=True)
    corpus.dense()
    rng = random.Random(seed + 2)
    now = iso(NOW)
    follow_wall, follow_cpu, rebuild_wall, rebuild_cpu = [], [], [], []
    differ = checked = 0
    for n in range(writes):
        live = corpus.live_pairs()
        row, _base = live[rng.randrange(len(live))]
        row = replace(row, utility=("unhelpful", f"w{n}", now), reinforced_at=now)
        gone = live[rng.randrange(len(live))][1].id
        changed = [(r, evolution_analysis.base_candidate(r, None, 0)) for r in (row, spare[n])
                   if r.id != gone]
        t0, c0 = time.perf_counter(), time.process_time()
        assert corpus.update(changed, [gone])
        follow_wall.append((time.perf_counter() - t0) * 1000)
        follow_cpu.append((time.process_time() - c0) * 1000)
        if n % 5 == 0:  # main's cost: the corpus and its arrays built again
            t0, c0 = time.perf_counter(), time.process_time()
            fresh = evolution_rank.Corpus(corpus.live_pairs(), dense=True)
            fresh.dense()
            rebuild_wall.append((time.perf_counter() - t0) * 1000)
            rebuild_cpu.append((time.process_time() - c0) * 1000)
            for _ in range(12):
                plan = direct_plan(about[rng.randrange(size)])
                got, want = (
                    [(s.candidate.id, s.rank) for s in evolution_rank.rank(
                        plan, c, now, automatic=True, limit=RANKED_LIMIT
                    ).eligible[:RANKED_LIMIT]] for c in (corpus, fresh))
                differ += got != want
                checked += 1
    return {"claims": size, "writes": writes, "follow_ms": summary(follow_wall, 3),
            "follow_cpu_ms": summary(follow_cpu, 3), "rebuild_ms": summary(rebuild_wall, 1),
            "rebuild_cpu_ms": summary(rebuild_cpu, 1), "queries_checked": checked,
            "results_differ": differ}


def baseline_run(ref: str, sizes: list[int], queries: int, seed: int,
                 rounds: int) -> list[dict[str, Any]]:
    """``--baseline REF``: the production path of the source tree at ``REF`` (exported
    with ``git archive``, never a worktree) against this tree's, each in its own child
    process, alternating (baseline, this, baseline, this, ...), on the same queries; CPU
    beside wall, and how many queries' 16 best differ (must be 0)."""
    import shutil
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    out = []
    with tempfile.TemporaryDirectory(prefix="evolution-rank-base-") as tmp:
        archive = subprocess.run(["git", "-C", str(repo), "archive", ref, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {"baseline": Path(tmp) / "src", "this": repo / "src"}
        for size in sizes:
            runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "this": []}
            for _ in range(rounds):
                for name in ("baseline", "this"):
                    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                        [str(trees[name]), str(repo / "benchmarks")])}
                    done = subprocess.run(
                        [sys.executable, str(Path(__file__).resolve()), "--ranked-only",
                         "--sizes", str(size), "--queries", str(queries), "--seed",
                         str(seed)], capture_output=True, text=True, env=env, check=True)
                    runs[name].append(json.loads(done.stdout))
            entry: dict[str, Any] = {"claims": size, "rounds": rounds}
            for name, found in runs.items():
                wall = [ms for run in found for ms in run["wall_ms"]]
                cpu = [ms for run in found for ms in run["cpu_ms"]]
                entry[name] = {"wall": summary(wall, 3), "cpu": summary(cpu, 3)}
            entry["results_differ"] = sum(
                a != b for x, y in zip(runs["baseline"], runs["this"], strict=True)
                for a, b in zip(x["top"], y["top"], strict=True))
            target = TARGET_P99_MS.get(size)
            entry["target_p99_ms"] = target
            out.append(entry)
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--full-scan-queries", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--baseline", metavar="REF", default=None,
                        help="compare with the source tree at this git ref (e.g. main)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="with --baseline: alternating child runs per tree")
    parser.add_argument("--ranked-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.ranked_only:
        found = ranked_only(sizes[0], args.queries, args.seed)
        # raw times for the parent to pool across rounds
        print(json.dumps({**found, "wall_ms": found.pop("wall_raw", []),
                          "cpu_ms": found.pop("cpu_raw", [])}))
        return 0
    if args.baseline is not None:
        load0 = [round(x, 2) for x in os.getloadavg()]
        start, cpu0 = time.perf_counter(), time.process_time()
        compared = baseline_run(args.baseline, sizes, args.queries, args.seed, args.rounds)
        follow = [write_follow(size, args.seed) for size in sizes if size >= DENSE_MIN]
        print(json.dumps({"benchmark": "evolution_rank", "baseline": args.baseline,
                          "python": platform.python_version(),
                          "load_average_start": load0,
                          "load_average_end": [round(x, 2) for x in os.getloadavg()],
                          "elapsed_s": round(time.perf_counter() - start, 1),
                          "parent_cpu_s": round(time.process_time() - cpu0, 1),
                          "machine": platform.machine(), "now": iso(NOW),
                          "ranking": compared, "write_follow": follow}, indent=2))
        return 0
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        evolution_analysis._CACHE.clear()
        results.append(run(size, args.queries, args.full_scan_queries, args.seed))
    print(json.dumps({"benchmark": "evolution_rank", "python": platform.python_version(),
                      "load_average": [round(x, 2) for x in os.getloadavg()],
                      "machine": platform.machine(), "now": iso(NOW), "sizes": results},
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
