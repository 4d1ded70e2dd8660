"""Benchmark: in-process durable write latency of Waymarks, with same-run baselines.

Each write goes through the public API (``Waymarks.pin`` / ``Waymarks.remember``): session
lock, projection sync, decision, durable append (write + fsync), projection of the new
mutation, commit. Baselines measured in the same run and the same directory:

- ``baseline_fsync``: ``os.write`` of a ~400-byte line + ``os.fsync`` (the floor of a
  durable append);
- ``baseline_sqlite_commit``: one single-row INSERT transaction in a SQLite WAL database
  with ``synchronous=NORMAL`` (the projection's commit mode).

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/durable_write.py [--writes 2000] [--warmup 50] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

TARGET_P99_MS = 3.0
LINE_BYTES = 400


def percentile(sorted_values: list[int], pct: float) -> int:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return 0
    rank = max(1, -(-len(sorted_values) * pct // 100))  # ceil(n * pct / 100)
    return sorted_values[int(rank) - 1]


def summarize(samples_ns: list[int]) -> dict[str, Any]:
    ordered = sorted(samples_ns)
    total_ns = sum(ordered)
    ms = 1e-6
    return {
        "n": len(ordered),
        "p50_ms": round(percentile(ordered, 50) * ms, 4),
        "p95_ms": round(percentile(ordered, 95) * ms, 4),
        "p99_ms": round(percentile(ordered, 99) * ms, 4),
        "max_ms": round(ordered[-1] * ms, 4) if ordered else 0.0,
        "mean_ms": round(total_ns / len(ordered) * ms, 4) if ordered else 0.0,
        "ops_per_s": round(len(ordered) / (total_ns / 1e9), 1) if total_ns else 0.0,
    }


def timed(count: int, op: Callable[[int], object]) -> list[int]:
    samples = []
    clock = time.perf_counter_ns
    for i in range(count):
        start = clock()
        op(i)
        samples.append(clock() - start)
    return samples


def bench_waymarks(root: Path, writes: int, warmup: int) -> dict[str, Any]:
    home = root / "home"
    project = root / "project"
    home.mkdir()
    project.mkdir()
    outcomes: dict[str, int] = {}

    with Waymarks(home, cwd=str(project)) as app:

        def write(i: int, prefix: str = "") -> None:
            if i % 2 == 0:
                outcome = app.pin(f"{prefix}pin {i}: keep the release checklist step {i} in mind")
            else:
                outcome = app.remember(f"{prefix}claim number {i} about topic {i}")
            name = "committed" if isinstance(outcome, Committed) else type(outcome).__name__
            outcomes[name] = outcomes.get(name, 0) + 1

        for i in range(warmup):  # creates the session and the database, warms caches
            write(i, prefix="warmup ")
        outcomes.clear()
        samples = timed(writes, write)
        session = app.current_session()
        session_bytes = session.offset if session is not None else 0

    result = summarize(samples)
    tenth = max(1, len(samples) // 10)  # does a write get slower as the session grows?
    result["mean_ms_first_10pct"] = round(sum(samples[:tenth]) / tenth * 1e-6, 4)
    result["mean_ms_last_10pct"] = round(sum(samples[-tenth:]) / tenth * 1e-6, 4)
    result["writes_per_s"] = result.pop("ops_per_s")
    result["outcomes"] = outcomes
    result["session_file_bytes"] = session_bytes
    return result


def bench_fsync(root: Path, count: int, warmup: int) -> dict[str, Any]:
    path = root / "baseline.jsonl"
    line = (b'{"type":"custom","data":"' + b"x" * (LINE_BYTES - 28) + b'"}\n')[: LINE_BYTES - 1]
    line += b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:

        def op(_i: int) -> None:
            os.write(fd, line)
            os.fsync(fd)

        timed(warmup, op)
        samples = timed(count, op)
    finally:
        os.close(fd)
    return summarize(samples)


def bench_sqlite(root: Path, count: int, warmup: int) -> dict[str, Any]:
    db = sqlite3.connect(root / "baseline.db", isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
    payload = "x" * LINE_BYTES
    try:

        def op(_i: int) -> None:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t (payload) VALUES (?)", (payload,))
            db.execute("COMMIT")

        timed(warmup, op)
        samples = timed(count, op)
    finally:
        db.close()
    return summarize(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=2000, help="timed Waymarks writes")
    parser.add_argument("--warmup", type=int, default=50, help="untimed writes first")
    parser.add_argument(
        "--baseline-ops", type=int, default=None, help="operations per baseline (default: --writes)"
    )
    parser.add_argument(
        "--dir", default=None, help="parent of the temporary directory (default: system temp)"
    )
    args = parser.parse_args()
    baseline_ops = args.baseline_ops or args.writes

    with tempfile.TemporaryDirectory(prefix="waymarks-bench-", dir=args.dir) as tmp:
        root = Path(tmp)
        waymarks = bench_waymarks(root, args.writes, args.warmup)
        fsync = bench_fsync(root, baseline_ops, args.warmup)
        sqlite = bench_sqlite(root, baseline_ops, args.warmup)
        temp_dir = str(root)

    report = {
        "benchmark": "durable_write",
        "writes": args.writes,
        "warmup": args.warmup,
        "waymarks": waymarks,
        "baseline_fsync": fsync,
        "baseline_sqlite_commit": sqlite,
        "target_p99_ms": TARGET_P99_MS,
        "met": bool(waymarks["p99_ms"] <= TARGET_P99_MS),
        "env": {
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(),
            "temp_dir": temp_dir,
        },
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
