"""Benchmark: a fresh ``waymarks`` process against a large home (issue 15's first target).

For each size a home is generated with one session ledger of ``size`` mutations (the
realistic mix of ``benchmarks/rebuild.py``: memory adds, pins, supersedes, expiries) in the
home's session directory for a project, and projected once with ``waymarks
rebuild-index`` (timed: ``rebuild_s``). Then, each in a new process, timed wall clock:

- ``recall``: ``waymarks recall QUERY`` (the one-shot recall of issue 15's table);
- ``pins``: ``waymarks --json pins`` (a listing that needs the session's branch);
- baselines in the same run: ``python -c pass`` and ``python -c "import waymarks.cli.main"``.

Targets (issue 15): fresh recall <= 60 / 80 / 150 ms at 10k / 100k / 1M memories,
independent of ledger length. Prints one JSON document.

    .venv/bin/python benchmarks/fresh_start.py [--sizes 10000,100000] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_stats import percentile
from rebuild import generate
from waymarks.ledger.discovery import session_dir

TARGET_MS = {10_000: 60.0, 100_000: 80.0, 1_000_000: 150.0}
QUERY = "which service uses Kafka for event fan-out?"


def timed(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode:
            raise SystemExit(f"{argv} failed: {done.stderr.decode()[-2000:]}")
    return {"p50_ms": round(statistics.median(times), 1),
            "p90_ms": round(percentile(times, 90), 1), "min_ms": round(min(times), 1)}


def environment() -> dict[str, str]:
    """As an installed Waymarks runs: with compiled bytecode (a sandbox that sets
    PYTHONDONTWRITEBYTECODE would make every process compile every module again)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_size(size: int, runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-fresh-") as tmp:
        root = Path(tmp)
        home, project = root / "home", root / "project"
        project.mkdir()
        directory = session_dir(home, str(project.resolve()))
        directory.mkdir(parents=True)
        ledger = directory / "2026-01-01T00-00-00-000Z_bench.jsonl"
        generate(ledger, size, 1, str(project.resolve()))
        env = {**environment(), "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
        waymarks = [sys.executable, "-m", "waymarks.cli.main"]
        start = time.perf_counter()
        subprocess.run([*waymarks, "rebuild-index"], cwd=project, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        rebuild_s = time.perf_counter() - start
        recall = timed([*waymarks, "recall", QUERY], project, env, runs)
        pins = timed([*waymarks, "--json", "pins"], project, env, max(3, runs // 3))
        return {"size": size, "ledger_mb": round(ledger.stat().st_size / 1e6, 1),
                "rebuild_s": round(rebuild_s, 2),
                "rebuild_mutations_per_s": round(size / rebuild_s),
                "recall": recall, "pins": pins,
                "target_recall_ms": TARGET_MS.get(size),
                "met": recall["p50_ms"] <= TARGET_MS.get(size, float("inf"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    env = environment()
    here = Path.cwd()
    baseline = {"python_pass": timed([sys.executable, "-c", "pass"], here, env, args.runs),
                "import_cli": timed([sys.executable, "-c", "import waymarks.cli.main"], here,
                                    env, args.runs)}
    sizes = [run_size(int(size), args.runs) for size in args.sizes.split(",")]
    print(json.dumps({"benchmark": "fresh_start", "baseline": baseline, "sizes": sizes},
                     indent=2))


if __name__ == "__main__":
    main()
