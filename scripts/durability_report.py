"""One table of what the durability suite tried and what survived.

Runs the crash soak (SIGKILL at random moments, between the ledger append and the
projection commit, and mid-line) and the concurrency benchmark (writers on one session
and on sibling sessions, with readers checking for torn reads), then prints a summary.
Exits 1 if anything acknowledged was lost, duplicated, corrupted or torn.

    .venv/bin/python scripts/durability_report.py [--trials 300] [--writers 8] [--writes 250]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_json(command: list[str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    try:
        return dict(json.loads(done.stdout))
    except json.JSONDecodeError:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=300, help="crash trials")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--writes", type=int, default=250, help="writes per writer")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"crash soak: {args.trials} trials ...", file=sys.stderr, flush=True)
    crash = run_json(["scripts/crash_soak.py", "--trials", str(args.trials),
                      "--seed", str(args.seed), "--json"])
    print(f"concurrency: {args.writers} writers x {args.writes} writes ...", file=sys.stderr,
          flush=True)
    load = run_json(["benchmarks/concurrency.py", "--writers", str(args.writers),
                     "--writes", str(args.writes)])

    kills = crash["kills"]
    rows = [
        ("crash trials", crash["trials"]),
        ("kills: wall-clock / between append+commit / mid-line",
         f"{kills['wallclock']} / {kills['between']} / {kills['midline']}"),
        ("acknowledged writes", crash["acknowledged"]),
        ("lost", crash["lost"]),
        ("duplicates", crash["duplicates"]),
        ("rebuild mismatches", crash["rebuild_mismatches"]),
        ("torn last lines seen / terminated",
         f"{crash['torn_tails']} / {crash['torn_tails_terminated']}"),
    ]
    bad = crash["lost"] + crash["duplicates"] + crash["rebuild_mismatches"]
    for name, scenario in load["scenarios"].items():
        latency = scenario["latency_ms"]
        checks = scenario["checks"]
        rows += [
            (f"{name}: writers x writes", f"{scenario['writers']} x "
                                         f"{scenario['writes_per_writer']}"),
            (f"{name}: lost / duplicates / corrupt lines",
             f"{checks['lost']} / {checks['duplicates']} / {checks['corrupt_lines']}"),
            (f"{name}: torn reads (reader checks)",
             f"{scenario['reader_violations']} ({scenario['reader_checks']})"),
            (f"{name}: rebuild matches", checks["rebuild_matches"]),
            (f"{name}: durable writes/s", scenario["durable_writes_per_s"]),
            (f"{name}: p50 / p95 / max ms",
             f"{latency['p50_ms']} / {latency['p95_ms']} / {latency['max_ms']}"),
        ]
        bad += checks["lost"] + checks["duplicates"] + checks["corrupt_lines"]
        bad += scenario["reader_violations"] + (not checks["rebuild_matches"])
    baseline = load["baseline_single_process"]
    rows.append(("baseline, one process: writes/s, p95 ms",
                 f"{baseline['durable_writes_per_s']}, {baseline['latency_ms']['p95_ms']}"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print(f"{'verdict':<{width}}  {'PASS' if bad == 0 else 'FAIL'}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
