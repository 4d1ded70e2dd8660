"""Benchmark: what a long-lived process's first centred query (a Chinese question, whose
hub values are every stored vector's mean cosine) pays to sum the stored vectors.

The store is ``recall_latency.py``'s synthetic one (``--size`` records in a temporary file
database), each record given a deterministic random unit vector (the cost of summing does
not depend on the values; no model is loaded). A new :class:`VectorMemo` (a process that
just started: the Claude Code helper, MCP server, Pi bridge) reads the vectors its session
sees, then its crowd (:meth:`VectorMemo.crowd_of`), timed (CPU and wall) the first time
and again (what every later query pays), ``--repeat`` times.

When the tree keeps the sum with the projection (``waymarks.service.semantic_memo``'s
``keep_sum``: summed by ``index --semantic`` and the background worker, off the prompt
path), it is kept first (``kept_cpu_ms``) and 32 vectors are added after it by a batch
(``advance_sum``, in the batch's transaction), so the first query reads the sum and those
rows; a tree without it reads every stored vector. ``same_bits``: the memo's sum is the
one a one-shot process makes over the matrix of every vector. Prints one JSON document.

    PYTHONPATH=src .venv/bin/python benchmarks/hub_sum.py [--size 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recall_latency as synthetic
from hybrid_cost import unit_vector
from waymarks import semantic
from waymarks.service.semantic_recall import VectorMemo
from waymarks.store.recall_index import RecallIndex
from waymarks.store.recall_vectors import VectorStore

#: vectors added by a batch after the sum was kept
BATCH = 32


class _Embedder:
    """What the memo asks of an embedder: its model and length."""

    model = "bench"
    dim = 384


def _timed(call: Any) -> tuple[Any, float, float]:
    start, cpu_start = time.perf_counter(), time.process_time()
    out = call()
    return out, (time.process_time() - cpu_start) * 1000, (time.perf_counter() - start) * 1000


def run(size: int, repeat: int, seed: int) -> dict[str, Any]:
    try:
        from waymarks.service.semantic_memo import advance_sum, keep_sum
    except ImportError:
        keep_sum = advance_sum = None  # type: ignore[assignment]
    embedder = _Embedder()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        synthetic.build(path, size, seed)
        db = synthetic.open_db(path)
        index = RecallIndex(db, items_backed=False)
        store = VectorStore(db, items_backed=False)
        ids = [str(i) for (i,) in db.execute("SELECT item_id FROM recall_records"
                                               " ORDER BY rowid")]
        texts = dict(db.execute("SELECT item_id, text FROM recall_records"))
        last = ids[-BATCH:] if keep_sum is not None else []

        @contextmanager
        def transaction() -> Iterator[None]:
            db.execute("BEGIN IMMEDIATE")
            yield
            db.execute("COMMIT")

        with transaction():
            store.put(embedder.model, ((i, texts[i], unit_vector(rng, embedder.dim))
                                       for i in ids if i not in last))
        out: dict[str, Any] = {"size": size, "kept": keep_sum is not None}
        if keep_sum is not None and advance_sum is not None:
            _, out["kept_cpu_ms"], _ = _timed(
                lambda: keep_sum(index, embedder, transaction))  # type: ignore[arg-type]
            with transaction():
                store.put(embedder.model, ((i, texts[i], unit_vector(rng, embedder.dim))
                                           for i in last))
                advance_sum(store, embedder, index.generation())  # type: ignore[arg-type]
        first: list[tuple[float, float]] = []
        later: list[tuple[float, float]] = []
        crowd = None
        for _ in range(repeat):
            memo = VectorMemo()
            memo.current(store, embedder, ("session", None), index.generation())  # type: ignore[arg-type]
            crowd, cpu, wall = _timed(partial(memo.crowd_of, store, embedder))  # type: ignore[arg-type]
            first.append((cpu, wall))
            _, cpu, wall = _timed(partial(memo.crowd_of, store, embedder))  # type: ignore[arg-type]
            later.append((cpu, wall))
        whole = semantic.new_matrix(embedder.dim)
        whole.extend(store.vectors(embedder.model))
        assert crowd is not None
        out.update({
            "vectors": crowd.count,
            "first_query": _summary(first), "later_query": _summary(later),
            "same_bits": crowd.total.tobytes() == whole.crowd().total.tobytes()})
        db.close()
    return out


def _summary(spans: list[tuple[float, float]]) -> dict[str, float]:
    return {"cpu_ms_median": round(statistics.median(c for c, _ in spans), 2),
            "wall_ms_median": round(statistics.median(w for _, w in spans), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(json.dumps(run(args.size, args.repeat, args.seed), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
