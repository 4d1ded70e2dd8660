"""Benchmark: where a write's time goes with 8 processes writing to one session (issue 15).

Runs ``tests/durability/concurrency_worker.py``'s ``shared`` scenario (``--writers``
processes, ``--writes`` each, ``--readers`` readers) with every worker timing itself: a
``sitecustomize`` put first on the workers' path (a temporary directory; nothing of the
source tree is changed) wraps, in each writer process, the session file's lock
(``SessionFile._exclusive``: the wait for its ``flock``, the hold, the flush after it),
the writer's turn on the database (its ``flock``), the projection's transaction and its
``COMMIT``, the decision, the syncs, the fold of sibling sessions and Python's ``fsync``
calls; while the session lock is held it also counts the process's CPU (user + system)
and the misses of the claim analyses' memos (``contradiction.signature`` and
``claim_slots.slots``: a claim analysed under the lock). Per write, summed over the
writers:

- ``lock_wait_ms``, ``lock_hold_ms``, ``flush_ms``: the session lock waited for, held
  (the critical section every other writer waits on), the ledger's flush after it;
- ``cpu_under_lock_ms``: CPU while holding it (less sensitive to the machine's load
  than the wall times), ``analysed_under_lock``: claims analysed while holding it;
- ``fsync``: Python's ``fsync`` calls (the ledger's; SQLite's own are C: see
  ``write_statements.py``), ``commit_ms``, ``turn_wait_ms``, ``decide_ms``, ``sync_ms``.

``anatomy``: how the latency distribution is made, from each write the writers timed
(its start on the system's monotonic clock, its process CPU, the CPU while it held the
session lock): by the writer's write index (its 1st, 2nd, 3rd, 4th, 5th-10th, ... write),
by tenth of the run's time, and the share of the slowest 5 % that were a writer's first
two writes or its first ten (a start burst: every writer imports and compiles at once).

``--compare-src DIR`` runs the same with another tree (``DIR/src``) first, in the same
run. Not a test; prints one JSON document.

    .venv/bin/python benchmarks/write_phases.py [--writers 8] [--writes 60] [--compare-src DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
PHASES_ENV = "WAYMARKS_BENCH_PHASES"


def install(out: str) -> None:
    """Time this writer process's phases (see the module), written to ``out`` at exit."""
    import atexit
    import sqlite3
    import time

    from waymarks.core.claim_slots import slots
    from waymarks.core.contradiction import signature
    from waymarks.ledger import session_file
    from waymarks.service import write_path
    from waymarks.store import projection, writer_lock

    clock, cpu = time.perf_counter, time.process_time
    totals: dict[str, float] = {}

    def add(name: str, value: float) -> None:
        totals[name] = totals.get(name, 0.0) + value

    def timed(owner: Any, attribute: str, name: str) -> None:
        real = getattr(owner, attribute)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = clock()
            try:
                return real(*args, **kwargs)
            finally:
                add(name, clock() - started)
                add(name + ":calls", 1)
        setattr(owner, attribute, wrapper)

    timed(session_file, "flock_within", "lock_wait")
    timed(writer_lock, "flock_within", "turn_wait")
    timed(os, "fsync", "fsync")
    timed(write_path, "write", "write")
    timed(write_path, "decided_now", "decide")
    timed(write_path, "fold_siblings", "fold")
    timed(projection.Projection, "sync", "sync")

    def misses() -> int:
        return signature.cache_info().misses + slots.cache_info().misses

    exclusive = session_file.SessionFile._exclusive

    @contextlib.contextmanager
    def held(self: Any, *args: Any, **kwargs: Any) -> Any:
        started = clock()
        flushed = totals.get("fsync", 0.0)
        with exclusive(self, *args, **kwargs):
            took, cpu_took, missed = clock(), cpu(), misses()
            try:
                yield
            finally:
                add("lock_hold", clock() - took)
                add("cpu_under_lock", cpu() - cpu_took)
                add("analysed_under_lock", misses() - missed)
        add("lock_all", clock() - started)
        add("flush", totals.get("fsync", 0.0) - flushed)

    session_file.SessionFile._exclusive = held  # type: ignore[method-assign]

    from waymarks.service.app import Waymarks

    calls: list[dict[str, float]] = []  # one a write the worker made, in its order
    depth = [0]

    def per_write(attribute: str) -> None:
        real = getattr(Waymarks, attribute)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return real(*args, **kwargs)
            depth[0], before = 1, dict(totals)
            start, cpu_start = time.clock_gettime_ns(time.CLOCK_MONOTONIC), cpu()
            try:
                return real(*args, **kwargs)
            finally:
                depth[0] = 0
                calls.append({"start_ns": start, "cpu": cpu() - cpu_start, **{
                    name: totals.get(name, 0.0) - before.get(name, 0.0)
                    for name in ("cpu_under_lock", "lock_wait", "lock_hold")}})
        setattr(Waymarks, attribute, wrapper)

    for attribute in ("pin", "remember", "supersede_memory"):
        per_write(attribute)

    class Timed(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if sql != "COMMIT":
                return super().execute(sql, *args)
            started = clock()
            try:
                return super().execute(sql, *args)
            finally:
                add("commit", clock() - started)

    connect = sqlite3.connect
    projection.sqlite3 = type("sqlite3", (), {  # (the projection's connections only)
        **{name: getattr(sqlite3, name) for name in dir(sqlite3) if not name.startswith("__")},
        "connect": staticmethod(lambda *a, **k: connect(*a, **{"factory": Timed, **k}))})

    def dump() -> None:
        if totals.get("write:calls"):
            Path(out, f"{os.getpid()}.json").write_text(json.dumps(totals))
            writer = json.loads(sys.argv[1])["index"]  # (the worker's configuration)
            Path(out, f"writer-{writer}.calls").write_text(json.dumps(calls))
    atexit.register(dump)


def _hook(directory: Path) -> None:
    """A ``sitecustomize`` for the writers: :func:`install` when the variable is set (the
    readers' and the benchmark's own processes write nothing: no ``write`` is counted)."""
    (directory / "sitecustomize.py").write_text(
        "import os, sys\n"
        f"if os.environ.get({PHASES_ENV!r}):\n"
        f"    sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "    import write_phases\n"
        f"    write_phases.install(os.environ[{PHASES_ENV!r}])\n"
        "    sys.path.pop(0)\n")


def _run(src: Path, args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))  # for tests.durability
    from unittest import mock

    from tests.durability.concurrency_worker import run_scenario

    with tempfile.TemporaryDirectory(prefix="waymarks-phases-") as tmp:
        hook, out = Path(tmp) / "hook", Path(tmp) / "out"
        hook.mkdir()
        out.mkdir()
        _hook(hook)
        with mock.patch.dict(os.environ, {"PYTHONPATH": f"{hook}{os.pathsep}{src}",
                                          PHASES_ENV: str(out)}):
            report = run_scenario(Path(tmp) / "run", "shared", writers=args.writers,
                                  writes=args.writes, readers=args.readers,
                                  timeout=args.timeout)
        anatomy = _anatomy(Path(tmp) / "run", out)
        totals: dict[str, float] = {}
        for name in glob.glob(str(out / "*.json")):
            for key, value in json.loads(Path(name).read_text()).items():
                totals[key] = totals.get(key, 0.0) + value
    writes = totals.get("write:calls", 0.0) or 1.0
    per = {key: round(value * (1000 if not key.endswith(":calls") and key not in (
        "analysed_under_lock",) else 1) / writes, 3) for key, value in sorted(totals.items())}
    return {"latency_ms": report["latency"], "lost": report["checks"]["lost"],
            "problems": report["problems"][:3], "writes": int(writes),
            "per_write": {
                "lock_wait_ms": per.get("lock_wait"), "lock_hold_ms": per.get("lock_hold"),
                "flush_ms": per.get("flush"), "cpu_under_lock_ms": per.get("cpu_under_lock"),
                "analysed_under_lock": per.get("analysed_under_lock"),
                "fsync": per.get("fsync:calls"), "commit_ms": per.get("commit"),
                "turn_wait_ms": per.get("turn_wait"), "decide_ms": per.get("decide"),
                "sync_ms": per.get("sync"), "fold_ms": per.get("fold"),
                "write_ms": per.get("write")},
            "anatomy": anatomy}


