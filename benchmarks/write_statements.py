"""Benchmark: what one durable write costs in SQL statements, flushes and CPU, load-free.

One process makes ``--writes`` writes of ``benchmarks/concurrency.py``'s mix (pins, claims,
keyed claims, supersessions; session and project scope) through the real service, in a
fresh home with the semantic worker off, and counts per write:

- ``statements``: every SQL statement the projection's connection ran (a trace callback),
  and ``under_lock`` those run while the session file's lock was held (the other writers
  of the session wait for them);
- ``fsync``: ``fsync`` and ``fdatasync`` calls of the whole process, SQLite's included
  (``strace -f -c``, when ``strace`` is installed; else ``null``), and ``ledger_fsync``
  those of Python code (the session file's);
- ``cpu_ms``: user + system CPU of the writes (load-dependent, unlike the counts).

``--compare-src DIR`` runs the same with another source tree (``DIR/src``), in the same run.
Outcomes are reported by kind, so two trees can be seen to decide alike. Not a test;
prints one JSON document.

    .venv/bin/python benchmarks/write_statements.py [--writes 400] [--compare-src DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from code_baseline import checked_tree

ROOT = Path(__file__).resolve().parents[1]


def _writes(count: int, home: Path) -> dict[str, Any]:
    """The child's work (this process runs with the tree to measure on its path)."""
    sys.path.insert(0, str(ROOT))  # for tests.durability
    from tests.durability.concurrency_worker import planned_write, step_is_keyed
    from waymarks.ledger import session_file
    from waymarks.service.app import Waymarks

    held = [False]
    statements = {"all": 0, "under_lock": 0}
    fsyncs = [0]
    exclusive = session_file.SessionFile._exclusive

    @contextlib.contextmanager
    def counted(self: Any, *args: Any, **kwargs: Any) -> Iterator[None]:
        with exclusive(self, *args, **kwargs):
            held[0] = True
            try:
                yield
            finally:
                held[0] = False

    real_fsync = os.fsync

    def fsync(fd: Any) -> None:
        fsyncs[0] += 1
        real_fsync(fd)

    def traced(_sql: str) -> None:
        statements["all"] += 1
        statements["under_lock"] += held[0]

    project = home.parent / "project"
    project.mkdir()
    app = Waymarks(home, cwd=str(project))
    app.trust(str(project))
    app.session_new()
    app.remember("A warm-up claim so the first write's one-off work is not counted.")
    session_file.SessionFile._exclusive = counted  # type: ignore[method-assign]
    os.fsync = fsync
    app.projection.db.set_trace_callback(traced)
    outcomes: Counter[str] = Counter()
    keyed: str | None = None
    before = resource.getrusage(resource.RUSAGE_SELF)
    for i in range(count):
        op, scope, text = planned_write(0, i)
        if op == "pin":
            outcome: Any = app.pin(text, scope=scope)
        elif op == "remember":
            outcome = app.remember(text, scope=scope)
        else:
            assert keyed is not None
            outcome = app.supersede_memory(keyed, text)
        kind = getattr(outcome, "outcome", type(outcome).__name__)
        outcomes[f"{op}:{kind}"] += 1
        keyed = getattr(outcome, "id", None) if step_is_keyed(op, text) else None
    after = resource.getrusage(resource.RUSAGE_SELF)
    app.projection.db.set_trace_callback(None)
    os.fsync = real_fsync
    app.close()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"writes": count, "outcomes": dict(sorted(outcomes.items())),
            "statements_per_write": round(statements["all"] / count, 3),
            "under_lock_per_write": round(statements["under_lock"] / count, 3),
            "ledger_fsync_per_write": round(fsyncs[0] / count, 3),
            "cpu_ms_per_write": round(cpu * 1000 / count, 3)}


def _run(src: Path, count: int) -> dict[str, Any]:
    """One tree's figures, from a child process (under ``strace`` when there is one)."""
    with tempfile.TemporaryDirectory(prefix="waymarks-statements-") as tmp:
        out, trace = Path(tmp) / "out.json", Path(tmp) / "strace.txt"
        env = {**os.environ, "PYTHONPATH": str(src), "HOME": tmp,
               "XDG_CACHE_HOME": str(Path(tmp) / "cache"), "WAYMARKS_SEMANTIC": "off",
               "WAYMARKS_SEMANTIC_BACKFILL": "off", "WAYMARKS_CLI_HELPER": "off"}
        command = [sys.executable, __file__, "--child", str(Path(tmp) / "home"), str(out),
                   "--writes", str(count)]
        strace = shutil.which("strace")
        if strace:
            command = [strace, "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(trace),
                       *command]
        subprocess.run(command, env=env, check=True)
        report: dict[str, Any] = json.loads(out.read_text())
        report["fsync_per_write"] = None
        if strace:  # (the warm-up and the start are counted too: a few, once)
            calls = sum(int(m.group(1)) for m in re.finditer(
                r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?f(?:data)?sync$",
                trace.read_text(), re.MULTILINE))
            report["fsync_per_write"] = round(calls / count, 3)
        return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--compare-src", default=None,
                        help="another source tree's directory holding src/ (run first)")
    parser.add_argument("--child", nargs=2, metavar=("HOME", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    checked_tree(parser, "--compare-src", args.compare_src, top=True)
    if args.child:
        report = _writes(args.writes, Path(args.child[0]))
        Path(args.child[1]).write_text(json.dumps(report))
        return 0
    result: dict[str, Any] = {"benchmark": "write_statements", "load_before": os.getloadavg()}
    if args.compare_src:
        result["compare_src"] = {"src": args.compare_src,
                                 **_run(Path(args.compare_src).resolve() / "src", args.writes)}
    result["this_tree"] = _run(ROOT / "src", args.writes)
    result["load_after"] = os.getloadavg()
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
