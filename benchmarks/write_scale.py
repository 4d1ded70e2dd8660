"""Benchmark: one memory write against a store of 1,000 / 10,000 / 100,000 memories.

A write decides under the session lock (duplicates, conflicts by key and polarity, and
contradictions by signature against the claims the writer sees), appends and flushes the
entry, and projects it. Each size builds a real home (the session ledger of
``benchmarks/plan.py``: memory adds with varied claims and 50 pins, in the home's session
folder) and projects it with ``rebuild_index``; then, in the same process, ``--writes``
memories are written one after another through ``Waymarks.remember`` (claims about
subjects the store does not hold, so each is committed). Reported per size: the first
write (before the rebuild caught up every claim's subject terms itself, the first write
after it did: ``store/claim_subjects.py``) and p50 / p95 / max of the others, wall and
CPU time, the load average and ``steal_s``. With ``--baseline REF`` each size also runs
against the code of ``REF`` (``code_baseline.py``), on its own copy of the ledger, in a
second process: the two take the writes in turns (``--rounds``, 4; ``alternate.py``, the
order reversed every other round), so both are timed in the same minutes (the baseline
ran after the current code's last write before). Each round's figures (``rounds``),
their spread (``round_spread``) and the gaps round by round (``round_gaps``) are
reported beside the totals.

No target of its own: issue 15 asks for a core that scales to a million memories, and a
write compared its claim with every active claim (2.8 s a write at 100k).

``--withheld``: the writes go instead into a session the projection withholds, a ledger
of the project opened by path outside its session directories (``--session
/tmp/shared.jsonl``), as session claims (its project writes are refused). Each write,
the first one too (it registers the file), re-folded every stored mutation until the sync
told from the new records what such a source holds back (``store/withheld.py``): 0.67 s
of CPU a write at 10k, 4.6 s at 60k.

    .venv/bin/python benchmarks/write_scale.py [--sizes 1000,10000,100000] [--writes 40]
        [--rounds 4] [--baseline REF] [--withheld]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import alternate
import code_baseline
from bench_stats import percentile, steal_during, steal_s
from plan import write_ledger


def withheld_ledger(folder: Path, project: Path) -> Path:
    """An empty session ledger of ``project`` in ``folder``, outside its session
    directories: a session whose project items the projection holds back."""
    folder.mkdir()
    ledger = folder / "shared.jsonl"
    ledger.write_text(json.dumps({"type": "session", "version": 3,
                                  "id": "00000000-0000-4000-8000-00000000beef",
                                  "timestamp": "2026-02-01T00:00:00.000Z",
                                  "cwd": str(project.resolve())}) + "\n")
    return ledger


def run(size: int, writes: int, seed: int, withheld: bool = False,
        rounds: int = 1) -> dict[str, Any]:
    from waymarks.ledger.discovery import session_dir
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import Committed

    with tempfile.TemporaryDirectory(prefix="waymarks-writes-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        home = Path(tmp, "home")
        folder = session_dir(home, str(project.resolve()))
        folder.mkdir(parents=True)
        ledger = folder / "2026-01-01T00-00-00-000Z_bench.jsonl"
        write_ledger(ledger, str(project.resolve()), size, 50, seed)
        app = Waymarks(home, cwd=str(project), session=str(ledger))
        started = time.perf_counter()
        app.rebuild_index()
        rebuild_s = time.perf_counter() - started
        scope: str | None = None  # (the configured default)
        if withheld:
            app.close()
            app = Waymarks(home, cwd=str(project),
                           session=str(withheld_ledger(Path(tmp, "elsewhere"), project)))
            scope = "session"
        wall: list[float] = []
        cpu: list[float] = []
        rounds_seen = []
        load_before, steal_before = code_baseline.load(), steal_s()
        # in turns with the other tree's child (alternate.py): a share of the writes each
        for number in alternate.turns(rounds):
            load = code_baseline.load()[0]
            first = len(wall)
            for n in range(*alternate.share(writes + 1, rounds, number)):
                c0, t0 = time.process_time(), time.perf_counter()
                outcome = app.remember(f"The stream-{n} consumer retries {n + 2} times"
                                       " after a timeout", scope=scope)
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
                if not isinstance(outcome, Committed):
                    raise SystemExit(f"write {n} was not committed: {outcome}")
            timed = slice(max(1, first), None)  # (the first write is reported apart)
            if wall[timed]:
                rounds_seen.append({"writes": len(wall[timed]), "load_1min": load,
                                    "write": alternate.round_figures(wall[timed],
                                                                     cpu[timed])})
        app.close()
    rest, rest_cpu = wall[1:], cpu[1:]
    return {"memories": size, "writes": writes, "withheld": withheld,
            "rebuild_s": round(rebuild_s, 2),
            "first_write_ms": round(wall[0], 2),
            "write_ms": {"p50": round(statistics.median(rest), 3),
                         "p95": round(percentile(rest, 95), 3), "max": round(max(rest), 3)},
            "write_cpu_ms": {"p50": round(statistics.median(rest_cpu), 3),
                             "p95": round(percentile(rest_cpu, 95), 3)},
            "load_avg_before_after": [load_before, code_baseline.load()],
            "steal_s": steal_during(steal_before),
            # per round: wall and CPU per write, and their spread across the rounds
            "rounds": rounds_seen,
            "round_spread": {"write": alternate.spread([r["write"] for r in rounds_seen])}}


def main() -> int:
    parser = code_baseline.sized_parser(__doc__, "1000,10000,100000")
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--withheld", action="store_true",
                        help="write into a ledger outside the session directories")
    parser.add_argument("--rounds", type=int, default=4,
                        help="rounds the writes are split in; with --baseline the two "
                             "trees take them in turns")
    args = parser.parse_args()
    if not 1 <= args.rounds <= args.writes:
        parser.error(f"--rounds {args.rounds}: give 1 to --writes ({args.writes})")
    if args.one is not None:
        print(json.dumps(run(args.one, args.writes, args.seed, args.withheld, args.rounds)))
        return 0
    report = code_baseline.sized_report(
        __file__, "write_scale", args,
        ["--writes", str(args.writes), "--rounds", str(args.rounds),
         *(["--withheld"] if args.withheld else [])], rounds=args.rounds)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
