"""Benchmark: the Claude Code ``UserPromptSubmit`` hook on a home of many learned claims.

Issue 15 x seed 004: at 60k learned claims the prompt hook took 13-23 s without the warm
helper and 2.7-16.5 s with it, past Claude Code's 10 s hook limit (the prompt then gets
no context, pins included). The home is built fast: ``--learned`` claims (a source, the
claim, its settlement each) written straight into the evolution ledger (no fsync per
line), 5 pins, learning on; ``first_build`` is the first fold, analysis and posting of
every claim, in this process (what the helper does as it starts: a hook leaves a fold
that long to it). Then, timed as Claude Code runs the hook (``claude_code_hook.py``'s
command line, payload on stdin):

- ``without_helper``: ``WAYMARKS_CC_HELPER=off``, the projection current, interleaved with
  ``python -c pass`` and, with ``--baseline-src DIR``, another checkout's hook on a copy of
  the home projected by its own code (``without_helper_baseline``);
- ``with_helper``: the helper started and its corpus built by a first prompt, then
  ``--runs`` prompts; ``after_write``: each of ``--writes`` prompts follows a learned claim
  appended by another process (the helper follows it by a delta).

``same_context``: the context the current code injects for the same prompt equals the
baseline's (the fixes must not change which items are chosen). The machine is shared:
the load average and steal time are recorded; CPU time is the figure to compare.

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/learned_hook.py [--learned 20000] [--runs 5]
        [--writes 3] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bench_stats import steal_during, steal_s
from claude_code_hook import baseline_home, helper_env, hook_command, summary
from code_baseline import checked_tree
from leftovers import temporary_folder
from spawn_timing import environment, interleaved, load_average, run_once
from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    SettledRecord,
    SourceRecord,
    claim_id,
    encode_record,
)
from waymarks.hosts.claude_code import handle
from waymarks.hosts.claude_code_install import hook_entry
from waymarks.ledger.session_file import SessionFile
from waymarks.service.app import Waymarks
from waymarks.service.evolution import LEDGER_SESSION_ID, Evolution
from waymarks.service.evolution_recall import warm
from waymarks.service.learning import ledger_path, set_learning

WORDS = ("cache retry queue deploy lint schema token backup index shard worker build "
         "release").split()


def write_ledger(home: Path, learned: int, origin: str, seed: int = 7) -> int:
    """``learned`` claims, each with its source and settlement, appended as raw lines."""
    rng = random.Random(seed)
    path = ledger_path(home)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    SessionFile.create(path, LEDGER_SESSION_ID, "2026-11-01T00:00:00.000Z", str(home))
    parent: str | None = None
    with open(path, "a", encoding="utf-8") as out:
        for i in range(learned):
            at = f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:00:00.000Z"
            sid = f"src{i:07d}"
            text = (f"The {rng.choice(WORDS)} service {i} uses port {2000 + i % 60000} and "
                    f"{rng.choice(WORDS)} mode in cluster {i % 97}")
            kind = ("fact", "preference", "decision")[i % 3]
            for record in (
                    SourceRecord(SCHEMA_VERSION, sid, origin, "statement", "user_statement",
                                 text, "normal", at, "bench"),
                    ClaimRecord(SCHEMA_VERSION, claim_id(origin, kind, text), origin,
                                kind, text,  # type: ignore[arg-type]
                                Evidence("user_statement", "model", sid, at),
                                search_terms=(rng.choice(WORDS), f"svc{i}")),
                    SettledRecord(SCHEMA_VERSION, sid, "applied", at, 1, 0)):
                entry = uuid.uuid4().hex[:8]
                out.write(json.dumps({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                                      "data": encode_record(record), "timestamp": at,
                                      "id": entry, "parentId": parent},
                                     separators=(",", ":")) + "\n")
                parent = entry
    return path.stat().st_size


def learn_one(home: Path, origin: str, n: int) -> None:
    """One learned claim appended and projected, as a consolidation writes it."""
    text = f"The audit service {n} keeps its logs for {n + 30} days"
    with Evolution(home) as evo, evo.ledger.locked():
        evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                           "data": encode_record(ClaimRecord(
                               SCHEMA_VERSION, claim_id(origin, "fact", text), origin,
                               "fact", text,
                               Evidence("user_statement", "model", "bench", "2026-12-01"
                                        "T00:00:00.000Z"))),
                           "timestamp": "2026-12-01T00:00:00.000Z"}, evo.ids.entry_id)
        evo.sync()


def context(argv: list[str], payload: bytes, env: dict[str, str]) -> str:
    out = subprocess.run(argv, input=payload, capture_output=True, env=env,
                         check=True).stdout
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def learned_home(tmp: Path, learned: int) -> tuple[Path, Path, str, int]:
    """A home in ``tmp`` with a Claude Code session of 5 project pins and ``learned``
    claims written straight into its evolution ledger, learning on: its home, project,
    session ID and the ledger's size in bytes (``evolution_first_fold.py`` uses it too)."""
    home, project = tmp / "home", tmp / "project"
    project.mkdir()
    session_id = str(uuid.uuid4())
    handle("SessionStart", {"session_id": session_id, "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"}, home)
    with Waymarks(home, cwd=str(project), session=session_id) as app:
        for n in range(5):
            app.pin(f"Project rule {n}: keep functions short")
    ledger_bytes = write_ledger(home, learned, str(project.resolve()))
    set_learning(home, True)
    return home, project, session_id, ledger_bytes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learned", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--writes", type=int, default=3)
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another checkout's src folder, timed in the same rounds")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    # (the helper and the hooks' detached children may still write there: they are stopped
    # first, and cleaning up must not lose the report)
    cleanup: dict[str, object] = {}
    with temporary_folder("waymarks-learned-", cleanup) as tmp:
        home, project, session_id, ledger_bytes = learned_home(Path(tmp), args.learned)
        argv = hook_command(home, hook_entry())
        payloads = [json.dumps({"session_id": session_id, "cwd": str(project),
                                "hook_event_name": "UserPromptSubmit",
                                "transcript_path": str(Path(tmp, "t.jsonl")),
                                "prompt": f"which port does the cache service {n * 37} use?"}
                               ).encode() for n in range(args.runs + args.writes + 1)]
        off = environment({"WAYMARKS_CC_HELPER": "off"})
        steal_before = steal_s()
        # the first fold and corpus (what the helper does as it starts, and any command
        # with the time: a hook leaves a fold this long to them, HOOK_FOLD_BYTES)
        started, cpu = time.perf_counter(), time.process_time()
        warm(home)
        first_wall = (time.perf_counter() - started) * 1000
        first_cpu = (time.process_time() - cpu) * 1000
        variants = {"python_pass": ([sys.executable, "-c", "pass"], off),
                    "without_helper": (argv, off)}
        baseline_argv = None
        if args.baseline_src:
            baseline_argv = hook_command(
                baseline_home(home, Path(tmp, "home-baseline"), args.baseline_src, project,
                              embed=False),
                Path(args.baseline_src) / "waymarks/hosts/hook_entry.py")
            variants["without_helper_baseline"] = (baseline_argv, off)
        cold = interleaved(variants, args.runs, stdin=payloads)
        same = None if baseline_argv is None else \
            context(argv, payloads[1], off) == context(baseline_argv, payloads[1], off)
        helper = helper_env()
        subprocess.run(argv, input=payloads[0], capture_output=True, env=helper,
                       check=True)  # starts the helper (the hook did the work itself)
        started = time.perf_counter()
        run_once(argv, helper, None, payloads[0])  # the helper builds its corpus
        helper_first_ms = (time.perf_counter() - started) * 1000
        served = [run_once(argv, helper, None, p)[0] for p in payloads[1:args.runs + 1]]
        after_write = []
        for n in range(args.writes):
            learn_one(home, str(project.resolve()), n)
            after_write.append(run_once(argv, helper, None,
                                        payloads[args.runs + n])[0])
        subprocess.run([*argv[:-2], "claude-code", "SessionEnd"], input=json.dumps(
            {"session_id": session_id, "cwd": str(project), "hook_event_name": "SessionEnd",
             "reason": "exit"}).encode(), capture_output=True, env=helper)
    report = {
        "benchmark": "learned_hook", "learned": args.learned, "pins": 5,
        "ledger_mb": round(ledger_bytes / 1e6, 1), "load_average": load_average(),
        "steal_s": steal_during(steal_before), "baseline_src": args.baseline_src,
        "semantic": os.environ.get("WAYMARKS_SEMANTIC", "on"),
        "claude_code_limit_ms": 10_000,
        "first_build": {"wall_ms": round(first_wall, 1), "cpu_ms": round(first_cpu, 1)},
        "without_helper": cold["without_helper"],
        "without_helper_baseline": cold.get("without_helper_baseline"),
        "floor_python_pass": cold["python_pass"],
        "with_helper_first_ms": round(helper_first_ms, 1),
        "with_helper": summary(served),
        "with_helper_after_write": summary(after_write) if after_write else None,
        "same_context": same, "cleanup": cleanup,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
