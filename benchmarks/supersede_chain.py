"""Benchmark: plans and recalls over a store where one key was superseded N times.

A claim corrected again and again (a counter, a version, a status a script updates)
leaves a chain of superseded versions of one key. The store is a real session ledger in
the home's session folder of a project (``plan.py``'s memory adds and 50 pins, then
``N`` versions of the claim under key ``deploy-counter``, each superseding the one
before), projected with ``rebuild_index``. Then, per size, in one process:

- ``plan`` and ``recall``: ``plan_request`` and ``recall`` in process with the recall
  index kept in memory (a long-lived process, warm), and ``plan_sqlite`` and
  ``recall_sqlite`` without it (the SQLite path a one-shot process takes, in a warm
  process): p50/p99 wall and CPU, over prompts that name the key, say the claim's words,
  or are about an ordinary claim;
- ``oneshot_recall``: ``waymarks recall`` asking about the counter, each in its own
  process (``WAYMARKS_CLI_HELPER=off``): wall p50 over ``--runs``.

Learning is on, and a claim about the counter (``LEARNED``: another value than the
version in effect, the sentence of one superseded) was learned through the real
consolidation step (``own_claims.learn``): a plan recalling it weighs it against the
person's claims about the counter (``service/own_claims.py``), and leaves it out as held
(its decision and reason are part of each plan's answer).

With ``--baseline REF`` every size runs again, right after, with ``REF``'s code (its
``src`` exported by ``code_baseline.py``, the one-shot commands too), and the report says
whether both versions selected and included the same claims for every prompt.

    .venv/bin/python benchmarks/supersede_chain.py [--sizes 1,1000,10000,50000]
        [--baseline REF] [--runs 7] [--rounds 60]
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import code_baseline
from bench_stats import summary
from fresh_start import command
from own_claims import learn
from plan import SUBJECTS, write_ledger
from spawn_timing import environment, run_once
from waymarks.ledger.discovery import session_dir
from waymarks.service.app import Waymarks
from waymarks.service.planning import plan_request

ORDINARY = 1000
KEY = "deploy-counter"
QUESTION = "what is the deploy counter now?"
#: learned about the chain's subject: the sentence of its second version
LEARNED = "The release pipeline's deploy counter is 2"


def write_chain(ledger: Path, versions: int, seed: int) -> None:
    """``versions`` claims of key ``KEY`` appended to ``ledger``, each superseding the
    one before (the first an add)."""
    rng = random.Random(seed + 1)
    ms = 1_800_000_000_000
    lines = ledger.read_text().splitlines()
    parent = json.loads(lines[-1])["id"]
    previous = None
    out = []
    for i in range(versions):
        ms += 1000
        entry = f"c{i:07x}"
        item_id = str(uuid.UUID(int=rng.getrandbits(128)))
        data: dict[str, Any] = {
            "schemaVersion": 1, "mutationId": str(uuid.UUID(int=rng.getrandbits(128))),
            "createdAt": ms, "operation": "supersede" if previous else "add",
            "item": {"id": item_id, "scope": "session", "createdAt": ms, "key": KEY,
                     "claim": f"The release pipeline's deploy counter is {i + 1}.",
                     "sourceEntryIds": []}}
        if previous:
            data["previousId"] = previous
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"
        out.append(json.dumps({"type": "custom", "customType": "ds4-context-memory-v1",
                               "data": data, "id": entry, "parentId": parent,
                               "timestamp": stamp}))
        parent, previous = entry, item_id
    with ledger.open("a") as f:
        f.write("\n".join(out) + "\n")


def prompts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    kinds = [lambda: QUESTION, lambda: "bump the deploy-counter after the release",
             lambda: f"what port does the {rng.choice(SUBJECTS)}-{rng.randint(50, ORDINARY + 49)}"
                     " service use?",
             lambda: f"refactor the {rng.choice(SUBJECTS)} module"]
    return [kinds[n % len(kinds)]() for n in range(count)]


def timed(call: Callable[[str], Any], asked: list[str]) -> tuple[dict[str, Any], list[Any]]:
    walls, cpus, answers = [], [], []
    for prompt in asked:
        c0, t0 = time.process_time(), time.perf_counter()
        answers.append(call(prompt))
        walls.append((time.perf_counter() - t0) * 1000)
        cpus.append((time.process_time() - c0) * 1000)
    return {"wall": summary(walls), "cpu": summary(cpus)}, answers


def measure(app: Waymarks, asked: list[str], label: str, out: dict[str, Any],
            answers: dict[str, Any]) -> None:
    for prompt in asked[:8]:  # warm the analysers, the memos, the in-memory index
        plan_request(app, prompt, provider="remote")
        app.recall(prompt)
    out["recall" + label], answers["recall" + label] = timed(
        lambda p: list(app.recall(p).selected), asked)
    out["plan" + label], answers["plan" + label] = timed(
        lambda p: _planned(plan_request(app, p, provider="remote").manifest), asked)


def _planned(manifest: Any) -> list[Any]:
    """The IDs a plan included, and its learned claims' decisions and reasons (their IDs
    differ between runs)."""
    return [*(e.id for e in manifest if e.decision == "included" and e.kind != "learned"),
            *sorted((e.decision, e.reason) for e in manifest if e.kind == "learned")]


def run(versions: int, seed: int, runs: int, rounds: int) -> dict[str, Any]:
    os.environ["WAYMARKS_SEMANTIC"] = "off"
    with tempfile.TemporaryDirectory(prefix="waymarks-chain-") as tmp:
        root = Path(tmp)
        home, project = root / "home", root / "project"
        project.mkdir()
        folder = session_dir(home, str(project.resolve()))
        folder.mkdir(parents=True)
        ledger = folder / "2026-01-01T00-00-00-000Z_bench.jsonl"
        write_ledger(ledger, str(project.resolve()), ORDINARY, 50, seed)
        write_chain(ledger, versions, seed)
        started = time.perf_counter()
        with Waymarks(home, cwd=str(project.resolve()), session=str(ledger)) as app:
            app.rebuild_index()
        learn(home, LEARNED)
        result: dict[str, Any] = {"versions": versions, "ordinary": ORDINARY,
                                  "rebuild_s": round(time.perf_counter() - started, 2),
                                  "load_avg": code_baseline.load()}
        asked = prompts(rounds, seed)
        answers: dict[str, Any] = {}
        for label, keep in (("", True), ("_sqlite", False)):
            with Waymarks(home, cwd=str(project.resolve()), session=str(ledger),
                          keep_recall_index=keep) as app:
                measure(app, asked, label, result, answers)
        env = environment({"WAYMARKS_HOME": str(home), "HOME": str(root),
                           "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_CC_HELPER": "off",
                           "WAYMARKS_SEMANTIC": "off"})
        argv = [*command(), "recall", QUESTION]
        found = subprocess.run(argv, cwd=project, env=env, check=True, capture_output=True,
                               text=True).stdout
        walls = [run_once(argv, env, project)[0] for _ in range(runs)]
        result["oneshot_recall"] = summary(walls)
        answers["oneshot_recall"] = found
        result["load_avg_after"] = code_baseline.load()
        result["answers"] = answers
        return result


def main() -> int:
    parser = code_baseline.sized_parser(__doc__, "1,1000,10000,50000")
    parser.add_argument("--runs", type=int, default=7, help="one-shot recalls per size")
    parser.add_argument("--rounds", type=int, default=60, help="prompts per measure")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run(args.one, args.seed, args.runs, args.rounds)))
        return 0
    report = code_baseline.sized_report(__file__, "supersede_chain", args,
                                        ["--runs", str(args.runs), "--rounds",
                                         str(args.rounds)])
    # with a baseline: the same claims selected and planned by both versions
    code_baseline.same_answers(report, "same_answers")
    return code_baseline.print_report(report)


if __name__ == "__main__":
    sys.exit(main())
