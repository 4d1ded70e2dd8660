"""Benchmark: what Waymarks adds to the real Pi (from npm) per request and at start-up.

- per request: the extension times each bridge round trip it makes (``plan`` before every
  LLM call, ``sanitize`` of every provider payload) over ``--prompts`` prompts in one RPC
  session, with ``--memories`` session memories and 5 pins in the Pi session; p50/p99 as
  seen from the extension, beside the Python-side planning time (the baseline: the part
  that is not transport);
- start-up: ``pi -p`` wall time with and without the extension (median of ``--runs``);
- ``--start-mb N``: instead, the bridge's start on a generated N MB Pi session, cold and
  after one new entry (``pi_bridge_start.py``), with the code of ``--baseline-src DIR`` or
  ``--baseline REF`` in the same run.

The model is the loopback fake server of the tests, so model time is near zero.

    .venv/bin/python benchmarks/pi_bridge.py [--variant pi16] [--prompts 40] [--memories 1000]
    .venv/bin/python benchmarks/pi_bridge.py --start-mb 60 [--runs 5] [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_stats import summary
from code_baseline import checked_tree
from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, PiRpc, install
from waymarks.service.app import Waymarks


def wall(home: PiHome, extension: bool) -> float:
    started = time.perf_counter()
    subprocess.run(home.argv("--no-session", "-p", "hi", extension=extension),
                   cwd=home.project, env=home.env, capture_output=True, check=True)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="pi16", choices=["pi16", "pi073"])
    parser.add_argument("--prompts", type=int, default=40)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--start-mb", type=float, default=None,
                        help="time the bridge's start on a generated session of this size")
    parser.add_argument("--baseline-src", metavar="DIR", default=None,
                        help="(--start-mb) another checkout's src, timed in the same run")
    parser.add_argument("--baseline", metavar="REF", default=None,
                        help="(--start-mb) a git ref whose code is timed in the same run")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    if args.start_mb is not None:
        return start_report(args)
    command = install(args.variant)
    with tempfile.TemporaryDirectory(prefix="waymarks-pi-") as tmp, FakeOpenAI() as fake:
        home = PiHome(Path(tmp), command, fake.base_url)
        timings = Path(tmp, "timings.jsonl")
        home.extra_env["WAYMARKS_BRIDGE_TIMINGS"] = str(timings)
        subprocess.run(home.argv("-p", "hello"), cwd=home.project, env=home.env,
                       capture_output=True, check=True)
        [session_file] = home.session_files()
        with Waymarks(home.waymarks_home, cwd=str(home.project),
                      session=str(session_file)) as app:  # Pi is not running: safe to append
            for n in range(5):
                app.pin(f"Project rule number {n}: keep functions short")
            for n in range(args.memories):
                app.remember(f"Service {n} listens on port {2000 + n} in staging")
        timings.unlink(missing_ok=True)
        rpc = PiRpc(home)
        try:
            rpc.prompt("warm up")
            timings.unlink(missing_ok=True)
            python_ms = []
            for n in range(args.prompts):
                rpc.prompt(f"which port does service {n * 7 % args.memories} use?")
            rows = [json.loads(line) for line in timings.read_text().splitlines()]
        finally:
            rpc.close()
        with Waymarks(home.waymarks_home, cwd=str(home.project),
                      session=str(session_file)) as app:
            from waymarks.personal.setup import plan_with_memory

            for n in range(args.prompts):
                started = time.perf_counter()
                plan_with_memory(app, f"which port does service {n * 7 % args.memories} use?")
                python_ms.append((time.perf_counter() - started) * 1000)
        without = [wall(home, False) for _ in range(args.runs)]
        with_ext = [wall(home, True) for _ in range(args.runs)]
    by_method: dict[str, list[float]] = {}
    for row in rows:
        by_method.setdefault(row["method"], []).append(row["ms"])
    report = {
        "benchmark": "pi_bridge", "variant": args.variant, "prompts": args.prompts,
        "memories": args.memories, "pins": 5,
        "round_trip_from_extension": {m: summary(v) for m, v in sorted(by_method.items())},
        "baseline_python_plan_in_process": summary(python_ms),
        "startup_ms": {"without_extension_p50": round(statistics.median(without), 1),
                       "with_extension_p50": round(statistics.median(with_ext), 1),
                       "added_p50": round(statistics.median(with_ext)
                                          - statistics.median(without), 1)},
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


def start_report(args: argparse.Namespace) -> int:
    from code_baseline import described, source_of
    from pi_bridge_start import start_figures

    with source_of(args.baseline) as exported:
        source = str(exported) if exported is not None else args.baseline_src
        figures = start_figures(args.start_mb, args.runs, source)
    json.dump({"benchmark": "pi_bridge_start", "python": sys.version.split()[0],
               "baseline_code": described(args.baseline) or (
                   {"src": args.baseline_src} if args.baseline_src else None),
               **figures}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
