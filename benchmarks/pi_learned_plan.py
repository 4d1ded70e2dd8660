"""Benchmark: Pi's first plan on a home of many learned claims (issue 15 x seed 004).

Pi's bridge built its ranking of the learned claims on the first ``plan`` (15 s at 60k
claims, past the extension's 5 s for a call: that prompt got no context at all). The home
is ``learned_hook.py``'s (``--learned`` claims written straight into the evolution ledger,
learning on), folded by the code measured (``evolution_first_fold.FOLD``) and, with
``--posted``, its postings written too (``WARM``, what a helper or ``rebuild-index`` leaves).
A bridge is started as the extension starts it; timed from its start: ``initialize``, the
first ``plan``, and the first plan whose learned memory is no longer left out
(``ready_ms``, plans sent back to back). ``same_plan``: the ready plan's messages equal
the baseline's (which items are chosen once caught up must not change). With
``--baseline-src DIR`` another checkout does the same on a copy of the home, in the
same run.

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/pi_learned_plan.py [--learned 20000] [--posted]
        [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from code_baseline import checked_tree
from evolution_first_fold import FOLD, WARM
from learned_hook import write_ledger
from spawn_timing import load_average
from waymarks.service.learning import set_learning

SRC = Path(__file__).resolve().parents[1] / "src"
PROMPT = "which port does the cache service 37 use?"


def prepared(home: Path, src: Path, posted: bool) -> None:
    for stale in home.glob("waymarks.db*"):
        stale.unlink()
    for script in (FOLD, WARM) if posted else (FOLD,):
        subprocess.run([sys.executable, "-c", script, str(src), str(home)], check=True,
                       capture_output=True)


def first_plans(home: Path, project: Path, src: Path, limit_s: float) -> dict[str, Any]:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
           "PYTHONPATH": str(src), "WAYMARKS_SEMANTIC": "off"}
    started = time.perf_counter()
    bridge = subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "bridge"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=env, cwd="/")
    assert bridge.stdin is not None and bridge.stdout is not None
    number = 0

    def ask(method: str, params: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        nonlocal number
        number += 1
        assert bridge.stdin is not None and bridge.stdout is not None
        bridge.stdin.write(json.dumps({"id": number, "method": method,
                                       "params": params}) + "\n")
        bridge.stdin.flush()
        answer = json.loads(bridge.stdout.readline())
        if "error" in answer:
            raise SystemExit(f"{method}: {answer['error']}")
        return (time.perf_counter() - started) * 1000, answer["result"]

    init_ms, _ = ask("initialize", {"cwd": str(project), "hasUI": False})
    plans: list[tuple[float, dict[str, Any]]] = []
    while True:
        before = time.perf_counter()
        at, plan = ask("plan", {"prompt": PROMPT})
        plans.append(((time.perf_counter() - before) * 1000, plan))
        if not plan.get("learnedLeftOut") or at > limit_s * 1000:
            break
    ask("shutdown", {})
    bridge.wait()
    return {"initialize_ms": round(init_ms, 1), "first_plan_ms": round(plans[0][0], 1),
            "first_plan_learned_left_out": plans[0][1].get("learnedLeftOut"),
            "plans_until_ready": len(plans), "ready_ms": round(at, 1),
            "max_plan_ms": round(max(p[0] for p in plans), 1),
            "plan_ms": [round(p[0]) for p in plans],
            "messages": [m["content"] for m in plans[-1][1]["messages"]]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learned", type=int, default=20_000)
    parser.add_argument("--posted", action="store_true")
    parser.add_argument("--limit-s", type=float, default=300)
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another checkout's src folder, measured in the same run")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    with tempfile.TemporaryDirectory(prefix="waymarks-pi-learned-",
                                     ignore_cleanup_errors=True) as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        write_ledger(home, args.learned, str(project.resolve()))
        set_learning(home, True)
        codes = {"current": (home, SRC)}
        if args.baseline_src:
            copy = Path(tmp, "home-baseline")
            shutil.copytree(home, copy)
            codes["baseline"] = (copy, Path(args.baseline_src).resolve())
        report: dict[str, Any] = {}
        for name, (where, src) in codes.items():
            prepared(where, src, args.posted)
            report[name] = first_plans(where, project, src, args.limit_s)
    same = None
    if "baseline" in report:
        same = report["baseline"].pop("messages") == report["current"]["messages"]
    report["current"].pop("messages")
    json.dump({"benchmark": "pi_learned_plan", "learned": args.learned,
               "posted": args.posted, "load_average": load_average(),
               "extension_limit_ms": 5_000, **report, "same_plan": same,
               "baseline_src": args.baseline_src}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
