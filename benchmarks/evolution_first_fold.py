"""Benchmark: prompts' hooks while another process folds a large evolution ledger first.

Issue 15 x seed 004: the first fold of a large evolution ledger beside a new database (the
helper as it starts, ``evolution list``, a database set aside) held the projection's
writer's turn for the whole fold (~70 s wall at 60k learned claims), so every prompt's
hook during it waited for its own small write and got no context, pins included. The home
is ``learned_hook.py``'s (``--learned`` claims written straight into the ledger, 5 pins);
its database is deleted, a process of its own folds the ledger (``Evolution.sync``), and
Claude Code's ``UserPromptSubmit`` hook (helper off) runs back to back until the fold
ends; then likewise while a process builds the corpus the Claude Code helper builds as it
starts (``warm``: every claim analysed, its analyses and ~12 postings each written).
Reported per phase and code: its wall time, each hook's wall time (``max_hook_ms``: the
longest a prompt waited) and how many hooks injected the pins. With ``--baseline-src
DIR`` another checkout does the same on a copy of the home, in the same run.

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/evolution_first_fold.py [--learned 20000]
        [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claude_code_hook import hook_command
from code_baseline import checked_tree
from learned_hook import learned_home
from spawn_timing import environment, load_average

#: the fold, in a process of its own, by the code in ``sys.argv[1]``
FOLD = ("import sys, time; sys.path.insert(0, sys.argv[1]); "
        "from waymarks.service.evolution import Evolution; from pathlib import Path; "
        "t, c = time.perf_counter(), time.process_time(); evo = Evolution(Path(sys.argv[2]));"
        " n = evo.sync(); evo.close(); print(n, round((time.perf_counter() - t) * 1000),"
        " round((time.process_time() - c) * 1000))")
#: then the corpus the Claude Code helper builds as it starts (analyses, postings written)
WARM = ("import sys, time; sys.path.insert(0, sys.argv[1]); "
        "from waymarks.service.evolution_recall import warm; from pathlib import Path; "
        "t, c = time.perf_counter(), time.process_time(); warm(Path(sys.argv[2])); "
        "print(0, round((time.perf_counter() - t) * 1000),"
        " round((time.process_time() - c) * 1000))")
PIN = "Project rule 0"


def during_fold(home: Path, src: Path, payload: bytes) -> dict[str, object]:
    """Fold ``home``'s ledger, then build its corpus, with the code in ``src`` (its
    database deleted first), while its hook runs back to back."""
    for stale in home.glob("waymarks.db*"):
        stale.unlink()
    fold = during(home, src, payload, FOLD)
    return {**fold, "warm": during(home, src, payload, WARM)}


def during(home: Path, src: Path, payload: bytes, script: str) -> dict[str, object]:
    """Run ``script`` with the code in ``src`` while the hook runs back to back."""
    env = environment({"WAYMARKS_CC_HELPER": "off", "WAYMARKS_SEMANTIC": "off"})
    argv = hook_command(home, src / "waymarks/hosts/hook_entry.py")
    folder = subprocess.Popen([sys.executable, "-c", script, str(src), str(home)],
                              stdout=subprocess.PIPE, env=env)
    hooks: list[float] = []
    with_pins = 0
    while folder.poll() is None:
        started = time.perf_counter()
        out = subprocess.run(argv, input=payload, capture_output=True, env=env).stdout
        hooks.append((time.perf_counter() - started) * 1000)
        with_pins += PIN in out.decode(errors="replace")
    folded, wall_ms, cpu_ms = (folder.communicate()[0] or b"0 0 0").split()
    return {"wall_ms": int(wall_ms), "cpu_ms": int(cpu_ms), "folded": int(folded),
            "hooks": len(hooks),
            "hooks_with_pins": with_pins,
            "max_hook_ms": round(max(hooks), 1) if hooks else None,
            "median_hook_ms": round(sorted(hooks)[len(hooks) // 2], 1) if hooks else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learned", type=int, default=20_000)
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another checkout's src folder, measured in the same run")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    with tempfile.TemporaryDirectory(prefix="waymarks-fold-", ignore_cleanup_errors=True) as tmp:
        home, project, session_id, ledger_bytes = learned_home(Path(tmp), args.learned)
        payload = json.dumps({"session_id": session_id, "cwd": str(project),
                              "hook_event_name": "UserPromptSubmit",
                              "transcript_path": str(Path(tmp, "t.jsonl")),
                              "prompt": "which port does the cache service 37 use?"}).encode()
        baseline = None
        if args.baseline_src:
            copy = Path(tmp, "home-baseline")
            shutil.copytree(home, copy, ignore=shutil.ignore_patterns("*.lock"))
            baseline = during_fold(copy, Path(args.baseline_src).resolve(), payload)
        current = during_fold(home, Path(__file__).resolve().parents[1] / "src", payload)
    json.dump({"benchmark": "evolution_first_fold", "learned": args.learned, "pins": 5,
               "ledger_mb": round(ledger_bytes / 1e6, 1), "load_average": load_average(),
               "claude_code_limit_ms": 10_000, "current": current, "baseline": baseline,
               "baseline_src": args.baseline_src}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
