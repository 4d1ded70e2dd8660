"""Benchmark: work observations (issue 19), beside ``python -c pass`` measured in the same run.

- ``post_tool_use_helper``: Claude Code's ``PostToolUse`` hook as Claude Code runs it (a new
  process, ``<venv>/bin/waymarks --home H hook claude-code PostToolUse``, a Bash call's real
  hook input on stdin, ~6 KB of output) answered by the warm helper, learning on: one
  bounded, redacted observation appended to the session's ledger (target: median <= 25 ms);
- ``post_tool_use_cold``: the same without the helper (for scale); ``hook_entry_point_only``
  the entry point refusing its input at once (the cost of any hook process here);
- ``post_tool_use_helper_side``: what the helper does per call (in-process, warm app);
- ``post_tool_use_learning_off``: learning off, through the helper (nothing recorded);
- ``capture_4096``: capturing a 4,096-message work turn in-process (gate, retention, bounds,
  field-by-field redaction, nomination against ``--claims`` project states, one source
  appended under the ledger lock; target <= 50 ms); ``observe_4096`` the pure part alone.

Prints one JSON document. ``python_c_pass`` is the process floor of this machine, now.

Baseline in the same run (``hook_vs_baseline``): the hook client of the code at
``--baseline`` (default ``main``; ``git archive``) against this tree's, each copied to a
temporary directory and byte-compiled (as an installed wheel is: this machine sets
``PYTHONDONTWRITEBYTECODE``, so an editable checkout recompiles every module on every hook),
each run by the command its ``claude-code install`` writes (the current tree:
``python -I -S .../waymarks/hosts/hook_entry.py``; code without that launcher: a script
shaped like the ``waymarks`` console script), each answered by its own warm helper on its
own home; runs alternate (baseline, current, ``python -c pass``, ``python -I -S -c pass``:
the floor without ``site``).
Wall time and the hook process's CPU time (user + system, from ``getrusage`` of the
reaped child) are reported, with the load average before and after.

    .venv/bin/python benchmarks/evolution_observe.py [--runs 30] [--claims 200]
        [--baseline main]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from waymarks.core.evolution.observations import (
    AssistantText,
    ToolCall,
    ToolResult,
    TurnItem,
    UserText,
    observe,
)
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_observe import capture_work, checkout_root

#: what ``claude-code install`` writes for the hooks (``python -I -S`` this launcher)
HOOK_ENTRY = Path(__file__).resolve().parents[1] / "src" / "waymarks" / "hosts" / \
    "hook_entry.py"


def timed(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=True, env=env)
    return (time.perf_counter() - started) * 1000


REPO = Path(__file__).resolve().parents[1]


def timed_cpu(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None
              ) -> tuple[float, float]:
    """Wall ms and the child's CPU ms (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=True, env=env)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def tree(where: Path, ref: str | None) -> list[str]:
    """``src`` of ``ref`` (``None``: this working tree) under ``where``, byte-compiled, and
    the command ``claude-code install`` of that code writes: its hook launcher
    (``python -I -S .../waymarks/hosts/hook_entry.py``) when it has one, else a launcher
    shaped like the ``waymarks`` console script that imports from it."""
    where.mkdir(parents=True)
    if ref is None:
        shutil.copytree(REPO / "src", where / "src",
                        ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    compileall.compile_dir(str(where / "src"), quiet=1)
    entry = where / "src" / "waymarks" / "hosts" / "hook_entry.py"
    if entry.exists():
        return [sys.executable, "-I", "-S", str(entry)]
    launcher = where / "waymarks"
    launcher.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, "
                        f"{str(where / 'src')!r})\nfrom waymarks.cli.main import main\n"
                        "if __name__ == '__main__':\n    sys.exit(main())\n")
    launcher.chmod(0o755)
    return [str(launcher)]


