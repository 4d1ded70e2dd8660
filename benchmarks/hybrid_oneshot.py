"""Benchmark: a one-shot hybrid recall's query cost at 10k memories, before and after.

Issue 20's target is p99 <= 25 ms for a query on the prompt path with the semantic extra.
``hybrid_cost.py`` times the engine's parts on a synthetic index without items; this one
times what a fresh process (``waymarks recall``, a hook without its helper) runs once the
model is loaded, on a real home: one session ledger of ``--mutations`` mutations
(``rebuild.py``'s generator: about 10k recall records from 15,500), projected by the code
under test, every record given a random unit vector of the model's length under the
model's name (comparing costs the same whatever the values; answers are ``locomo.py``'s).

Each variant (the code as it is, and with ``--baseline-src DIR`` another checkout's
``src``) runs in a child process of its own with its own copy of the home, projected by
its own code (a newer schema is refused by older code); the parent asks them in turn,
round by round, so both see the same load. Per query, in the child, wall and CPU:

- ``recall``: ``Waymarks.recall`` of a query not asked before in that process (its parts
  below, each on the same query first, so the recall's own embedding is not repeated work);
- ``visible``: the read of the records the session may use (``visible_records``);
- ``vectors``: the stored vectors as a one-shot process gets them (``kept_vectors``: the
  file beside the projection, once current);
- ``embed``: the query embedded alone (a new text);
- ``embed_again``: the same text embedded a second time in the process (a host asking
  the same prompt in its hook and again by recall);
- ``stale``: once a round, the vectors as the first one-shot recall after the rows
  changed gets them (one vector stored again first): the rows read from SQLite, and in a
  version that writes the file on the prompt path, its write; a version whose worker
  writes it has it written after, untimed (the children run without the worker).

Before the rounds each child runs one recall and whatever the code offers to bring the
vectors file up to date, untimed. Not a test; prints one JSON document.

    .venv/bin/python benchmarks/hybrid_oneshot.py [--mutations 15500] [--rounds 8]
        [--queries 25] [--baseline-src DIR] [--also NAME=DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stats import steal_during, steal_s, summary
from code_baseline import checked_tree
from spawn_timing import environment, load_average, with_src

WORDS = ("deploy", "service", "kafka", "region", "release", "flag", "checkout", "invoice",
         "postgres", "redis", "cache", "timeout", "retry", "build", "pipeline", "friday",
         "schema", "migration", "auth", "token", "queue", "worker", "search", "index")


def queries(count: int, seed: int) -> list[str]:
    """``count`` distinct prompts of three to eight words, a few of them questions."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        words = rng.sample(WORDS, rng.randint(3, 8))
        text = " ".join(words) + (f" ({len(out)})?" if rng.random() < 0.5 else f" {len(out)}")
        out.append(text)
    return out


def child(home: Path, project: Path) -> int:
    """Serve rounds on stdin (a line of JSON: the round's queries) with the code on the
    path; answer each with a line of JSON timings."""
    import numpy as np

    from waymarks import semantic
    from waymarks.service import semantic_recall
    from waymarks.service.app import Waymarks
    from waymarks.store.recall_vectors import VectorStore

    embedder = semantic.load()
    if embedder is None:
        raise SystemExit("the semantic extra is not installed")
    app = Waymarks(home, cwd=str(project))
    started = time.perf_counter()
    app.rebuild_index()
    rebuild_s = time.perf_counter() - started
    index = app.projection.recall_index()
    rng = np.random.default_rng(7)
    with app.projection.transaction():
        index.catch_up()
        store = VectorStore(index.db)
        ids = dict(index.db.execute("SELECT item_id, text FROM recall_records"))
        rows = rng.standard_normal((len(ids), embedder.dim)).astype("<f4")
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        store.put(embedder.model, ((item_id, text, rows[n].tobytes())
                                   for n, (item_id, text) in enumerate(sorted(ids.items()))))
    first_id, first_text = sorted(ids.items())[0]
    refresh = getattr(semantic_recall, "refresh_kept_vectors", None)
    if refresh is not None:  # the worker's job since the prompt path only reads the file
        refresh(app)
    app.recall("warm up the process")
    session = app.refresh()
    visible = (session.session_id if session else "", str(project) if app.project_trusted
               else None)
    seen = len(VectorStore(index.db).visible_records(visible, active_only=True))
    print(json.dumps({"ready": True, "records": len(ids), "visible": seen,
                      "rebuild_s": round(rebuild_s, 2)}),
          flush=True)
    for turn, line in enumerate(sys.stdin, 1):  # (another vector each round: see stale)
        asked = json.loads(line)
        out: dict[str, list[list[float]]] = {k: [] for k in (
            "recall", "visible", "vectors", "embed", "embed_again", "stale")}

        def timed(name: str, call: Callable[[], object],
                  out: dict[str, list[list[float]]] = out) -> None:
            start, cpu = time.perf_counter(), time.process_time()
            call()
            out[name].append([(time.perf_counter() - start) * 1000,
                              (time.process_time() - cpu) * 1000])

        # the first recall after the rows changed (one vector stored again): the rows read,
        # then (before) the file written on the prompt path
        store = VectorStore(app.projection.recall_index().db)
        with app.projection.transaction():
            store.put(embedder.model, [(first_id, first_text, rows[turn].tobytes())])
        timed("stale", lambda s=store: semantic_recall.kept_vectors(app, s, embedder))
        if refresh is not None:
            refresh(app)  # (the worker's, off the prompt path: untimed)
        for query in asked:
            store = VectorStore(app.projection.recall_index().db)
            timed("visible", lambda s=store: s.visible_records(visible, active_only=True))
            timed("vectors", lambda s=store: semantic_recall.kept_vectors(app, s, embedder))
            timed("embed", lambda q=query: embedder.query(q))
            timed("embed_again", lambda q=query: embedder.query(q))
            timed("recall", lambda q=query: app.recall(f"{q} now"))
        print(json.dumps(out), flush=True)
    app.close()
    return 0


