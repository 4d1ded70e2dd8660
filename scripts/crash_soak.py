#!/usr/bin/env python3
"""Crash-consistency soak: many killed writers on one session, checked after each kill.

Runs the harness of ``tests/durability/test_crash.py`` (wall-clock kills from outside,
kills between the ledger append and the projection commit, and torn half-written lines)
and prints a table, or one JSON document with ``--json``. Exit status 1 if anything
acknowledged was lost, duplicated, or differs from a rebuild.

    .venv/bin/python scripts/crash_soak.py --trials 300 [--seed N] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.durability.test_crash import MODES, run_harness, summary_json  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON summary")
    parser.add_argument("--keep", type=Path, help="run in this directory and keep it")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        summary = run_harness(args.keep, args.trials, args.seed)
    else:
        with tempfile.TemporaryDirectory(prefix="waymarks-crash-") as tmp:
            summary = run_harness(Path(tmp), args.trials, args.seed)
    report = summary_json(summary)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        rows = [
            ("seed", summary.seed),
            ("trials", summary.trials),
            *((f"kills: {mode}", summary.kills.get(mode, 0)) for mode in MODES),
            ("wall-clock runs that finished first", summary.wallclock_finished),
            ("acknowledged writes", summary.acknowledged),
            ("acknowledged items", summary.acknowledged_items),
            ("landed unacknowledged", summary.landed_unacknowledged),
            ("lost", summary.lost),
            ("duplicates", summary.duplicates),
            ("status errors", summary.status_errors),
            ("rebuild mismatches", summary.rebuild_mismatches),
            ("health errors", summary.health_errors),
            ("torn tails seen", summary.torn_tails),
            ("torn tails terminated", summary.torn_tails_terminated),
            ("torn lines used (complete)", summary.torn_lines_used),
            ("kills right after ending a torn line", summary.killed_after_terminator),
            ("ledger lines / bytes", f"{summary.ledger_lines} / {summary.ledger_bytes}"),
            ("elapsed s", summary.elapsed_s),
            ("violations", len(summary.violations)),
        ]
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"{name:<{width}}  {value}")
        for violation in summary.violations[:20]:
            print(f"VIOLATION {violation}")
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
