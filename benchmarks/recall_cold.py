"""Benchmark: a recall through SQLite with nothing remembered between queries.

A one-shot process (a prompt's hook without its helper, ``waymarks recall``) opens the
index and answers one query: no document frequency read before is at hand
(``RecallIndex`` keeps them only for its own life). This answers each query of
``recall_latency.py``'s mix with a new ``RecallIndex`` on one open connection (the pages
are cached, as after the first query of a busy machine), timed end to end, the
statistics (``stats``) apart: CPU and wall p50 / p99 per query.

It reads a database ``recall_latency.py --keep DIR`` built (``recall-SIZE-SEED.sqlite3``
and its ``.about.json``); run it once per tree (``PYTHONPATH``) on the same file and
compare, alternating the two (``--rounds``: each run takes the queries in that many
parts, and waits for nothing: run the trees in turns yourself). Prints one JSON document.

    .venv/bin/python benchmarks/recall_cold.py --keep DIR --size 1000000 [--queries 500]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import time
from pathlib import Path

from recall_latency import EXACT, UNHELD_LITERAL, percentile, query_mix
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.store.recall_index import RecallIndex


def figures(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(values), 3),
            "p99_ms": round(percentile(values, 99), 3),
            "mean_ms": round(statistics.mean(values), 3)}


def run(path: Path, queries: list[str]) -> dict[str, object]:
    db = sqlite3.connect(path, isolation_level=None)
    for query in queries[:20]:  # the page cache and the analysers
        plan = direct_plan(query)
        RecallIndex(db, items_backed=False).stats((*plan.focus, *plan.context))
    cpu, wall, stats_cpu, selected = [], [], [], []
    for query in queries:
        c0, t0 = time.process_time(), time.perf_counter()
        index = RecallIndex(db, items_backed=False)
        plan = direct_plan(query)
        stats = index.stats((*plan.focus, *plan.context))
        c1 = time.process_time()
        skip = UNHELD_LITERAL is not None and UNHELD_LITERAL(plan, stats) is not None
        result = evaluate(plan, [] if skip else index.candidates(plan, stats=stats),
                          stats, EXACT)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - t0) * 1000)
        stats_cpu.append((c1 - c0) * 1000)
        selected.append(list(result.selected))
    db.close()
    return {"queries": len(queries), "cpu": figures(cpu), "wall": figures(wall),
            "stats_cpu": figures(stats_cpu), "load_avg": list(os.getloadavg()),
            "selected_digest": hashlib.blake2b(json.dumps(selected).encode(),
                                                      digest_size=8).hexdigest()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", required=True, help="recall_latency.py's --keep folder")
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    stem = Path(args.keep) / f"recall-{args.size}-{args.seed}"
    about = [tuple(pair) for pair in json.loads(Path(f"{stem}.about.json").read_text())]
    queries = [q for _, q in query_mix(about, args.queries, args.seed)]
    result = run(Path(f"{stem}.sqlite3"), queries)
    print(json.dumps({"size": args.size, **result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
