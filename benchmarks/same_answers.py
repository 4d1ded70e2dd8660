"""Check: two versions of the code give byte-identical plans and recall answers on the
corpora of ``plan.py`` and ``recall_latency.py`` / ``hybrid_cost.py`` (for speed work,
which must change no answer).

Each version runs in its own process (``--baseline REF``: its ``src`` exported with
``git archive``, see ``code_baseline.py``) with ``PYTHONHASHSEED=0`` and
``WAYMARKS_SEMANTIC=off``, and prints a SHA-256 of each part of its answers, every answer
encoded with msgspec (``order="deterministic"``: sets and maps sorted), floats exactly:

- ``plan_1k``: ``plan.py``'s store (1,000 memories, 50 pins) and prompts: each
  ``plan_request`` whole (messages, manifest, tokens), the plan's own recall
  (``eligible_only``, ``withheld``: its eligible records) and a full ``recall`` (every
  candidate scored, digest, rows);
- ``lexical_10k``: ``recall_latency.py``'s 10k store and query mix: ``direct_plan`` +
  candidates + ``evaluate`` as ``hybrid_cost.py``'s lexical path runs them, through SQLite
  and through the in-memory postings (``RecallCache``), every scored candidate.

Exit 1 when a part differs. Not a test (a minute or two a version).

    .venv/bin/python benchmarks/same_answers.py --baseline REF [--plans 1000] [--queries 500]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import code_baseline


def _digest() -> Any:
    return hashlib.sha256()


def plan_answers(plans: int, seed: int) -> dict[str, str]:
    import msgspec

    import plan as bench
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import plan_request

    size, rng = 1000, random.Random(seed)
    out = {"plans": _digest(), "plan_recall": _digest(), "recall": _digest()}
    with tempfile.TemporaryDirectory(prefix="waymarks-same-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        ledger = Path(tmp, "session.jsonl")
        bench.write_ledger(ledger, str(project), size, 50, seed)
        app = Waymarks(Path(tmp, "home"), cwd=str(project), session=str(ledger),
                       keep_recall_index=True)
        app.rebuild_index()
        prompts = [f"what port does the {rng.choice(bench.SUBJECTS)}-"
                   f"{rng.randint(50, size + 49)} service use?" if n % 2
                   else f"refactor the {rng.choice(bench.SUBJECTS)} module"
                   for n in range(plans)]
        encode = msgspec.json.Encoder(order="deterministic").encode
        for prompt in prompts:
            out["plans"].update(encode(plan_request(app, prompt, provider="remote")))
            own = app.recall(prompt, provider="remote", eligible_only=True, withheld=True)
            out["plan_recall"].update(encode(own.eligible))
            out["recall"].update(encode(app.recall(prompt)))
        app.close()
    return {key: value.hexdigest() for key, value in out.items()}


def lexical_answers(size: int, queries: int, seed: int) -> dict[str, str]:
    import msgspec

    import recall_latency as synthetic
    from waymarks.recall.engine import evaluate
    from waymarks.recall.plan import direct_plan
    from waymarks.store.recall_cache import RecallCache
    from waymarks.store.recall_index import RecallIndex

    out = {"sqlite": _digest(), "cached": _digest()}
    encode = msgspec.json.Encoder(order="deterministic").encode
    with tempfile.TemporaryDirectory(prefix="waymarks-same-") as tmp:
        path = Path(tmp, "bench.db")
        _, about = synthetic.build(path, size, seed)
        db = synthetic.open_db(path)
        index = RecallIndex(db, items_backed=False)
        postings = RecallCache(index)
        postings.refresh()
        cached = synthetic._CachedIndex(postings)
        for _, query in synthetic.query_mix(about, queries, seed):
            for name, source in (("sqlite", index), ("cached", cached)):
                plan = direct_plan(query)
                stats = source.stats((*plan.focus, *plan.context))
                result = evaluate(plan, source.candidates(plan, stats=stats), stats,
                                  synthetic.EXACT)
                out[name].update(encode(result))
        db.close()
    return {key: value.hexdigest() for key, value in out.items()}


def one(args: argparse.Namespace) -> dict[str, Any]:
    return {"plan_1k": plan_answers(args.plans, 1),
            "lexical_10k": lexical_answers(10_000, args.queries, 7)}


def child(args: argparse.Namespace, source: Path | None) -> dict[str, Any]:
    env = code_baseline.env_with(source)
    env.update(PYTHONHASHSEED="0", WAYMARKS_SEMANTIC="off")
    done = subprocess.run([sys.executable, __file__, "--one", "--plans", str(args.plans),
                           "--queries", str(args.queries)],
                          check=True, capture_output=True, text=True, env=env)
    return dict(json.loads(done.stdout))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=None, help="the git ref to compare with")
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args)))
        return 0
    with code_baseline.source_of(args.baseline) as source:
        current = child(args, None)
        base = child(args, source) if source is not None else None
    differing = [] if base is None else [f"{part}.{key}" for part in current
                                         for key in current[part]
                                         if current[part][key] != base[part][key]]
    json.dump({"benchmark": "same_answers", "baseline": code_baseline.described(args.baseline),
               "current": current, "base": base, "differing": differing,
               "same": None if base is None else not differing}, sys.stdout, indent=2)
    print()
    return 1 if differing else 0


if __name__ == "__main__":
    os.environ.setdefault("WAYMARKS_SEMANTIC", "off")
    sys.exit(main())
