"""Benchmark: a plan with an eligible learned claim, at 1k, 10k and 50k own claims.

A plan that may inject a learned claim first asks whether the person's own pins and
claims in effect hold or contradict it (``service/own_claims.py``). The store is a real
session ledger written as in ``plan.py`` (memory adds and 50 pins), projected with
``rebuild_index``; three claims are then learned through the real consolidation step
(the billing, auth and search services' ports: recall finds them for half the prompts),
and one that contradicts one of the own claims (withheld when recalled),
with learning on. Each plan runs the full use case (``plan_request``, lexical): wall and
CPU (this process's; a wall time on shared cores is bimodal under others' load). With
``--baseline REF`` each size runs again, right after, against ``REF``'s code (its ``src``
exported: ``code_baseline.py``); the learned claims each plan included and left out must
be the same in both versions.

    .venv/bin/python benchmarks/own_claims.py [--sizes 1000,10000,50000] [--baseline REF]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import code_baseline
from bench_stats import summary
from plan import SUBJECTS, write_ledger
from waymarks.core.model_port import ModelReply
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution
from waymarks.service.learning import set_learning
from waymarks.service.planning import plan_request

PLANS = 100
LEARNED = ["The billing service listens on port 7777", "The auth service listens on port 7778",
           "The search service listens on port 7779"]


def learn(home: Path, content: str) -> None:
    """``content`` learned through the real capture and consolidation step."""
    set_learning(home, True)
    with Evolution(home) as evo:
        src = evo.capture("/elsewhere", "statement", f"Remember: {content}", session="s",
                          key=content)
        assert src is not None
        claim = {"kind": "fact", "content": content, "searchTerms": content.split()[1:3]}
        at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        outcome = evo.apply(src.source_id, ModelReply(json.dumps({"claims": [claim]}), "f",
                                                      "m"), at)
        assert outcome.code == "applied", outcome


def run(size: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="waymarks-own-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        ledger = Path(tmp, "session.jsonl")
        write_ledger(ledger, str(project), size, 50, seed)
        home = Path(tmp, "home")
        with Waymarks(home, cwd=str(project), session=str(ledger)) as app:
            app.rebuild_index()
        # and one contradicting an own claim: withheld ("you hold ..., which says otherwise")
        mine = next(line["data"]["item"]["claim"] for line in map(
            json.loads, ledger.read_text().splitlines()[51:]) if "listens on port" in
            line["data"]["item"]["claim"])
        subject = mine.split()[1]
        for content in [*LEARNED, f"The {subject} service listens on port 7780"]:
            learn(home, content)
        prompts = [f"what port does the {rng.choice([*SUBJECTS[:3], subject])} service "
                   "listen on?" if n % 2 else f"refactor the {rng.choice(SUBJECTS)} module"
                   for n in range(PLANS)]
        with Waymarks(home, cwd=str(project), session=str(ledger),
                      keep_recall_index=True) as app:
            for prompt in prompts[:10]:  # warm the analysers and the memos
                plan_request(app, prompt, provider="remote")
            times, cpus, learned = [], [], []
            for prompt in prompts:
                c0, t0 = time.process_time(), time.perf_counter()
                plan = plan_request(app, prompt, provider="remote")
                times.append((time.perf_counter() - t0) * 1000)
                cpus.append((time.process_time() - c0) * 1000)
                learned.append(sorted((e.decision, e.reason) for e in plan.manifest
                                      if e.kind == "learned"))
    return {"own_claims": size, "plans": PLANS, "plan": summary(times),
            "plan_cpu": summary(cpus),
            "learned_included": sum(d == "included" for plan in learned for d, _ in plan),
            "learned_withheld_as_held": sum("says otherwise" in r for plan in learned
                                            for _, r in plan),
            "answers": learned}


def main() -> int:
    parser = code_baseline.sized_parser(__doc__, "1000,10000,50000")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run(args.one, args.seed)))
        return 0
    report = code_baseline.sized_report(__file__, "own_claims", args)
    # with a baseline: the same learned claims planned and left out
    code_baseline.same_answers(report, "same_learned_decisions")
    return code_baseline.print_report(report)


if __name__ == "__main__":
    sys.exit(main())
