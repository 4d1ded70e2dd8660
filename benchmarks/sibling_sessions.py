"""Benchmark: a plan's cost beside 10 and 2,000 sibling session files (issue 15).

A trusted project with an active session and ``N`` sibling session files in its session
folder (Pi's format, messages only: the same memory to recall whatever ``N``; the newest
``maxProjectSessions``, 100, are listed). Two histories: ``fresh``, the files all new, so
only the newest 100 were ever indexed; ``accumulated``, every file indexed once (as over
months each session was among the newest while it was used), the rest past the bound.
Through the real service, in one long-lived process (as the Pi bridge, the hook helper
and the MCP server serve reads):

- ``plan``: ``plan_request`` with nothing changed, wall and CPU time;
- ``plan_after_sibling_append``: the plan right after another process appended a project
  memory to the oldest sibling (past the bound until the write makes it the newest);
  ``appends_seen`` counts the memories those plans found in effect: it must equal
  ``appends``, or a write was missed.

``--baseline-src DIR`` (another tree's ``src``, e.g. ``git archive HEAD~1 src | tar -x -C
/tmp/base``) runs each size again with that code, right after the current code's, so a
busy machine disturbs both alike.

    .venv/bin/python benchmarks/sibling_sessions.py [--siblings 10,2000] [--plans 200]
        [--appends 20] [--histories fresh,accumulated] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import code_baseline
from bench_stats import steal_during, steal_s, summary
from code_baseline import checked_tree
from cross_session import T0, memory_line, write_sibling
from waymarks.ledger.discovery import session_dir
from waymarks.service.app import Waymarks
from waymarks.service.planning import plan_request

PROMPT = "what port does the billing service listen on?"
APPEND = "import sys; open(sys.argv[1], 'a').write(sys.argv[2])"


def timed(app: Waymarks) -> tuple[float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    plan_request(app, PROMPT, provider="remote")
    return (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000


def run(siblings: int, plans: int, appends: int, accumulated: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-siblings-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        home.mkdir()
        config = home / "config.toml"
        config.write_text(f"[memory]\nmaxProjectSessions = {siblings}\n" if accumulated
                          else "")
        app = Waymarks(home, cwd=str(project), keep_recall_index=True)
        app.trust(str(project))
        app.session_new()
        app.session_say("start")
        folder = session_dir(home, app.cwd)
        paths = [write_sibling(folder, app.cwd, T0 + n * 400_000, 8, 0)
                 for n in range(siblings)]  # 8 entries: messages, no memory
        for n, path in enumerate(paths):
            os.utime(path, ns=(10**18 + n * 10**9, 10**18 + n * 10**9))  # paths[0] oldest
        timed(app)  # indexes the newest 100, or (accumulated) every file
        config.write_text("")  # the default bound, 100
        for _ in range(20):  # then it is steady
            timed(app)
        steal_before, load_before = steal_s(), code_baseline.load()
        plan_wall, plan_cpu = zip(*(timed(app) for _ in range(plans)), strict=True)
        after_wall, after_cpu, seen = [], [], 0
        for n in range(appends):
            line = memory_line(app.cwd, f"f{n:07x}", "00000001", T0 + 10**9 + n, 10**6 + n)
            subprocess.run([sys.executable, "-c", APPEND, str(paths[n % len(paths)]),
                            json.dumps(line) + "\n"], check=True)
            wall, cpu = timed(app)
            after_wall.append(wall)
            after_cpu.append(cpu)
            seen = sum(1 for item in app.items("memory") if item.applies)
        app.close()
    return {"siblings": siblings, "history": "accumulated" if accumulated else "fresh",
            "plans": plans,
            "load_avg_before_after": [load_before, code_baseline.load()],
            "steal_s": steal_during(steal_before),
            "plan": summary(plan_wall, 3), "plan_cpu": summary(plan_cpu, 3),
            "plan_after_sibling_append": summary(after_wall, 3),
            "plan_after_sibling_append_cpu": summary(after_cpu, 3),
            "appends": appends, "appends_seen": seen}


def child(siblings: int, history: str, args: argparse.Namespace, source: Path | None
          ) -> dict[str, Any]:
    env = code_baseline.env_with(source)
    env["WAYMARKS_SEMANTIC"] = "off"
    out = subprocess.run(
        [sys.executable, __file__, "--one", str(siblings), "--plans", str(args.plans),
         "--appends", str(args.appends), "--history", history], check=True,
        capture_output=True, text=True, env=env)
    return dict(json.loads(out.stdout))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--siblings", default="10,2000")
    parser.add_argument("--plans", type=int, default=200)
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another tree's src, run on each size right after this one")
    parser.add_argument("--histories", default="fresh,accumulated")
    parser.add_argument("--history", default="fresh", help=argparse.SUPPRESS)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    if args.one is not None:
        print(json.dumps(run(args.one, args.plans, args.appends,
                             args.history == "accumulated")))
        return 0
    results = []
    sizes = [int(s) for s in args.siblings.split(",") if s.strip()]
    for history, siblings in ((h, n) for h in args.histories.split(",") for n in sizes):
        entry: dict[str, Any] = {"current": child(siblings, history, args, None)}
        if args.baseline_src:
            entry["baseline"] = child(siblings, history, args, Path(args.baseline_src))
            entry["cpu_p50_speedup"] = round(entry["baseline"]["plan_cpu"]["p50_ms"]
                                             / entry["current"]["plan_cpu"]["p50_ms"], 2)
        results.append(entry)
    json.dump({"benchmark": "sibling_sessions", "python": sys.version.split()[0],
               "baseline_src": args.baseline_src, "results": results}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
