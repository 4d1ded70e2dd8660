"""Benchmark: what asking the vector store for missing records costs when none is missing.

``VectorStore.missing`` is asked on every wake and wait check of the background embedder
(``Vectors.missing``: one record) and before each of its batches (32). A real migrated
projection database with ``--records`` recall records, every one with a current vector of
384 float32 values (bytes; no model), is asked ``--runs`` times; p50 / p99 in ms of CPU.
With the vectors' watermark (``VectorStore.settle``, when this version has it) set as
the service sets it when it catches the index up; then what settling costs when nothing
moved, and once from scratch (after a reset of the index). Not a test. Prints JSON.

    .venv/bin/python benchmarks/vector_missing.py [--records 10000] [--runs 200]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from bench_stats import summary
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput
from waymarks.store.recall_vectors import VectorStore

MODEL = "bench-model"


def build(path: Path, records: int) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, 0)
    texts = [f"Service number {n} answers on port {5000 + n} and is deployed on Fridays"
             f" by the team that owns the invoice renderer ({n % 97})" for n in range(records)]
    db.execute("BEGIN")
    RecallIndex(db, items_backed=False).add(
        RecordInput(id=f"item-{n}", text=text) for n, text in enumerate(texts))
    store = VectorStore(db, items_backed=False)
    store.put(MODEL, ((f"item-{n}", text, bytes(4 * 384)) for n, text in enumerate(texts)))
    settle = getattr(store, "settle", None)
    if settle is not None:
        settle(MODEL)
    db.execute("COMMIT")
    return db


def cpu_ms(call: object, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.process_time()
        call()  # type: ignore[operator]
        samples.append((time.process_time() - start) * 1000)
    return summary(samples)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = build(Path(tmp) / "w.db", args.records)
        store = VectorStore(db, items_backed=False)
        assert store.missing(MODEL, 1) == []
        out = {"records": args.records, "runs": args.runs,
               "missing_1_cpu_ms": cpu_ms(lambda: store.missing(MODEL, 1), args.runs),
               "missing_32_cpu_ms": cpu_ms(lambda: store.missing(MODEL, 32), args.runs)}
        if hasattr(store, "settle"):  # what the service adds: settling when nothing moved,
            # and once after a reset of the index (every record looked at)
            out["settle_unmoved_cpu_ms"] = cpu_ms(lambda: store.settle(MODEL), args.runs)
            db.execute("DELETE FROM meta WHERE name = ?", (f"vectors_done:{MODEL}",))
            start = time.process_time()
            store.settle(MODEL)
            out["settle_from_scratch_cpu_ms"] = round((time.process_time() - start) * 1000, 2)
        db.close()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