def start_helper(src: Path, home: Path) -> subprocess.Popen[bytes]:
    code = (f"import sys; sys.path.insert(0, {str(src)!r}); from pathlib import Path; "
            f"from waymarks.hosts.cc_helper import serve; serve(Path({str(home)!r}), 300)")
    helper = subprocess.Popen([sys.executable, "-I", "-c", code], cwd=home,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    sock = home / "claude-code" / "helper.sock"
    for _ in range(200):
        if sock.exists():
            return helper
        time.sleep(0.05)
    raise RuntimeError("the helper did not start")


def versus(tmp: str, runs: int, baseline: str, payload: bytes, project: Path
           ) -> dict[str, object]:
    """The warm-helper PostToolUse hook: the baseline's client and helper against this
    tree's, alternating, with ``python -c pass``; wall and CPU."""
    load_before = os.getloadavg()
    setups = {}
    helpers = []
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"CLAUDE_PROJECT_DIR": str(project), "WAYMARKS_CC_HELPER_IDLE": "300"})
    try:
        for name, ref in (("baseline", baseline), ("current", None)):
            root = Path(tmp, f"tree-{name}")
            launcher = tree(root, ref)
            home = root / "home"
            home.mkdir()
            (home / "config.toml").write_text("[evolution]\nlearn = true\n")
            helpers.append(start_helper(root / "src", home))
            argv = [*launcher, "--home", str(home), "hook", "claude-code", "PostToolUse"]
            for _ in range(3):  # the helper's app warm, the files in the page cache
                timed_cpu(argv, payload, env)
            setups[name] = argv
        walls: dict[str, list[float]] = {"baseline": [], "current": [], "python_c_pass": [],
                                         "python_IS_c_pass": []}
        cpus: dict[str, list[float]] = {k: [] for k in walls}
        setups["python_c_pass"] = [sys.executable, "-c", "pass"]
        setups["python_IS_c_pass"] = [sys.executable, "-I", "-S", "-c", "pass"]
        for run in range(runs):
            order = ["baseline", "current", "python_c_pass", "python_IS_c_pass"]
            for name in (order if run % 2 == 0 else order[::-1]):
                argv = setups[name]
                wall, cpu = timed_cpu(argv, b"" if "pass" in name else payload, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    finally:
        for helper in helpers:
            helper.terminate()
            helper.wait(10)
    out: dict[str, object] = {"baseline_ref": baseline}
    for name in walls:
        out[name] = {"wall": summary(walls[name]),
                     "cpu_median_ms": round(statistics.median(cpus[name]), 2)}
    floor = statistics.median(walls["python_c_pass"])
    for name in ("baseline", "current"):
        entry = out[name]
        assert isinstance(entry, dict)
        entry["added_wall_median_ms"] = round(statistics.median(walls[name]) - floor, 2)
        entry["added_cpu_median_ms"] = round(
            statistics.median(cpus[name]) - statistics.median(cpus["python_c_pass"]), 2)
    out["load_average_before"] = [round(x, 2) for x in load_before]
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def summary(values: list[float], floor: float | None = None) -> dict[str, float]:
    ordered = sorted(values)
    out = {"runs": len(values), "median_ms": round(statistics.median(values), 2),
           "p90_ms": round(ordered[max(0, int(len(ordered) * 0.9) - 1)], 2),
           "min_ms": round(ordered[0], 2)}
    if floor is not None:
        out["added_median_ms"] = round(statistics.median(values) - floor, 2)
    return out


def big_turn(project: Path) -> list[TurnItem]:
    """4,096 messages: a request, 2,047 linked call/result pairs (commits, tests, edits,
    inspections; ~1 KB outputs), a final reply."""
    items: list[TurnItem] = [UserText("Finish the billing refactor in the api project, "
                                      "run the tests, commit and push")]
    commands = [f"cd {project} && git commit -am step", "python -m pytest -q tests",
                f"sed -i s/a/b/ {project}/api.py", f"ls -la {project}", f"cat {project}/x",
                f"git -C {project} push origin main"]
    for i in range(2047):
        call_id = f"c{i}"
        items.append(ToolCall(call_id, "bash", {"command": commands[i % len(commands)]}))
        items.append(ToolResult(call_id, f"line {i} of output\n" * 50, i % 7 == 0))
    items.append(AssistantText("Done."))
    assert len(items) == 4096
    return items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--baseline", default="main",
                        help="the git ref whose hook client is the baseline")
    parser.add_argument("--hook-only", action="store_true",
                        help="only the hook against the baseline (hook_vs_baseline)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waymarks-obs-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "api")
        project.mkdir()
        (project / ".git").mkdir()
        home.mkdir()
        (home / "config.toml").write_text("[evolution]\nlearn = true\n")
        origin = str(project)
        with Evolution(home) as evo:  # project states to nominate from
            for i in range(args.claims):
                said = evo.capture(origin, "statement", f"Remember: state {i}", session="s",
                                   key=f"k{i}")
                assert said is not None
                evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
                    {"kind": "project_state", "content":
                     f"The api billing step {i} is not committed yet"}]}), "f", "f"),
                    "2030-01-01T00:00:00.000Z")

        floor_runs = [timed([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
        floor = statistics.median(floor_runs)
        results: dict[str, object] = {"python_c_pass": summary(floor_runs)}

        session = str(uuid.uuid4())
        output = "".join(f"{i:04} ok tests/test_{i}.py::test_case PASSED\n"
                         for i in range(120))
        payload = json.dumps({
            "session_id": session, "cwd": str(project), "hook_event_name": "PostToolUse",
            "transcript_path": str(Path(tmp, "t.jsonl")), "permission_mode": "default",
            "tool_name": "Bash", "tool_use_id": "toolu_01",
            "tool_input": {"command": f"cd {project} && python -m pytest -q",
                           "description": "run the tests"},
            "tool_response": {"stdout": output, "stderr": "", "interrupted": False,
                              "isImage": False}}).encode()
        results["hook_vs_baseline"] = versus(tmp, args.runs, args.baseline, payload, project)
        if args.hook_only:
            print(json.dumps(results, indent=1))
            return 0
        argv = [sys.executable, "-I", "-S", str(HOOK_ENTRY), "--home", str(home), "hook",
                "claude-code", "PostToolUse"]
        base_env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
        cold = {**base_env, "WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(project)}
        warm = {**base_env, "WAYMARKS_CC_HELPER_IDLE": "20", "CLAUDE_PROJECT_DIR": str(project)}
        timed(argv, payload, warm)  # starts the helper
        time.sleep(1.5)
        for _ in range(3):
            timed(argv, payload, warm)
        results["post_tool_use_helper"] = summary(
            [timed(argv, payload, warm) for _ in range(args.runs)], floor)
        results["post_tool_use_cold"] = summary(
            [timed(argv, payload, cold) for _ in range(max(5, args.runs // 3))], floor)
        # the same entry point refusing its input at once: what any hook process costs here
        results["hook_entry_point_only"] = summary(
            [timed(argv, b"not json", cold) for _ in range(args.runs)], floor)
        # what the helper itself does per PostToolUse (in-process, warm app): the record
        from waymarks.hosts.claude_code import handle
        from waymarks.service.app import Waymarks

        hook_input = json.loads(payload)
        with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
            handle("PostToolUse", hook_input, home, app)
            inside = []
            for run in range(args.runs):
                started = time.perf_counter()
                handle("PostToolUse", {**hook_input, "tool_use_id": f"in{run}"}, home, app)
                inside.append((time.perf_counter() - started) * 1000)
        results["post_tool_use_helper_side"] = summary(inside)
        (home / "config.toml").write_text("[evolution]\nlearn = false\n")
        results["post_tool_use_learning_off"] = summary(
            [timed(argv, payload, warm) for _ in range(args.runs)], floor)
        (home / "config.toml").write_text("[evolution]\nlearn = true\n")

        items = big_turn(project)
        observe_runs = []
        for _ in range(args.runs):
            started = time.perf_counter()
            observe(items, cwd=origin, state_dir=str(home), root_of=checkout_root)
            observe_runs.append((time.perf_counter() - started) * 1000)
        results["observe_4096"] = summary(observe_runs)
        capture_runs = []
        decisions = set()
        with Evolution(home) as evo:
            for run in range(args.runs):
                started = time.perf_counter()
                done = capture_work(evo, origin, "bench", f"turn-{run}", items, cwd=origin,
                                    host="bench")
                capture_runs.append((time.perf_counter() - started) * 1000)
                decisions.add(done["decision"])
        results["capture_4096"] = summary(capture_runs)
        results["capture_decisions"] = sorted(decisions)

        sessions = list((home / "sessions").rglob("*.jsonl"))
        recorded = sum(line.count("waymarks-tool-observation-v1")
                       for p in sessions for line in p.read_text().splitlines())
        results["setup"] = {"claims": args.claims, "turn_messages": len(items),
                            "observations_recorded": recorded,
                            "hook_output_bytes": len(output)}
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
