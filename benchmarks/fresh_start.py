"""Benchmark: a fresh ``waymarks`` process against a large home (issue 15's first target).

For each size a home is generated with one session ledger of ``size`` mutations (the
realistic mix of ``benchmarks/rebuild.py``: memory adds, pins, supersedes, expiries) in the
home's session directory for a project, and projected once with ``waymarks
rebuild-index`` (timed: ``rebuild_s``). Then, each in a new process, timed wall clock:

- ``recall``: ``waymarks recall QUERY`` (the one-shot recall of issue 15's table), run
  as a person runs it: the console script (``command`` in the output);
- ``pins``: ``waymarks --json pins`` (a listing that needs the session's branch);
- ``recall_new_session``: the same recall in the project's next session (after ``waymarks
  session new``), which may see none of the generated memory (the earlier session's own);
- baselines in the same run, interleaved round by round (``spawn_timing.py``):
  ``python -c pass``, ``python -c "import waymarks.cli.main"``, and with
  ``--baseline-src DIR`` the same two commands from another checkout's ``src``.

Targets (issue 15): fresh recall <= 60 / 80 / 150 ms at 10k / 100k / 1M memories,
independent of ledger length. Prints one JSON document.

With the semantic extra installed and on, ``rebuild-index`` starts a background worker
embedding every claim (minutes of CPU, on the same cores) and each recall embeds its
query (the model's load): run with ``WAYMARKS_SEMANTIC=off`` for the lexical one-shot
recall of issue 15's table (the document says which: ``semantic``).

    .venv/bin/python benchmarks/fresh_start.py [--sizes 10000,100000] [--runs 15]
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

from bench_stats import steal_during, steal_s
from rebuild import generate
from spawn_timing import environment, interleaved, load_average, with_src
from waymarks.ledger.discovery import session_dir

TARGET_MS = {10_000: 60.0, 100_000: 80.0, 1_000_000: 150.0}
QUERY = "which service uses Kafka for event fan-out?"


def command() -> list[str]:
    """What a person runs: the installation's ``waymarks`` console script (``-m`` imports
    ``runpy`` too, ~3 ms), or ``python -m waymarks.cli.main`` where there is none."""
    script = Path(sys.executable).with_name("waymarks")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "waymarks.cli.main"]


def run_size(size: int, runs: int, baseline_src: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-fresh-") as tmp:
        root = Path(tmp)
        home, project = root / "home", root / "project"
        project.mkdir()
        directory = session_dir(home, str(project.resolve()))
        directory.mkdir(parents=True)
        ledger = directory / "2026-01-01T00-00-00-000Z_bench.jsonl"
        generate(ledger, size, 1, str(project.resolve()))
        env = environment({"WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"})
        waymarks = command()
        start = time.perf_counter()
        subprocess.run([*waymarks, "rebuild-index"], cwd=project, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        rebuild_s = time.perf_counter() - start
        recall = [*waymarks, "recall", QUERY]
        pins = [*waymarks, "--json", "pins"]
        variants = {"python_pass": ([sys.executable, "-c", "pass"], env),
                    "recall": (recall, env), "pins": (pins, env)}
        variants["recall_new_session"] = (recall, _new_session(home, root / "home-new",
                                                               project, env, waymarks))
        if baseline_src:
            # the baseline gets its own copy of the home, projected by its own code: a
            # projection of a newer schema is refused by older code (as it should be)
            base_home = root / "home-baseline"
            shutil.copytree(home / "sessions", base_home / "sessions")
            base_env = with_src(environment({"WAYMARKS_HOME": str(base_home),
                                             "WAYMARKS_CC_HELPER": "off"}), baseline_src)
            subprocess.run([*waymarks, "rebuild-index"], cwd=project, env=base_env,
                           check=True, stdout=subprocess.DEVNULL)
            variants["recall_baseline"] = (recall, base_env)
            variants["pins_baseline"] = (pins, base_env)
            variants["recall_new_session_baseline"] = (recall, _new_session(
                home, root / "home-new-baseline", project, base_env, waymarks))
        timed = interleaved(variants, runs, cwd=project)
        return {"size": size, "ledger_mb": round(ledger.stat().st_size / 1e6, 1),
                "rebuild_s": round(rebuild_s, 2),
                "rebuild_mutations_per_s": round(size / rebuild_s), **timed,
                "target_recall_ms": TARGET_MS.get(size),
                "met": timed["recall"]["p50_ms"] <= TARGET_MS.get(size, float("inf"))}


def _new_session(home: Path, into: Path, project: Path, env: dict[str, str],
                 waymarks: list[str]) -> dict[str, str]:
    """A copy of ``home`` (projected by the code ``env`` runs) where the project's next
    session has begun: the generated memory is the earlier session's own, which this one
    may not see (``recall_new_session``: a recall that finds nothing it may use)."""
    shutil.copytree(home / "sessions", into / "sessions")
    env = {**env, "WAYMARKS_HOME": str(into)}
    for command in ("rebuild-index", "session new"):
        subprocess.run([*waymarks, *command.split()], cwd=project, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another checkout's src folder, timed in the same rounds "
                             "(e.g. git archive main src | tar -x -C /tmp/base)")
    args = parser.parse_args()
    env = environment()
    here = Path.cwd()
    imports = {"python_pass": ([sys.executable, "-c", "pass"], env),
               "import_cli": ([sys.executable, "-c", "import waymarks.cli.main"], env)}
    load_before = load_average()
    steal_before = steal_s()
    baseline = interleaved(imports, args.runs, cwd=here)
    sizes = [run_size(int(size), args.runs, args.baseline_src)
             for size in args.sizes.split(",")]
    print(json.dumps({"benchmark": "fresh_start", "cpus": os.cpu_count(),
                      "load_average": {"before": load_before, "after": load_average()},
                      "steal_s": steal_during(steal_before),
                      "baseline_src": args.baseline_src, "baseline": baseline,
                      "semantic": os.environ.get("WAYMARKS_SEMANTIC", "on"),
                      "command": command(), "sizes": sizes}, indent=2))


if __name__ == "__main__":
    main()
