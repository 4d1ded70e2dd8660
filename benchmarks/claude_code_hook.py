"""Benchmark: the Claude Code ``UserPromptSubmit`` hook, spawn to exit, at 10,000 memories.

The hook runs as Claude Code runs it: a new process, the command ``claude-code install``
writes (``<venv python> -I -S <waymarks>/hosts/hook_entry.py --home H hook claude-code
UserPromptSubmit``), the recorded payload on stdin. The session holds
``--memories`` claims and 5 pins, then ``--prompts`` earlier prompts of the person (40:
past the 24 earlier prompts a hook plans with, so each run finds its history in the
ledger's last bytes, as the hook of a long conversation does; the session used to hold
only the runs' own prompts, fewer than 25 but in the last rounds, and every run read the
last 2 MiB of the ledger for them); each run records the prompt and prints the plan. Timed
twice: without the warm helper (``WAYMARKS_CC_HELPER=off``, interleaved with ``python -c
pass`` and, with ``--baseline-src DIR``, another checkout's hook; ``spawn_timing.py``),
then with the helper (the way Claude Code runs it).
Floors measured in the same run: ``python -c pass`` from the virtualenv, the same through
a pyenv shim when one exists, and the hook with input that is refused at once (the cost
of starting Waymarks' entry point). The baseline answers from a copy of the home projected
by its own code (a newer schema is refused by older code); both homes' recall indexes are
complete before the first timed round (a hook leaves more than 10,000 items to a process
of its own, which would run beside the rounds). With the semantic extra
installed, every claim written wakes the background embedder (minutes of CPU on the same
cores) and a hook without the helper loads the model: run with ``WAYMARKS_SEMANTIC=off``
for the lexical hook of issue 15's table (the report says which: ``semantic``), or with
``--embed`` (and ``WAYMARKS_SEMANTIC_BACKFILL=off``) for every claim embedded before the
rounds, in the baseline's home too. ``first_prompt``: the hook as a session's first prompt
meets it, the helper on but none running (the hook starts one; each round waits for it
to end, idle 1 s): since it starts a helper, that hook recalls by words alone
(``waymarks.service.recall_mode``); ``without_helper`` is the helper switched off, every
prompt such a process (hybrid kept). What the rounds left running in the run's folder
(helpers, the hooks' detached children, the embedder) is stopped before it is removed
(``leftovers.py``; the report's ``cleanup`` counts them).

    .venv/bin/python benchmarks/claude_code_hook.py [--memories 10000] [--prompts 40]
        [--runs 30] [--embed] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bench_stats import steal_during, steal_s
from code_baseline import checked_tree
from leftovers import temporary_folder
from spawn_timing import environment, interleaved, load_average
from waymarks.hosts.claude_code import handle
from waymarks.hosts.claude_code_install import hook_entry
from waymarks.service.app import Waymarks


def helper_env() -> dict[str, str]:
    """The hook's environment with the helper on, gone soon after the run: read when
    called (a copy made at import lacked the mark ``leftovers.marked`` puts in the
    environment of the run's folder, and the helpers it started were not known as the
    benchmark's)."""
    return {**os.environ, "WAYMARKS_CC_HELPER_IDLE": "15"}


def hook_command(home: Path, entry: Path) -> list[str]:
    """What Claude Code runs for the hook (``claude-code install``'s command line)."""
    return [sys.executable, "-I", "-S", str(entry), "--home", str(home), "hook",
            "claude-code", "UserPromptSubmit"]


#: the baseline's own projection of the same ledgers, built by its own code
REBUILD = ("import sys; sys.path.insert(0, sys.argv[1]); from waymarks.cli.main import main; "
           "sys.exit(main(['--home', sys.argv[2], *sys.argv[3:]]))")


def baseline_home(home: Path, copy: Path, src: str, project: Path, embed: bool) -> Path:
    """A copy of ``home`` (its ledgers, its Claude Code state) projected by the code in
    ``src``: a database of a newer schema is refused by older code, whose hook would then
    answer at once and be timed doing nothing. ``embed``: every claim embedded there too
    (``index --semantic``), as in ``home``."""
    shutil.copytree(home, copy, ignore=shutil.ignore_patterns("waymarks.db*", "*.lock"))
    for command in (["rebuild-index"], ["index", "--semantic"]) if embed else \
            (["rebuild-index"],):
        subprocess.run([sys.executable, "-c", REBUILD, src, str(copy), *command], cwd=project,
                       check=True, stdout=subprocess.DEVNULL,
                       env=environment({"WAYMARKS_CC_HELPER": "off"}))
    return copy


def helper_gone(home: Path) -> None:
    """Wait for the helper a first prompt's hook started (idle 1 s) to have come and gone:
    its socket there (``helper.sock``, or another name for other switches), then no socket
    and its lock free (the next round's hook must find none)."""
    import fcntl

    folder = home / "claude-code"
    deadline = time.monotonic() + 30
    while not any(folder.glob("helper*.sock")) and time.monotonic() < deadline:
        time.sleep(0.02)
    while time.monotonic() < deadline:
        held = False
        for lock in folder.glob("helper*.lock"):
            with open(lock, "a") as file:
                try:
                    fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    held = True
        if not held and not any(folder.glob("helper*.sock")):
            return
        time.sleep(0.05)
    raise SystemExit(f"the helper of {home} did not end within 30 s")


def timed(argv: list[str], stdin: bytes = b"") -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=True, env=helper_env())
    return (time.perf_counter() - started) * 1000


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"runs": len(values), "median_ms": round(statistics.median(values), 1),
            "p90_ms": round(ordered[int(len(ordered) * 0.9) - 1], 1),
            "min_ms": round(ordered[0], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--prompts", type=int, default=40,
                        help="the person's earlier prompts in the session, after the "
                             "memories (a hook plans with the last 24)")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--embed", action="store_true",
                        help="embed every claim before the rounds (the semantic extra on; "
                             "without it the background embedder runs beside them)")
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="another checkout's src folder: its hook without the helper is "
                             "timed in the same rounds")
    args = parser.parse_args()
    checked_tree(parser, "--baseline-src", args.baseline_src)
    if args.memories < 0 or args.prompts < 0 or args.runs < 1:
        parser.error("--memories and --prompts take a count (0 or more), --runs one or more")
    # (what the rounds started there, the helpers and the hooks' detached children, is
    # stopped before the folder goes: one still writing failed the run at its end)
    cleanup: dict[str, object] = {}
    with temporary_folder("waymarks-cc-", cleanup) as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        session_id = str(uuid.uuid4())
        start = {"session_id": session_id, "cwd": str(project),
                 "hook_event_name": "SessionStart", "source": "startup"}
        handle("SessionStart", start, home)
        with Waymarks(home, cwd=str(project), session=session_id) as app:
            for n in range(5):
                app.pin(f"Project rule {n}: keep functions short")
            for n in range(args.memories):
                app.remember(f"Service {n} listens on port {2000 + n % 60000} in staging "
                             f"cluster {n % 97}")
            for n in range(args.prompts):
                app.session_say(f"what runs in staging cluster {n % 97}?")
            # the recall index brought up to date, as the baseline's rebuild-index leaves
            # it: past the 10,000 items a hook indexes itself (5 pins and 10k memories),
            # the first hook left them to a process of its own, and the timed rounds ran
            # beside it, without recall until it ended, while the baseline's recalled
            app.recall("which port does service 1 use?")
            if args.embed:
                app.embed_recall()
        argv = hook_command(home, hook_entry())
        payloads = [json.dumps({"session_id": session_id, "cwd": str(project),
                                "hook_event_name": "UserPromptSubmit",
                                "transcript_path": str(Path(tmp, "t.jsonl")),
                                "prompt": f"which port does service {n * 37} use?"}).encode()
                    for n in range(args.runs)]
        # without the helper first (no helper socket may exist yet: a client asks any
        # helper that listens), interleaved with python -c pass and the baseline
        off = environment({"WAYMARKS_CC_HELPER": "off"})
        # the first prompt with no helper running: the hook starts one, gone 1 s later
        first = {k: v for k, v in off.items() if k != "WAYMARKS_CC_HELPER"}
        first["WAYMARKS_CC_HELPER_IDLE"] = "1"
        variants = {"python_pass": ([sys.executable, "-c", "pass"], off),
                    "without_helper": (argv, off), "first_prompt": (argv, first)}
        after = {"first_prompt": lambda: helper_gone(home)}
        if args.baseline_src:  # its own launcher: it puts its own directory on the path
            copy = baseline_home(home, Path(tmp, "home-baseline"), args.baseline_src, project,
                                 args.embed)
            base_argv = hook_command(copy, Path(args.baseline_src)
                                     / "waymarks/hosts/hook_entry.py")
            variants["without_helper_baseline"] = (base_argv, off)
            variants["first_prompt_baseline"] = (base_argv, first)
            after["first_prompt_baseline"] = lambda: helper_gone(copy)
        steal_before = steal_s()
        cold = interleaved(variants, args.runs, stdin=payloads, after=after)
        timed(argv, payloads[0])  # warm the file cache and the database; starts the helper
        hook = [timed(argv, p) for p in payloads]
        output = subprocess.run(argv, input=payloads[1 % len(payloads)], capture_output=True,
                                env=helper_env()).stdout
        refused = [timed(argv, b"not json") for _ in range(args.runs)]
        floor = [timed([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
        shim = shutil.which("python3", path=str(Path.home() / ".pyenv" / "shims"))
        shim_floor = [timed([shim, "-c", "pass"]) for _ in range(min(args.runs, 10))] \
            if shim else []
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"] if output else ""
    report = {
        "benchmark": "claude_code_hook", "memories": args.memories, "pins": 5,
        "earlier_prompts": args.prompts,
        "load_average": load_average(), "steal_s": steal_during(steal_before),
        "baseline_src": args.baseline_src,
        "semantic": os.environ.get("WAYMARKS_SEMANTIC", "on"), "embedded": args.embed,
        "user_prompt_submit": {**summary(hook), "target_median_ms": 60},
        "without_helper": {**cold["without_helper"], "target_median_ms": 90},
        "without_helper_baseline": cold.get("without_helper_baseline"),
        "first_prompt": cold["first_prompt"],
        "first_prompt_baseline": cold.get("first_prompt_baseline"),
        "without_helper_floor_python_pass": cold["python_pass"],
        "context_chars": len(context),
        "floor_refused_input": summary(refused),
        "floor_python_pass_venv": summary(floor),
        "floor_python_pass_pyenv_shim": summary(shim_floor) if shim_floor else None,
        "reference_mem0_search_p50_ms": 148,
        "cleanup": cleanup,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
