"""Benchmark: learning capture on Claude Code's ``Stop`` hook path, spawn to exit.

The hook runs as Claude Code runs it: a new process, ``<venv>/bin/waymarks --home H hook
claude-code Stop``, the payload on stdin naming a real transcript (``--messages`` entries,
user and assistant). Learning is on; the evolution ledger already holds ``--sources``
captured sources. Cases, each against the floor ``python -c pass`` from the same virtualenv
(the "added" figures subtract its median):

- ``new_statement``: each run appends one new user statement to the transcript (one new
  source captured: ledger lock, fold, append, fsync);
- ``nothing_new``: the transcript has no new statement (the common turn);
- ``learning_off``: the switch is off (the hook reads the config and stops);
- ``hook_refused_input``: the entry point alone (input refused at once), for scale;
- each of the first two once more through the warm helper (``WAYMARKS_CC_HELPER`` on).
No model is called on this path, ever. Prints one JSON document.

    .venv/bin/python benchmarks/evolution_capture.py [--runs 30] [--sources 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from waymarks.service.evolution import Evolution

WAYMARKS = Path(sys.executable).parent / "waymarks"


def timed(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=True, env=env)
    return (time.perf_counter() - started) * 1000


def summary(values: list[float], floor: float | None = None) -> dict[str, float]:
    ordered = sorted(values)
    out = {"runs": len(values), "median_ms": round(statistics.median(values), 1),
           "p90_ms": round(ordered[max(0, int(len(ordered) * 0.9) - 1)], 1),
           "min_ms": round(ordered[0], 1)}
    if floor is not None:
        out["added_median_ms"] = round(statistics.median(values) - floor, 1)
    return out


def user(text: str) -> str:
    return json.dumps({"type": "user", "uuid": str(uuid.uuid4()),
                       "message": {"role": "user", "content": text}})


def assistant(text: str) -> str:
    return json.dumps({"type": "assistant", "uuid": str(uuid.uuid4()),
                       "message": {"role": "assistant",
                                   "content": [{"type": "text", "text": text}]}})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--sources", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waymarks-evo-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        home.mkdir()
        (home / "config.toml").write_text("[evolution]\nlearn = true\n")
        with Evolution(home) as evo:
            evo.capture_many(str(project), "seed", [
                ("statement", f"k{i}", f"Remember fact number {i} about module {i % 50}")
                for i in range(args.sources)])
        transcript = Path(tmp, "transcript.jsonl")
        lines = []
        for i in range(args.messages // 2):
            lines += [user(f"Please look at file_{i}.py and fix the failing test"),
                      assistant(f"I changed file_{i}.py; the test passes now. " * 5)]
        transcript.write_text("\n".join(lines) + "\n")
        session = str(uuid.uuid4())
        payload = json.dumps({"session_id": session, "cwd": str(project),
                              "hook_event_name": "Stop", "transcript_path": str(transcript),
                              "stop_hook_active": False}).encode()
        argv = [str(WAYMARKS), "--home", str(home), "hook", "claude-code", "Stop"]
        base_env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
        cold = {**base_env, "WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(project)}
        warm = {**base_env, "WAYMARKS_CC_HELPER_IDLE": "15", "CLAUDE_PROJECT_DIR": str(project)}
        floor_runs = [timed([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
        floor = statistics.median(floor_runs)
        results: dict[str, object] = {"python_c_pass": summary(floor_runs)}
        # the hook's own entry point, input refused at once: what any hook costs
        results["hook_refused_input"] = summary(
            [timed(argv, b"not json", cold) for _ in range(args.runs)], floor)

        def new_statement(env: dict[str, str]) -> float:
            with transcript.open("a") as handle:
                handle.write(user(f"Remember: service {uuid.uuid4().hex[:8]} uses port "
                                  "8443 from now on") + "\n")
                handle.write(assistant("Noted.") + "\n")
            return timed(argv, payload, env)

        results["new_statement"] = summary([new_statement(cold) for _ in range(args.runs)],
                                           floor)
        results["nothing_new"] = summary([timed(argv, payload, cold)
                                          for _ in range(args.runs)], floor)
        timed(argv, payload, warm)  # starts the helper
        time.sleep(1.0)
        results["helper_new_statement"] = summary(
            [new_statement(warm) for _ in range(args.runs)], floor)
        results["helper_nothing_new"] = summary(
            [timed(argv, payload, warm) for _ in range(args.runs)], floor)
        (home / "config.toml").write_text("[evolution]\nlearn = false\n")
        results["learning_off"] = summary([timed(argv, payload, cold)
                                           for _ in range(args.runs)], floor)
        with Evolution(home) as evo:
            counts = evo.counts()
        results["setup"] = {"transcript_messages": len(transcript.read_text().splitlines()),
                            "sources_before": args.sources,
                            "sources_after": counts["sources_pending"]}
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