def run(mutations: int, rounds: int, count: int, baseline_src: str | None,
        others: dict[str, str] | None = None) -> dict[str, Any]:
    from rebuild import generate
    from waymarks.ledger.discovery import session_dir

    script = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="waymarks-oneshot-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        sessions = root / "sessions"
        directory = session_dir(root / "seed", str(project.resolve()))
        directory.mkdir(parents=True)
        generate(directory / "2026-01-01T00-00-00-000Z_bench.jsonl", mutations, 1,
                 str(project.resolve()))
        shutil.move(str(root / "seed" / "sessions"), sessions)
        variants: dict[str, str | None] = {
            "current": None, **({"baseline": baseline_src} if baseline_src else {}),
            **(others or {})}
        children: dict[str, subprocess.Popen[str]] = {}
        ready: dict[str, Any] = {}
        try:
            for name, src in variants.items():
                home = root / f"home-{name}"
                shutil.copytree(sessions, home / "sessions")
                env = with_src(environment({"WAYMARKS_HOME": str(home),
                                            "WAYMARKS_SEMANTIC_BACKFILL": "off"}), src)
                children[name] = subprocess.Popen(
                    [sys.executable, script, "--child", str(home), str(project)], cwd=project,
                    env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                ready[name] = json.loads(children[name].stdout.readline())  # type: ignore[union-attr]
            asked = queries(rounds * count, 11)
            times: dict[str, dict[str, list[list[float]]]] = {name: {} for name in children}
            load_before, steal_before = load_average(), steal_s()
            for n in range(rounds):
                for name, process in children.items():
                    assert process.stdin is not None and process.stdout is not None
                    process.stdin.write(json.dumps(asked[n * count:(n + 1) * count]) + "\n")
                    process.stdin.flush()
                    for part, values in json.loads(process.stdout.readline()).items():
                        times[name].setdefault(part, []).extend(values)
        finally:
            for process in children.values():
                if process.stdin is not None:
                    process.stdin.close()
                process.wait(timeout=60)
    return {
        "mutations": mutations, "rounds": rounds, "queries_per_round": count,
        "baseline_src": baseline_src, "others": others, "ready": ready,
        "results": {name: {part: {"wall_ms": summary([v[0] for v in values]),
                                  "cpu_ms": summary([v[1] for v in values])}
                           for part, values in parts.items()}
                    for name, parts in times.items()},
        "load_average_before": load_before, "load_average_after": load_average(),
        "steal_s": steal_during(steal_before), "target_p99_ms": 25.0,
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutations", type=int, default=15_500)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--queries", type=int, default=25)
    parser.add_argument("--baseline-src", metavar="DIR", default=None)
    parser.add_argument("--also", metavar="NAME=DIR", action="append", default=[],
                        help="another checkout's src, timed in the same rounds")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(Path(args.child[0]), Path(args.child[1]))
    checked_tree(parser, "--baseline-src", args.baseline_src)
    if bad := [item for item in args.also if "=" not in item]:
        parser.error(f"--also {bad[0]}: give NAME=DIR")
    others = dict(item.split("=", 1) for item in args.also)
    for src in others.values():
        checked_tree(parser, "--also", src)
    print(json.dumps(run(args.mutations, args.rounds, args.queries, args.baseline_src, others),
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
