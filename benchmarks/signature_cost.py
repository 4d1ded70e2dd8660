"""Benchmark and differential check: the cost of a claim's signature, and the same answers.

``core.contradiction.signature`` reads every claim a rebuild catches its subject terms up
for, and every claim a write compares its own with. This signs, without the memo, the
claims of ``benchmarks/conflict_pairs.json``, ``benchmarks/rebuild.py``'s and
``benchmarks/plan.py``'s generated claims, and ``--random N`` texts made of pieces of
claims (values, units, versions, addresses, paths, Chinese, Japanese and Korean words,
negations, advice, long texts and character soup), with the current code and with the code
of ``--baseline REF`` (``git archive``, as ``benchmarks/rebuild.py`` does), each in its own
process, and reports the CPU µs per claim of each set and every text whose signature (or
exception) differs. Exit status 1 when any differs.

    .venv/bin/python benchmarks/signature_cost.py [--baseline REF] [--random 30000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import plan
import rebuild

_SUBJECTS = ("The database port", "The dev DB", "数据库端口", "The API", "Redis", "The cache",
             "API v2", "rack 3", "Python 3.12", "Server 1", "The build step 3-5", "log_level",
             "db_port", "The timeout", "데이터베이스 포트는", "データベースのポートは", "默认分支",
             "The worker pool_2", "Service A", "A 服务", "The checkout-v2 flag", "Issue 42",
             "The max_retries_per_job", "用户服务端口", "ports", "The TLS version")
_VERBS = ("is", "is not", "isn't", "was", "used to be", "changed from 5432 to", "listens on",
          "=", "是", "不是", "为", "uses", "takes", "defaults to", "must never be set to",
          "went from", "powers", "holds", "以前是", "从 5432 改为", "doesnt use", "は", "는")
_VALUES = ("5432", "8080", "v3.2", "3.12.0", "2.0.0-rc1", "python:3.12-slim", "30s",
           "1 minute 30 seconds", "1h30m", "512 MB", "1 GB", "1,500", "1,500 tests", "80,443",
           "10k", "1.5k", "50%", "80.0 percent", "100 requests per minute", "us-east-1",
           "0.0.0.0:8080", "[::1]:8080", "::1", "2001:db8::10", "02:00-04:00", "2026-12-20",
           "2026年12月20日", "https://docs.example.com/", "./scripts/deploy.sh", "*/5 * * * *",
           "8000-8010", "enabled", "disabled", "on", "off", "main", "v2-stable", "thirty seconds",
           "half an hour", "1.5x", "$1,500", "db.internal", "1 分钟 30 秒", "启用",
           "비활성화되어 있습니다", "有効です", "1,2,3", "0.10", "20.11.1", "4 GiB", "fe80::1",
           "5432 until the migration", "3 (was 5)", "not 5432 but 5433", "8080, not 8000")
_TAILS = ("", ".", "。", ", so don't rely on it.", "; nobody should disable it.",
          "，不要依赖它。", " in dev.", " (ticket 12).", " before 2025-01-10.", " but 5433.")
_SOUP = "abcxyz0123456789 .,:;-/_*[]()~@+%=是为不以前数据库端口秒年月日はのポ포트는'\u2019"


def texts(count: int, seed: int) -> dict[str, list[str]]:
    """The claims signed, by set."""
    rng = random.Random(seed)
    pairs = json.loads((Path(__file__).parent / "conflict_pairs.json").read_text())
    found = {"conflict_pairs": [p[k] for p in pairs for k in ("a", "b")],
             "rebuild": [rebuild.memory_claim(rng, i) for i in range(3000)],
             "plan": [f"The {s}-{i} service {rng.choice(plan.FACTS).format(n=i, s=s)}."
                      for i, s in enumerate(rng.choices(plan.SUBJECTS, k=3000))]}
    made = []
    for _ in range(count):
        words = [rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_VALUES)]
        for _ in range(rng.choice((0, 0, 1, 3))):
            words += [rng.choice(("and", ",", "but", "so", "而是", ";")), rng.choice(_VERBS),
                      rng.choice(_VALUES)]
        text = " ".join(words) + rng.choice(_TAILS)
        shape = rng.random()
        made.append(text.upper() if shape < 0.1 else text.replace(" ", "") if shape < 0.2
                    else "[ds4:internal]" + text if shape < 0.25 else text)
    made += [" ".join(rng.choices(made, k=rng.randint(5, 60))) for _ in range(count // 100)]
    made += ["".join(rng.choices(_SOUP, k=rng.randint(1, 80))) for _ in range(count // 4)]
    found["random"] = made
    return found


def one(count: int, seed: int) -> dict[str, Any]:
    """Sign every text with the code on the path: µs per claim of each set, and answers."""
    from waymarks.core.contradiction import signature

    sign = signature.__wrapped__  # type: ignore[attr-defined]  # the memo left out
    timing: dict[str, float] = {}
    answers: list[Any] = []
    claims_by_set = texts(count, seed)
    for claim in claims_by_set["conflict_pairs"]:
        sign(claim)  # compiles the expressions (each on first use) before the timing
    for name, claims in claims_by_set.items():
        start = time.process_time()
        for claim in claims:
            try:
                found = sign(claim)
            except Exception as error:  # noqa: BLE001  # an exception is an answer too
                answers.append(f"{type(error).__name__}: {error}")
                continue
            answers.append(None if found is None else [
                sorted(found.subject), sorted(found.values), sorted(found.denied),
                sorted(found.head)])
        timing[name] = round((time.process_time() - start) / len(claims) * 1e6, 1)
    return {"us_per_claim": timing, "answers": answers}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="git ref compared with the code")
    parser.add_argument("--random", type=int, default=30000, help="random texts signed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        json.dump(one(args.random, args.seed), sys.stdout)
        return 0
    command = [sys.executable, __file__, "--one", "--random", str(args.random),
               "--seed", str(args.seed)]
    with tempfile.TemporaryDirectory() as tmp:
        base = rebuild.run_child(command, rebuild.baseline_src(args.baseline, Path(tmp)))
    current = rebuild.run_child(command, None)
    if "error" in base or "error" in current:
        print(json.dumps({"baseline": base, "current": current}, indent=2))
        return 1
    claims = [claim for group in texts(args.random, args.seed).values() for claim in group]
    differing = [{"claim": claim, "baseline": old, "current": new}
                 for claim, old, new in zip(claims, base["answers"], current["answers"],
                                            strict=True) if old != new]
    print(json.dumps({"baseline_ref": args.baseline, "claims": len(claims),
                      "us_per_claim": current["us_per_claim"],
                      "baseline_us_per_claim": base["us_per_claim"],
                      "differing": len(differing), "first_differing": differing[:20]},
                     indent=2, ensure_ascii=False))
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
