"""Benchmark: the MCP tools, memory_recall and context_persistence.

- in-process round trips (the SDK's real client against the server object), p50/p99:
  memory_recall; context_persistence ``memory_list``; a confirmed ``memory_add`` (the
  client answers the elicitation at once, so this is the machinery, not a person);
  baseline in the same run: the same write straight through the service (``remember``);
- stdio, with the SDK's stdio client: time from spawning ``waymarks mcp`` to the answer to
  ``initialize``, and to the result of the first ``memory_recall`` (over a home of 200
  claims), median of runs, with the server's CPU time at each (``/proc``); baseline in
  the same run: spawning ``python -c pass`` and importing the MCP SDK,
  and with ``--baseline-src DIR`` the same spawn from another checkout's ``src``,
  interleaved (``git archive HEAD src | tar -x -C /tmp/base``). ``--stdio-only`` skips the
  in-process round trips.

    .venv/bin/python benchmarks/mcp_tools.py [--calls 300] [--spawns 5] [--baseline-src DIR]
                                             [--stdio-only]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import ElicitResult

from bench_stats import summary
from code_baseline import checked_tree
from spawn_timing import environment, load_average, with_src
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks


def seed(app: Waymarks, count: int) -> None:
    for n in range(count):
        app.remember(f"Service number {n} listens on port {4000 + n} in staging")


async def in_process(app: Waymarks, calls: int) -> list[float]:
    times = []
    async with Client(build_server(app)) as client:
        for n in range(calls):
            started = time.perf_counter()
            await client.call_tool("memory_recall", {"query": f"port of service {n % 50}?"})
            times.append((time.perf_counter() - started) * 1000)
    return times


async def accept(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"confirm": True})


async def persistence(app: Waymarks, calls: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"list": [], "confirmed_write": []}
    async with Client(build_server(app), elicitation_callback=accept) as client:
        for n in range(calls):
            for name, args in (("list", {"action": "memory_list"}),
                               ("confirmed_write", {"action": "memory_add", "content":
                                                    f"Worker {n} drains queue q{n}"})):
                started = time.perf_counter()
                result = await client.call_tool("context_persistence", args)
                times[name].append((time.perf_counter() - started) * 1000)
                outcome = (result.structured_content or {}).get("outcome")
                assert outcome in ("ok", "committed"), result
    return times


def direct_writes(app: Waymarks, calls: int) -> list[float]:
    times = []
    for n in range(calls):
        started = time.perf_counter()
        app.remember(f"Direct worker {n} drains queue d{n}")
        times.append((time.perf_counter() - started) * 1000)
    return times



async def first_result(home: Path, project: Path, src: str | None = None
                       ) -> tuple[float, float, float, float]:
    """Spawn ``waymarks mcp`` (from ``src``, another checkout's source, if given) and call
    one tool: milliseconds to the answer to ``initialize`` and to the tool's result, and
    the server's CPU time by then (:func:`server_cpu_ms`)."""
    env = with_src(environment({"WAYMARKS_HOME": str(home)}), src)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "waymarks.cli.main", "--home", str(home), "mcp"],
        cwd=str(project), env=env)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        initialized = (time.perf_counter() - started) * 1000
        initialized_cpu = server_cpu_ms()
        result = await session.call_tool("memory_recall", {"query": "port of service 7?"})
        answered = (time.perf_counter() - started) * 1000
        answered_cpu = server_cpu_ms()
    assert "4007" in json.dumps(result.structured_content), result  # a real answer
    return initialized, answered, initialized_cpu, answered_cpu


def server_cpu_ms() -> float:
    """The CPU time so far of this process's child ``waymarks mcp`` (one at a time), all
    its threads (``/proc/PID/task/*/schedstat``, in nanoseconds: a busy machine disturbs
    it far less than wall time); NaN where ``/proc`` cannot say."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[1] != me or not (stat.parent / "cmdline").read_bytes().endswith(
                    b"\0mcp\0"):  # another child: the seeding's embedding worker
                continue
            return sum(int(task.read_text().split()[0])
                       for task in stat.parent.glob("task/*/schedstat")) / 1e6
        except (OSError, IndexError, ValueError):
            continue
    return math.nan


def wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def spawn_summary(runs: list[tuple[float, float, float, float]]) -> dict[str, Any]:
    """Medians of :func:`first_result`'s figures, and the fastest start to a result."""
    return {"runs": len(runs),
            "to_initialize_p50_ms": round(statistics.median(r[0] for r in runs), 1),
            "to_first_result_p50_ms": round(statistics.median(r[1] for r in runs), 1),
            "to_first_result_min_ms": round(min(r[1] for r in runs), 1),
            "cpu_to_initialize_p50_ms": round(statistics.median(r[2] for r in runs), 1),
            "cpu_to_first_result_p50_ms": round(statistics.median(r[3] for r in runs), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--spawns", type=int, default=5)
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another checkout's src folder: its stdio start is timed in "
                             "the same rounds")
    parser.add_argument("--stdio-only", action="store_true",
                        help="time the stdio start only (no in-process round trips)")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    report: dict[str, Any] = {"benchmark": "mcp_tools"}
    with tempfile.TemporaryDirectory(prefix="waymarks-mcp-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        app = Waymarks(home, cwd=str(project), keep_recall_index=True)
        seed(app, 200)
        if not args.stdio_only:
            times = anyio.run(in_process, app, args.calls)
            app.session_say("Track the queue workers")  # provenance for the tool's writes
            tool_times = anyio.run(persistence, app, args.calls)
            direct = direct_writes(app, args.calls)
            report.update({
                "in_process_round_trip": summary(times),
                "context_persistence_list": summary(tool_times["list"]),
                "context_persistence_confirmed_write": summary(tool_times["confirmed_write"]),
                "baseline_direct_service_write": summary(direct)})
        app.close()
        # the baseline's own copy of the home, its databases left out for it to build:
        # one this version migrated is too new for an older one (schema_too_new)
        base_home = Path(tmp, "baseline-home")
        if args.baseline_src:
            shutil.copytree(home, base_home, ignore=shutil.ignore_patterns("*.db", "*.db-*"))
        anyio.run(first_result, home, project)  # compiles whatever bytecode is missing
        if args.baseline_src:
            anyio.run(first_result, base_home, project, args.baseline_src)
        spawns, baseline_spawns = [], []
        python_pass, sdk_import = [], []
        for _ in range(args.spawns):  # interleaved: the machine's load changes meanwhile
            spawns.append(anyio.run(first_result, home, project))
            if args.baseline_src:
                baseline_spawns.append(anyio.run(first_result, base_home, project,
                                                 args.baseline_src))
            python_pass.append(wall([sys.executable, "-c", "pass"]))
            sdk_import.append(wall([sys.executable, "-c", "import mcp.server, mcp.types"]))
    report.update({
        "load_average": load_average(),
        "stdio": spawn_summary(spawns),
        "stdio_baseline_src": spawn_summary(baseline_spawns) if baseline_spawns else None,
        "baseline_python_pass_ms": round(statistics.median(python_pass), 1),
        "baseline_import_mcp_sdk_ms": round(statistics.median(sdk_import), 1),
    })
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
