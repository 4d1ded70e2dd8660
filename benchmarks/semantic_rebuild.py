"""Benchmark: rebuilding a 10k-memory projection *with embeddings*, in the background.

Issue 20's target: "rebuild of 10k items with embeddings <= 10 min on 2 cores, resumable,
with progress". A home holds one synthetic session ledger (``rebuild.py``'s generator, one
synthetic claim per memory; ``--mutations`` chooses the size, 15,500 giving about 10k recall
records); its database is deleted, then:

1. ``rebuild``: the projection is rebuilt from the ledger in this process (the lexical
   baseline, measured in the same run), with the background worker switched off;
2. ``worker``: the background worker (``python -m waymarks.service.semantic_worker HOME``,
   as a rebuild starts it) is started, and after ``--interrupt`` of the records it is
   killed (SIGKILL: no chance to tidy up);
3. ``resume``: a second worker is started and runs to the end. What it embeds must be
   exactly what the first left (every finished batch was committed).

Progress is sampled from the worker's progress file (as ``waymarks status`` reads it).
Wall and CPU time (the workers' own, from ``wait4``) are reported, with the load average
before and after: the machine is shared. Prints one JSON document.

    .venv/bin/python benchmarks/semantic_rebuild.py [--mutations 15500] [--interrupt 0.3]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rebuild
from waymarks.service import semantic_backfill


def worker(home: Path, stop_at: int | None, samples: list[dict[str, Any]]
           ) -> dict[str, Any]:
    """Run one worker; kill it once ``stop_at`` records are embedded (``None``: to the
    end). Wall time, the child's CPU time, its exit status, and progress samples."""
    env = {**os.environ, "WAYMARKS_HOME": str(home)}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-I", "-m", "waymarks.service.semantic_worker",
                              str(home)], env=env, cwd=home)
    killed = False
    while True:
        try:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            break
        state = semantic_backfill.progress(home)
        if state is not None and state.get("pid") == child.pid:
            samples.append({"t": round(time.perf_counter() - start, 1),
                            "embedded": state.get("embedded"), "total": state.get("total")})
            if stop_at is not None and not killed and (state.get("embedded") or 0) >= stop_at:
                child.send_signal(signal.SIGKILL)
                killed = True
        time.sleep(0.5)
    child.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": round(time.perf_counter() - start, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "exit": child.returncode, "killed": killed,
            "progress": semantic_backfill.progress(home)}


def run(mutations: int, interrupt: float) -> dict[str, Any]:
    from waymarks import semantic
    from waymarks.service.app import Waymarks
    from waymarks.store.recall_vectors import VectorStore

    embedder = semantic.load()
    if embedder is None:
        raise SystemExit("the semantic extra is not installed (or WAYMARKS_SEMANTIC is off)")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="waymarks-semantic-rebuild-") as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        project.mkdir()
        ledger = home / "sessions" / "--bench--" / "2030-01-01T00-00-00-000Z_bench.jsonl"
        ledger.parent.mkdir(parents=True)
        mix = rebuild.generate(ledger, mutations, 1, str(project))

        os.environ[semantic_backfill.SWITCH] = "off"  # the rebuild here must not start one
        cpu, start = time.process_time(), time.perf_counter()
        app = Waymarks(home, cwd=str(project))
        index = app.projection.recall_index()
        with app.projection.transaction():
            index.catch_up()
        rebuild_s, rebuild_cpu = time.perf_counter() - start, time.process_time() - cpu
        records, vectors = VectorStore(index.db).counts(embedder.model)
        app.projection.close()
        del os.environ[semantic_backfill.SWITCH]

        samples: list[dict[str, Any]] = []
        first = worker(home, max(1, int(records * interrupt)), samples)
        after_first = _vectors(home, embedder.model)
        second = worker(home, None, samples)
        after_second = _vectors(home, embedder.model)
        embedded_second = (second["progress"] or {}).get("embedded")
    total_wall = first["wall_s"] + second["wall_s"]
    total_cpu = first["cpu_s"] + second["cpu_s"]
    return {
        "mutations": mutations, "mix": mix, "recall_records": records,
        "vectors_after_rebuild": vectors,
        "rebuild_lexical": {"wall_s": round(rebuild_s, 2), "cpu_s": round(rebuild_cpu, 2)},
        "worker_interrupted": {**{k: first[k] for k in ("wall_s", "cpu_s", "exit", "killed")},
                               "vectors_kept": after_first},
        "worker_resumed": {**{k: second[k] for k in ("wall_s", "cpu_s", "exit")},
                           "embedded": embedded_second, "vectors": after_second},
        "resumed_exactly_the_rest": embedded_second == records - after_first,
        "all_embedded": after_second == records,
        "embedding_total": {"wall_s": round(total_wall, 1), "cpu_s": round(total_cpu, 1),
                            "cpu_ms_per_record": round(1000 * total_cpu / max(1, records), 1)},
        "target": "<= 600 s for 10k on 2 cores",
        "within_target_wall": total_wall <= 600, "within_target_cpu": total_cpu <= 600,
        "progress_samples": samples[:: max(1, len(samples) // 20)],
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "model": embedder.model,
    }


def _vectors(home: Path, model: str) -> int:
    import sqlite3

    db = sqlite3.connect(home / "waymarks.db")
    try:
        return int(db.execute(
            "SELECT count(*) FROM recall_records r JOIN recall_vectors v"
            " ON v.item_id = r.item_id WHERE v.model = ?", (model,)).fetchone()[0])
    finally:
        db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutations", type=int, default=15_500)
    parser.add_argument("--interrupt", type=float, default=0.3,
                        help="kill the first worker after this share of the records")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.mutations, args.interrupt), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