#: the write indexes the anatomy groups (a writer's 1st, 2nd, ... write; end excluded)
_BY_INDEX: Final = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 10), (10, 50), (50, 1 << 30))


def _anatomy(run: Path, out: Path) -> dict[str, Any]:
    """The writes the workers acknowledged (their ``writer-N.json``: the latency each
    timed), each with what its process measured of it (``writer-N.calls``)."""
    writes: list[dict[str, Any]] = []
    for result in sorted(run.glob("writer-*.json")):
        calls_file = out / (result.stem + ".calls")
        if not calls_file.exists():
            continue
        calls = json.loads(calls_file.read_text())
        records = json.loads(result.read_text())["records"]
        writes += [{**call, "i": record["i"], "latency": record["latency"]}
                   for record, call in zip(records, calls, strict=False)
                   if record["outcome"] == "committed"]
    if not writes:
        return {}
    slow = _percentile([w["latency"] for w in writes], 95)
    top = [w for w in writes if w["latency"] >= slow]
    first, last = min(w["start_ns"] for w in writes), max(w["start_ns"] for w in writes)
    tenth = max(1, (last - first) // 10 + 1)
    return {
        "by_write_index": {f"{lo + 1}" if hi == lo + 1 else f"{lo + 1}+" if hi > 1 << 20
                           else f"{lo + 1}-{hi}": _group([w for w in writes
                                                          if lo <= w["i"] < hi])
                           for lo, hi in _BY_INDEX},
        "by_tenth_of_time": [_group([w for w in writes
                                     if (w["start_ns"] - first) // tenth == n])
                             for n in range(10)],
        "slowest_5_percent": {"from_ms": round(slow * 1000, 1), "writes": len(top),
                              "first_two_of_a_writer": round(
                                  sum(w["i"] < 2 for w in top) / len(top), 3),
                              "first_ten_of_a_writer": round(
                                  sum(w["i"] < 10 for w in top) / len(top), 3)}}


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, -(-len(ordered) * int(pct) // 100)) - 1]


def _group(writes: list[dict[str, Any]]) -> dict[str, Any]:
    """Latency percentiles and mean CPU (all, under the lock), lock wait and hold, in ms."""
    if not writes:
        return {"writes": 0}
    n = len(writes)

    def mean(key: str) -> float:
        return round(sum(w[key] for w in writes) / n * 1000, 2)

    latencies = [w["latency"] for w in writes]
    return {"writes": n, "p50_ms": round(_percentile(latencies, 50) * 1000, 1),
            "p95_ms": round(_percentile(latencies, 95) * 1000, 1),
            "cpu_ms": mean("cpu"), "cpu_under_lock_ms": mean("cpu_under_lock"),
            "lock_wait_ms": mean("lock_wait"), "lock_hold_ms": mean("lock_hold")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--writes", type=int, default=60, help="writes per writer")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--compare-src", default=None,
                        help="another source tree's directory holding src/ (run first)")
    args = parser.parse_args()
    from code_baseline import checked_tree  # (not at the top: the writers import this file)

    checked_tree(parser, "--compare-src", args.compare_src, top=True)
    result: dict[str, Any] = {"benchmark": "write_phases", "load_before": os.getloadavg()}
    if args.compare_src:
        result["compare_src"] = {"src": args.compare_src,
                                 **_run(Path(args.compare_src).resolve() / "src", args)}
    result["this_tree"] = _run(ROOT / "src", args)
    print(json.dumps({**result, "load_after": os.getloadavg()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
