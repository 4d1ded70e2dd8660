"""Benchmark: the prompt-path cost of hybrid recall at 10k memories, beside the lexical path.

The store is ``recall_latency.py``'s synthetic one (same generator, same projection
migrations, so the schema is the one recall reads), in a temporary file database. Vectors:
a sample of ``--embed`` records is embedded with the real model, timed, to give the cost
per stored passage and the projected embedding time of a 10k rebuild (one thread); every
other record gets a deterministic random unit vector, since the cost of comparing does not
depend on the values (answer quality is measured by ``locomo.py``, not here).

Per query, in one process, each timed end to end (``perf_counter``), ~60% of queries about
a stored claim and ~40% unrelated:

- ``lexical``: ``direct_plan`` + ``candidates`` + ``stats`` + ``evaluate`` (today's path);
- ``query_embedding``: the query embedded alone;
- ``hybrid_fresh``: the query embedded + every vector read from SQLite into a matrix +
  cosines + the nearest records fetched + fused ``evaluate`` (what a one-shot process pays
  once the model is loaded);
- ``hybrid_warm``: the same with the matrix held in memory (the warm Claude Code helper,
  MCP server or Pi bridge: :class:`waymarks.service.semantic_memo.VectorMemo`);
- ``lexical_cached`` and ``hybrid_cached``: the lexical path and ``hybrid_warm`` with the
  lexical side answered from the in-memory postings a long-lived process also keeps
  (``RecallCache``, ``keep_recall_index=True``): what the warm helper pays per prompt.

- ``long_prompt``: prompts of at least ``--long-tokens`` tokens (a request, a pasted log),
  embedded whole by the engine (``whole``: what the query cost before it was capped) and
  as recall embeds a query (``capped``: its first ``QUERY_TOKENS`` tokens), same run.
- ``overlapping_prompts``: long prompts the engine reads alike (:func:`overlapping`): a
  request with a pasted log, then with another log past the cut, then capitalised.

Targets (issue 20): p99 <= 25 ms with the semantic extra, <= 5 ms without. Not a test.
Prints one JSON document.

    .venv/bin/python benchmarks/hybrid_cost.py [--size 10000] [--queries 300] [--embed 200]
        [--long-tokens 400]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recall_latency as synthetic
from bench_stats import steal_during, steal_s
from waymarks import semantic
from waymarks.recall.engine import evaluate
from waymarks.recall.fusion import SEMANTIC_CANDIDATES, semantic_side
from waymarks.recall.plan import direct_plan
from waymarks.store.recall_cache import RecallCache
from waymarks.store.recall_index import RecallIndex
from waymarks.store.recall_vectors import VectorStore

EXACT = synthetic.EXACT


def unit_vector(rng: random.Random, dim: int) -> bytes:
    import numpy as np

    values = np.array([rng.gauss(0.0, 1.0) for _ in range(dim)], dtype="<f4")
    return (values / np.linalg.norm(values)).astype("<f4").tobytes()


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 3),
            "p99": round(synthetic.percentile(values, 99), 3),
            "mean": round(statistics.fmean(values), 3)}


def long_prompts(embedder: Any, queries: list[tuple[str, str]], tokens: int,
                 count: int = 20) -> dict[str, Any]:
    """CPU and wall time of embedding ``count`` long prompts whole and capped."""
    from waymarks.semantic import e5

    model = embedder._model  # the engine itself: the whole text, as before the cap
    prompts = []
    for n, (_, query) in enumerate(queries[:count]):
        text, line = query, 0
        while model.token_count(text, True) < tokens:
            text += "".join(f"\nline {line + j}: GET /api/v1/items/{n}-{line + j} 200 in"
                            f" {(line + j) % 17} ms" for j in range(10))
            line += 10
        prompts.append(text)
    out: dict[str, Any] = {"prompts": len(prompts), "query_tokens_cap": e5.QUERY_TOKENS,
                           "tokens_p50": statistics.median(
                               model.token_count(p, True) for p in prompts)}
    for name, embed in (("whole", lambda text: model.query(text)),
                        ("capped", embedder.query)):
        wall, cpu = [], []
        for text in prompts:
            start, cpu_start = time.perf_counter(), time.process_time()
            embed(text)
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - cpu_start) * 1000)
        out[name] = {"latency_ms": summary(wall), "cpu_ms": summary(cpu)}
    return out


def overlapping(embedder: Any, queries: list[tuple[str, str]], count: int = 20
                ) -> dict[str, Any]:
    """CPU and wall time of embedding prompts that the engine reads alike: ``count`` long
    requests (a question and a pasted log), each asked again with another log past the
    cut, and again with the question capitalised (a host that plans the turn, then a tool
    that asks it; an agent that pastes a new log under the same question)."""
    asked = []
    for n, (_, query) in enumerate(dict.fromkeys(q for q in queries[:count * 3])):
        if len(asked) == 3 * count:
            break
        def log(status: int, n: int = n) -> str:  # (the same first lines, then others)
            return "".join(f"\nline {j}: GET /api/v1/items/{n}-{j} {200 if j < 3 else status}"
                           f" in {j % 17} ms" for j in range(40))
        asked += [f"{query} {log(200)}", f"{query} {log(500)}",
                  f"{query.capitalize()} {log(200)}"]
    wall, cpu = [], []
    for text in asked:
        start, cpu_start = time.perf_counter(), time.process_time()
        embedder.query(text)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - cpu_start) * 1000)
    return {"prompts": len(asked), "latency_ms": summary(wall), "cpu_ms": summary(cpu),
            "cpu_total_ms": round(sum(cpu), 1)}


def run(size: int, count: int, sample: int, seed: int,
        long_tokens: int = 400) -> dict[str, Any]:
    embedder = semantic.load()
    if embedder is None:
        raise SystemExit("the semantic extra is not installed (pip install 'waymarks[semantic]')")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        build_s, about = synthetic.build(path, size, seed)
        db = synthetic.open_db(path)
        index = RecallIndex(db, items_backed=False)
        store = VectorStore(db, items_backed=False)
        texts = dict(db.execute("SELECT item_id, text FROM recall_records"))
        ids = sorted(texts)
        rng = random.Random(seed)
        chosen = rng.sample(ids, min(sample, len(ids)))
        start = time.perf_counter()
        real = embedder.passages([texts[i] for i in chosen])
        embed_s = time.perf_counter() - start
        vectors = dict(zip(chosen, real, strict=True))
        db.execute("BEGIN")
        store.put(embedder.model, ((i, texts[i], vectors.get(i) or unit_vector(rng, embedder.dim))
                                   for i in ids))
        db.execute("COMMIT")
        queries = synthetic.query_mix(about, count, seed)
        timings: dict[str, list[float]] = {k: [] for k in (
            "lexical", "query_embedding", "hybrid_fresh", "hybrid_warm", "lexical_cached",
            "hybrid_cached")}
        cpu: dict[str, list[float]] = {k: [] for k in timings}  # process CPU, same spans
        load_before = os.getloadavg()
        steal_before = steal_s()
        held = semantic.new_matrix(embedder.dim)
        held.extend(store.vectors(embedder.model))
        postings = RecallCache(index)
        postings.refresh()
        cached = synthetic._CachedIndex(postings)
        for _, query in queries:
            start, cpu_start = time.perf_counter(), time.process_time()
            plan = direct_plan(query)
            cands = index.candidates(plan)
            stats = index.stats(plan.focus + plan.context)
            evaluate(plan, cands, stats, EXACT)
            timings["lexical"].append((time.perf_counter() - start) * 1000)
            cpu["lexical"].append((time.process_time() - cpu_start) * 1000)

            start, cpu_start = time.perf_counter(), time.process_time()
            vector = embedder.query(query)
            timings["query_embedding"].append((time.perf_counter() - start) * 1000)
            cpu["query_embedding"].append((time.process_time() - cpu_start) * 1000)

            start, cpu_start = time.perf_counter(), time.process_time()
            plan = direct_plan(query)
            stats = cached.stats(plan.focus + plan.context)
            evaluate(plan, cached.candidates(plan, stats), stats, EXACT)
            timings["lexical_cached"].append((time.perf_counter() - start) * 1000)
            cpu["lexical_cached"].append((time.process_time() - cpu_start) * 1000)

            for name in ("hybrid_fresh", "hybrid_warm", "hybrid_cached"):
                start, cpu_start = time.perf_counter(), time.process_time()
                vector = embedder.query(query)
                plan = direct_plan(query)
                source = cached if name == "hybrid_cached" else index
                stats = source.stats(plan.focus + plan.context)
                cands = source.candidates(plan, stats=stats)
                matrix = held
                if name == "hybrid_fresh":  # every vector read and assembled again
                    matrix = semantic.new_matrix(embedder.dim)
                    matrix.extend(store.vectors(embedder.model))
                lexical_ids = [c.id for c in cands]
                ids, cosines = matrix.nearest(vector, lexical_ids, SEMANTIC_CANDIDATES,
                                              postings.retired if source is cached else None)
                side, extra = semantic_side(ids, cosines, lexical_ids, embedder.calibration,
                                            query=query)
                evaluate(plan, [*cands, *store.candidates(extra)], stats, EXACT, side)
                timings[name].append((time.perf_counter() - start) * 1000)
                cpu[name].append((time.process_time() - cpu_start) * 1000)
        long_prompt = long_prompts(embedder, queries, long_tokens)
        overlap = overlapping(embedder, queries)
        db.close()
    per_passage_ms = embed_s * 1000 / max(1, len(chosen))
    return {
        "size": size, "queries": count, "model": embedder.model,
        "index_build_s": round(build_s, 3),
        "embedded_sample": len(chosen),
        "embedding_per_passage_ms": round(per_passage_ms, 2),
        "projected_embedding_10k_min_one_thread": round(per_passage_ms * 10_000 / 60_000, 2),
        "latency_ms": {k: summary(v) for k, v in timings.items()},
        "cpu_ms": {k: summary(v) for k, v in cpu.items()},
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "steal_s": steal_during(steal_before),
        "long_prompt": long_prompt,
        "overlapping_prompts": overlap,
        "targets_p99_ms": {"lexical": 5.0, "hybrid": 25.0},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--embed", type=int, default=200, help="records embedded for real")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--long-tokens", type=int, default=400,
                        help="at least this many tokens in each long prompt (request + log)")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.size, args.queries, args.embed, args.seed, args.long_tokens),
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
