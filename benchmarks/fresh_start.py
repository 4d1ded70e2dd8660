"""Benchmark: a fresh ``waymarks`` process against a large home (issue 15's first target).

For each size a home is generated with one session ledger of ``size`` mutations (the
realistic mix of ``benchmarks/rebuild.py``: memory adds, pins, supersedes, expiries) in the
home's session directory for a project, and projected once with ``waymarks
rebuild-index`` (timed: ``rebuild_s``). Then, each in a new process, timed wall clock:

- ``recall``: ``waymarks recall QUERY`` (the one-shot recall of issue 15's table), run
  as a person or a script runs it: the console script (``command`` in the output), output
  captured, so a child of the CLI's warm helper runs it (``waymarks.cli.warm``; the helper
  is started and warm before the timed rounds); ``recall_cold``: the same with
  ``WAYMARKS_CLI_HELPER=off``, the command run by the process itself;
- ``pins`` and ``pins_cold``: ``waymarks --json pins`` (a listing that needs the session's
  branch), warm and in its own process: every pin the generator made (``pins_listed``: a
  quarter of the mutations, 24,814 at 100k), so it grows with them, where a handful of
  pins among as many memories costs what it costs in a small store;
- ``recall_new_session``: the same recall in the project's next session (after ``waymarks
  session new``), which may see none of the generated memory (the earlier session's own);
- baselines in the same run, interleaved round by round (``spawn_timing.py``):
  ``python -c pass``, ``python -c "import waymarks.cli.main"``, and with
  ``--baseline-src DIR`` the same two commands from another checkout's ``src``, and
  ``recall``, ``recall_cold``, ``pins`` and ``recall_new_session`` from it
  (``*_baseline``; ``recall_cold_baseline``: without the helper, as ``recall_cold``).

Targets (issue 15): fresh recall <= 60 / 80 / 150 ms at 10k / 100k / 1M memories,
independent of ledger length (``met``: the warm recall; ``met_cold``: in its own process).
A warm variant's ``cpu_p50_ms`` is its client's only: the helper's children are not this
process's; ``warm_children_cpu_ms`` is what the helpers' children took per command, on
average (their helpers' ``cutime`` + ``cstime`` across the rounds). Prints one JSON
document.

Lexical by default (``WAYMARKS_SEMANTIC=off`` for every command it runs): issue 15's
table is the lexical one-shot recall, and with the semantic extra on ``rebuild-index``
starts a background worker embedding every claim (minutes of CPU on the same cores, and
it outlived the run) while each recall embeds its query. ``--semantic`` runs with the
extra as installed (the document says which: ``semantic``). Every process still running
in the run's folders at its end (warm helpers, the baseline's included; workers) is
stopped.

    .venv/bin/python benchmarks/fresh_start.py [--sizes 10000,100000] [--runs 15]
        [--baseline-src DIR] [--semantic]
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
from code_baseline import checked_tree
from leftovers import marked, stop_started
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
    # (every process started here carries the run's mark: only those are stopped after)
    with tempfile.TemporaryDirectory(prefix="waymarks-fresh-") as tmp, marked() as token:
        root = Path(tmp)
        home, project = root / "home", root / "project"
        project.mkdir()
        directory = session_dir(home, str(project.resolve()))
        directory.mkdir(parents=True)
        ledger = directory / "2026-01-01T00-00-00-000Z_bench.jsonl"
        mix = generate(ledger, size, 1, str(project.resolve()))
        env = environment({"WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
                           "WAYMARKS_CLI_HELPER_IDLE": "1800"})
        env.pop("WAYMARKS_CLI_HELPER", None)
        cold = {**env, "WAYMARKS_CLI_HELPER": "off"}
        waymarks = command()
        start = time.perf_counter()
        subprocess.run([*waymarks, "rebuild-index"], cwd=project, env=cold, check=True,
                       stdout=subprocess.DEVNULL)
        rebuild_s = time.perf_counter() - start
        recall = [*waymarks, "recall", QUERY]
        pins = [*waymarks, "--json", "pins"]
        variants = {"python_pass": ([sys.executable, "-c", "pass"], env),
                    "recall": (recall, env), "recall_cold": (recall, cold),
                    "pins": (pins, env), "pins_cold": (pins, cold)}
        new_session = _new_session(home, root / "home-new", project, env, waymarks)
        variants["recall_new_session"] = (recall, new_session)
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
            variants["recall_cold_baseline"] = (recall, {**base_env,
                                                         "WAYMARKS_CLI_HELPER": "off"})
            variants["pins_baseline"] = (pins, base_env)
            variants["recall_new_session_baseline"] = (recall, _new_session(
                home, root / "home-new-baseline", project, base_env, waymarks))
        helpers = [_warm_helper(recall, env, project), _warm_helper(recall, new_session,
                                                                     project)]
        try:
            children_before = sum(_children_cpu_s(pid) for pid in helpers)
            timed = interleaved(variants, runs, cwd=project)
            # a helper that ended during the rounds (idle, refused) left commands cold
            helpers_served_throughout = all(Path(f"/proc/{pid}").exists() for pid in helpers)
            children_s = sum(_children_cpu_s(pid) for pid in helpers) - children_before
        finally:
            # (the helpers run in their home, the baseline's too: all stopped, at once)
            stop_started(root, token, grace_s=0)
        target = TARGET_MS.get(size, float("inf"))
        return {"size": size, "ledger_mb": round(ledger.stat().st_size / 1e6, 1),
                "pins_listed": mix.get("pin_add", 0),
                "rebuild_s": round(rebuild_s, 2),
                "rebuild_mutations_per_s": round(size / rebuild_s), **timed,
                # (three warm variants a round; warm-up runs are outside the rounds)
                "warm_children_cpu_ms": round(children_s * 1000 / (3 * (runs + 1)), 1),
                "helpers_served_throughout": helpers_served_throughout,
                "target_recall_ms": TARGET_MS.get(size),
                "met": timed["recall"]["p50_ms"] <= target,
                "met_cold": timed["recall_cold"]["p50_ms"] <= target}


def _warm_helper(argv: list[str], env: dict[str, str], cwd: Path) -> int:
    """Run ``argv`` until the helper it leaves listens (its socket is made once it has
    imported what the commands need); the helper's pid."""
    home = env["WAYMARKS_HOME"]
    for _ in range(200):
        subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
        pids = [pid for pid in _helper_pids() if f"{home}/cli/" in _command_line(pid)]
        if pids and list(Path(home, "cli").glob("warm-*.sock")):
            return pids[0]
        time.sleep(0.05)
    raise SystemExit(f"no warm helper started for {home}")


def _helper_pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()
            and "waymarks.cli.warm_server" in _command_line(int(entry.name))]


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _children_cpu_s(pid: int) -> float:
    """CPU time (user + system) of ``pid``'s children it has collected."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # it has ended (helpers_served_throughout says so)
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


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
    parser.add_argument("--semantic", action="store_true",
                        help="run with the semantic extra as installed (default: lexical)")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    if not args.semantic:
        os.environ["WAYMARKS_SEMANTIC"] = "off"  # (every command's environment is this one's)
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
