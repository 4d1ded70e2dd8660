"""Benchmark: recall query latency over a synthetic store of 10k and 100k claims.

For each size a deterministic generator makes realistic, varied claims (services, ports,
paths, hosts, owners, people's preferences, deploy rules, incidents; about 10% in Chinese)
and adds them with ``RecallIndex.add`` in one transaction to a temporary file database
(the projection's own migrations, so the schema is the one recall reads). Then, in the
same warm process, ~500 generated queries (about 60% about an existing claim, 40%
unrelated to the store) are answered; each is timed end to end (``perf_counter``):
``direct_plan`` + ``stats`` + ``candidates`` + ``evaluate``, as ``Waymarks.recall`` runs
them (no candidate is read for a query naming a literal no record holds: it can select
nothing; ``unheld_literal_queries`` counts them). Reported: p50/p99 ms, mean ms
per phase, the index size on disk, the process RSS (current and peak) and
``sqlite_process_rss_mb``, a process that answered the same queries through SQLite
alone (the RSS target's path: this one also holds the claims and the in-memory
index). Answer quality
is a by-product: ``named_hit`` = share of queries about a claim whose digest holds that
very claim (a lower bound: similar claims about the same service compete),
``unrelated_digest`` = share of unrelated queries that still got a digest.

"Fresh process, one query at 10k": ``python -c SCRIPT`` that imports waymarks, opens the
10k database, answers one query and exits; wall-clock median over ``--fresh-runs`` runs
(English, and separately Chinese queries), with the baselines ``python -c pass`` and
``python -c "import waymarks.recall.engine, waymarks.store.recall_index"`` interleaved in
the same run.

Each size runs in its own subprocess (hidden ``--one SIZE``) so RSS is that size's own.
Targets (issue 15): SQLite-path p99 <= 10 ms at 100k and <= 25 ms at 1M (RSS <= 200 MB);
fresh process <= 60 ms median. CPU time per query is reported beside wall time, and the
load average beside both. ``--baseline REF``: each size also runs against the code of
``REF`` (its ``src`` exported with ``git archive``, see ``code_baseline.py``) on the same
database, in a second process, and the two versions' selections are compared query by
query. The two take the timed queries in turns (``--rounds``, 5, for the SQLite path,
then as many for the cache, then one turn each for the RSS and the fresh processes;
``alternate.py``, the order reversed every other turn): the baseline ran after the
current code's last query before. Each loop's rounds (``rounds``), their spread
(``round_spread``) and, with a baseline, the gaps round by round (``round_gaps``).
Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/recall_latency.py [--sizes 10000,100000] [--queries 500]
        [--fresh-runs 15] [--seed 7] [--keep DIR] [--rounds 5] [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import alternate
import code_baseline
from waymarks.core.egress import Egress
from waymarks.core.privacy import LEVELS
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.store.migrations import migrate
from waymarks.store.recall_cache import RecallCache
from waymarks.store.recall_index import RecallIndex, RecordInput

try:  # a query naming a literal no record holds selects nothing (not in older code)
    from waymarks.recall.scoring import unheld_literal as UNHELD_LITERAL
except ImportError:
    UNHELD_LITERAL = None

#: a local destination that sees every stored text exactly (no privacy policy in play)
EXACT = Egress("local", frozenset(LEVELS), redacts=False)

TARGET_P99_MS = {10_000: 5.0, 100_000: 10.0, 1_000_000: 25.0}
TARGET_FRESH_MS = 60.0
FRESH_SIZE = 10_000
BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z

AREAS = """billing auth search gateway scheduler ingest reporting notifications storage checkout
catalog analytics payments ledger inventory shipping pricing identity media export importer
webhooks metrics alerting tracing backup archive mailer sms profile sessions""".split()
ROLES = "api worker db cache proxy cron ui queue index sync".split()
QUALIFIERS = "v2 eu us apac edge legacy next internal blue green".split()
ENVS = "prod staging dev qa canary eu-prod us-prod".split()
FIRST = """Alice Bob Carol Dan Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert
Sybil Trent Victor Walter Yusuf Zoe Priya Mateo Chen Aiko Lars Ines Kwame Sofia Omar Hana
Diego Mei Tomas Leila Arjun Nora Felix Amara Jonas""".split()
LAST = """Smith Garcia Novak Tanaka Okafor Rossi Muller Kowalski Silva Nguyen Haddad Larsen Ivanova
Moreau Fischer Costa Yamamoto Petrov Kim Singh""".split()
EDITORS = "vim neovim emacs vscode helix zed sublime".split()
LANGS = "Python Rust Go TypeScript Kotlin Java Elixir Zig".split()
TOOLS = """ruff mypy pytest black eslint prettier clippy golangci-lint shellcheck hadolint
terraform helm kubectl ansible""".split()
DBS = "Postgres MySQL Redis SQLite ClickHouse Cassandra MongoDB Kafka RabbitMQ".split()
EXTS = "yaml toml json ini conf env".split()
DRINKS = "coffee tea matcha espresso water".split()
SHELLS = "zsh bash fish nushell".split()
ZH_AREAS = """支付 认证 搜索 网关 调度 报表 通知 存储 结算 目录 分析 账本 库存 物流 定价 身份
媒体 导出 监控 备份""".split()
ZH_NAMES = "张伟 王芳 李娜 刘洋 陈静 杨帆 赵磊 黄敏 周杰 吴昊".split()
UNRELATED = [
    "how do I make a sourdough starter from scratch",
    "what is the capital of Australia",
    "best hiking trails near Denver in autumn",
    "explain monads in Haskell with a simple example",
    "recommend a sci-fi novel similar to Dune",
    "how long should I boil an egg for a soft yolk",
    "what's the difference between a violin and a viola",
    "translate good morning into Portuguese",
    "which port city in Europe has the largest harbour",
    "how many moons does Jupiter have",
    "tips for running a first marathon",
    "what causes the northern lights",
    "write a haiku about autumn rain",
    "how do vaccines train the immune system",
    "history of the printing press",
    "why is the sky blue during the day",
    "how to repot a monstera plant",
    "what year did the Berlin wall fall",
    "difference between baking soda and baking powder",
    "how does compound interest work",
    "suggest a name for a golden retriever puppy",
    "what is the rule of thirds in photography",
    "how to tie a bowline knot",
    "what's a good stretching routine after cycling",
    "who painted the girl with a pearl earring",
    "怎么做红烧肉",
    "北京明天天气怎么样",
    "推荐几本好看的科幻小说",
    "如何学习弹吉他",
    "长城有多长",
    "what is the speed of light in a vacuum",
    "how to clean a cast iron pan",
    "plan a three day trip to Kyoto",
    "what does a product manager do all day",
    "how to write a cover letter for a design job",
]


def service(rng: random.Random) -> str:
    """About 3,300 distinct names: area-role, two thirds of them with a qualifier."""
    base = f"{rng.choice(AREAS)}-{rng.choice(ROLES)}"
    return base if rng.random() < 0.33 else f"{base}-{rng.choice(QUALIFIERS)}"


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def claim(rng: random.Random, i: int) -> tuple[str, str]:
    """One claim and a query that asks about it (phrased differently)."""
    if rng.random() < 0.10:
        return chinese_claim(rng, i)
    svc, env, who = service(rng), rng.choice(ENVS), person(rng)
    port = rng.randint(1024, 65000)
    r = rng.randrange(14)
    if r == 0:
        return (f"The {svc} service listens on port {port} in {env}",
                f"what port does {svc} use in {env}")
    if r == 1:
        path = f"/etc/{svc}/{rng.choice(['main', 'app', 'settings', svc])}.{rng.choice(EXTS)}"
        return (f"{svc} reads its configuration from {path} (changed in release {i})",
                f"where is the {svc} config file")
    if r == 2:
        return (f"{who} owns the {svc} on-call rotation since incident INC-{i}",
                f"who is on call for {svc}")
    if r == 3:
        return (f"{who} prefers {rng.choice(EDITORS)} with the {rng.choice(SHELLS)} shell and "
                f"drinks {rng.choice(DRINKS)} during reviews",
                f"which editor does {who.split()[0]} {who.split()[1]} prefer")
    if r == 4:
        host = f"{svc}-{rng.randint(1, 40):02d}.{env}.internal"
        return (f"{svc} in {env} runs on host {host} behind the {rng.choice(AREAS)} load "
                f"balancer", f"which host runs {svc} in {env}")
    if r == 5:
        return (f"Deploy {svc} with `make deploy-{env}` from the release/{i % 97} branch, "
                f"never on Fridays", f"how do we deploy {svc} to {env}")
    if r == 6:
        secs = rng.choice([5, 10, 15, 30, 60, 120])
        return (f"The {svc} request timeout was raised to {secs} seconds after INC-{i} "
                f"caused {rng.choice(AREAS)} errors", f"what is the {svc} timeout")
    if r == 7:
        return (f"Logs for {svc} are written to /var/log/{svc}/{env}-{i % 13}.log and rotated "
                f"daily", f"where are the {svc} logs")
    if r == 8:
        tool, other = rng.sample(TOOLS, 2)
        repo = f"{rng.choice(AREAS)}-{rng.choice(['service', 'lib', 'tools', 'infra'])}"
        return (f"In the {repo} repo we use {tool} instead of {other} (decided in ADR-{i})",
                f"which linter does the {repo} repo use")
    if r == 9:
        db = rng.choice(DBS)
        return (f"{svc} stores its state in {db} version {rng.randint(5, 17)}."
                f"{rng.randint(0, 9)} on {env}", f"what database does {svc} use")
    if r == 10:
        lang = rng.choice(LANGS)
        return (f"{who} would rather write new tooling in {lang} than in "
                f"{rng.choice(LANGS)}", f"what language does {who} like for tooling")
    if r == 11:
        return (f"The {svc} API key for {env} lives in vault at secret/{env}/{svc}/key-{i}",
                f"where is the {svc} api key for {env}")
    if r == 12:
        return (f"Run {rng.choice(TOOLS)} before merging anything that touches "
                f"src/{rng.choice(AREAS)}/{rng.choice(ROLES)}_{i % 50}.py",
                f"what must run before merging src/{rng.choice(AREAS)} changes")
    return (f"{who} asked that {svc} alerts page the {rng.choice(AREAS)} team after "
            f"{rng.randint(2, 9)} failed health checks", f"who gets paged for {svc} alerts")


def chinese_claim(rng: random.Random, i: int) -> tuple[str, str]:
    area, who, env = rng.choice(ZH_AREAS), rng.choice(ZH_NAMES), rng.choice(ENVS)
    port = rng.randint(1024, 65000)
    r = rng.randrange(5)
    if r == 0:
        return f"{area}服务在{env}环境的端口是{port}", f"{area}服务的端口是多少"
    if r == 1:
        return (f"{who}负责{area}系统的值班，工单编号{i}", f"谁负责{area}系统的值班")
    if r == 2:
        return (f"{area}服务的配置文件在 /etc/{area}/{env}.yaml，修改后要重启",
                f"{area}服务的配置文件在哪里")
    if r == 3:
        return (f"{who}喜欢用{rng.choice(EDITORS)}写代码，习惯深色主题",
                f"{who}喜欢用什么编辑器")
    return (f"部署{area}服务之前必须先跑{rng.choice(TOOLS)}测试，发布单{i}",
            f"部署{area}服务之前要做什么")


def records(size: int, seed: int) -> Iterator[tuple[RecordInput, str]]:
    rng = random.Random(seed)
    ms = BASE_MS
    for i in range(size):
        ms += rng.randint(1_000, 600_000)
        text, query = claim(rng, i)
        origin = rng.choice(["session", "project"]) + ":" + rng.choice(
            ["/work/platform", "/work/billing", "/work/infra", "/home/dev/notes"])
        yield RecordInput(id=f"m{i:07d}", text=text, origin=origin, created_at=ms), query


def open_db(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def build(path: Path, size: int, seed: int) -> tuple[float, list[tuple[str, str]]]:
    db = open_db(path)
    db.execute("PRAGMA journal_mode = WAL")
    migrate(db, BASE_MS)
    index = RecallIndex(db, items_backed=False)
    about: list[tuple[str, str]] = []

    def feed() -> Iterator[RecordInput]:
        for record, query in records(size, seed):
            about.append((record.id, query))
            yield record

    start = time.perf_counter()
    db.execute("BEGIN")
    index.add(feed())
    db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return elapsed, about


def query_mix(about: Sequence[tuple[str, str]], count: int, seed: int) -> list[tuple[str, str]]:
    """(expected record id or "", query): ~60% about a stored claim, ~40% unrelated."""
    rng = random.Random(seed + 1)
    out = []
    for n in range(count):
        if rng.random() < 0.6:
            out.append(rng.choice(about))
        else:
            out.append(("", UNRELATED[n % len(UNRELATED)]))
    return out


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def rss_mb() -> tuple[float, float]:
    current = 0.0
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                current = int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return round(current, 1), round(peak, 1)


def warm_loop(path: Path, queries: Sequence[tuple[str, str]],
              cached: bool = False, turns: Iterator[int] | None = None,
              rounds: int = 1) -> dict[str, Any]:
    """Queries in one process: through SQLite, or (``cached``) through the in-memory cache
    a long-lived process keeps (RecallCache). The queries are split in ``rounds``, each
    begun at the next of ``turns`` (``alternate.turns``: the other tree's child has had
    its turn; none: at once); each round's figures in ``rounds``."""
    db = open_db(path)
    index: Any = RecallIndex(db, items_backed=False)
    load_s = 0.0
    if cached:
        started = time.perf_counter()
        cache = RecallCache(index)
        cache.refresh()
        load_s = time.perf_counter() - started
        index = _CachedIndex(cache)
    for _, query in queries[:20]:  # warm the page cache and the analysers
        plan = direct_plan(query)
        stats = index.stats((*plan.focus, *plan.context))
        evaluate(plan, index.candidates(plan, stats=stats), stats, EXACT)
    totals = {"plan": 0.0, "stats": 0.0, "candidates": 0.0, "evaluate": 0.0}
    unheld = 0  # queries naming a literal no record holds: no candidate read
    times: list[float] = []
    named = named_hit = unrelated = unrelated_digest = 0
    candidate_counts = []
    selections: list[list[str]] = []
    cpu: list[float] = []  # CPU time per query: what a busy machine cannot inflate
    rounds_seen = []
    for number in range(rounds):
        if turns is not None:
            next(turns)
        first, load = len(times), code_baseline.load()[0]
        part = queries[slice(*alternate.share(len(queries), rounds, number))]
        for expected, query in part:
            c0 = time.process_time()
            t0 = time.perf_counter()
            plan = direct_plan(query)
            t1 = time.perf_counter()
            stats = index.stats((*plan.focus, *plan.context))
            t2 = time.perf_counter()
            # as Waymarks.recall does (the code before it read the candidates regardless)
            skip = UNHELD_LITERAL is not None and UNHELD_LITERAL(plan, stats) is not None
            cands = [] if skip else index.candidates(plan, stats=stats)
            unheld += skip
            t3 = time.perf_counter()
            result = evaluate(plan, cands, stats, EXACT)
            t4 = time.perf_counter()
            times.append((t4 - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            spans = ((t0, t1), (t1, t2), (t2, t3), (t3, t4))
            for key, (a, b) in zip(totals, spans, strict=True):
                totals[key] += b - a
            candidate_counts.append(len(cands))
            selections.append(list(result.selected))
            if expected:
                named += 1
                named_hit += expected in result.selected
            else:
                unrelated += 1
                unrelated_digest += bool(result.selected)
        rounds_seen.append({"queries": len(part), "load_1min": load,
                            "recall": alternate.round_figures(times[first:], cpu[first:])})
    db.close()
    slowest = sorted(zip(times, (q for _, q in queries), strict=True), reverse=True)[:3]
    return {
        "mode": "in-memory cache" if cached else "sqlite",
        "cache_load_s": round(load_s, 3) if cached else None,
        "queries": len(queries),
        "p50_ms": round(statistics.median(times), 3),
        "p99_ms": round(percentile(times, 99), 3),
        "max_ms": round(max(times), 3),
        "cpu_p50_ms": round(statistics.median(cpu), 3),
        "cpu_p99_ms": round(percentile(cpu, 99), 3),
        "mean_ms_by_phase": {k: round(v * 1000 / len(queries), 3) for k, v in totals.items()},
        "mean_candidates": round(statistics.mean(candidate_counts), 1),
        "unheld_literal_queries": unheld,
        "slowest": [{"ms": round(ms, 2), "query": q} for ms, q in slowest],
        "named_hit": round(named_hit / max(1, named), 3),
        "unrelated_digest": round(unrelated_digest / max(1, unrelated), 3),
        "selected": selections,  # per query, in order (compared, then dropped)
        "rounds": rounds_seen,
        "round_spread": alternate.spread([r["recall"] for r in rounds_seen]),
    }


class _CachedIndex:
    """The cache behind the same two calls the SQLite index offers."""

    def __init__(self, cache: RecallCache) -> None:
        self.cache = cache
        self._stats: Any = None

    def candidates(self, plan: Any, stats: Any) -> list[Any]:
        return self.cache.candidates(plan, stats)

    def stats(self, features: Any) -> Any:
        return self.cache.stats(features)


FRESH_SCRIPT = """
import sqlite3, sys
from waymarks.core.egress import Egress
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.store.recall_cache import RecallCache
from waymarks.store.recall_index import RecallIndex
EXACT = Egress("local", frozenset({"normal"}), redacts=False)
index = RecallIndex(sqlite3.connect(sys.argv[1]), items_backed=False)
plan = direct_plan(sys.argv[2])
result = evaluate(plan, index.candidates(plan), index.stats(plan.focus + plan.context), EXACT)
print(len(result.selected))
"""
IMPORT_ONLY = "import waymarks.recall.engine, waymarks.store.recall_index"
#: the SQLite path alone in a process of its own (this one holds the generator's claims
#: and the in-memory index): every query of the mix, then the process's RSS in kB
SQLITE_PROCESS = """
import json, sqlite3, sys
from waymarks.core.egress import Egress
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.store.recall_index import RecallIndex
try:
    from waymarks.recall.scoring import unheld_literal
except ImportError:
    unheld_literal = None
EXACT = Egress("local", frozenset({"normal"}), redacts=False)
index = RecallIndex(sqlite3.connect(sys.argv[1]), items_backed=False)
for query in json.load(sys.stdin):
    plan = direct_plan(query)
    stats = index.stats((*plan.focus, *plan.context))
    skip = unheld_literal is not None and unheld_literal(plan, stats) is not None
    evaluate(plan, [] if skip else index.candidates(plan, stats=stats), stats, EXACT)
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmRSS")))
"""


def sqlite_process_rss_mb(path: Path, queries: Sequence[tuple[str, str]]) -> float:
    """The RSS of a process that answered every query through SQLite (issue 15's
    RSS target is this path's)."""
    done = subprocess.run([sys.executable, "-c", SQLITE_PROCESS, str(path)], check=True,
                          input=json.dumps([q for _, q in queries]), capture_output=True,
                          text=True)
    return round(int(done.stdout.split()[-1]) / 1024, 1)


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def fresh(path: Path, queries: Sequence[tuple[str, str]], runs: int) -> dict[str, Any]:
    english = [q for _, q in queries if q.isascii()]
    chinese = [q for _, q in queries if not q.isascii()]
    python = sys.executable
    samples: dict[str, list[float]] = {"pass": [], "import": [], "query_en": [], "query_zh": []}
    wall([python, "-c", FRESH_SCRIPT, str(path), english[0]])  # page cache, .pyc files
    for n in range(runs):
        samples["pass"].append(wall([python, "-c", "pass"]))
        samples["import"].append(wall([python, "-c", IMPORT_ONLY]))
        samples["query_en"].append(
            wall([python, "-c", FRESH_SCRIPT, str(path), english[n % len(english)]]))
        if chinese:
            samples["query_zh"].append(
                wall([python, "-c", FRESH_SCRIPT, str(path), chinese[n % len(chinese)]]))
    out: dict[str, Any] = {"runs": runs}
    for key, values in samples.items():
        if values:
            out[f"{key}_median_ms"] = round(statistics.median(values), 1)
    out["target_ms"] = TARGET_FRESH_MS
    out["met"] = out["query_en_median_ms"] <= TARGET_FRESH_MS
    return out


def run_one(size: int, count: int, seed: int, fresh_runs: int,
            keep: str | None = None, dump: str | None = None,
            rounds: int = 1) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-recall-") as tmp:
        # --keep DIR: build each (size, seed) once and reuse it (a 1M build takes minutes)
        folder = Path(keep) if keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"recall-{size}-{seed}.sqlite3"
        about_path = folder / f"recall-{size}-{seed}.about.json"
        if keep and path.exists() and about_path.exists():
            build_s = float("nan")
            about = [tuple(pair) for pair in json.loads(about_path.read_text())]
        else:
            path.unlink(missing_ok=True)
            build_s, about = build(path, size, seed)
            about_path.write_text(json.dumps(about))
        queries = query_mix(about, count, seed)
        disk = sum(p.stat().st_size for p in folder.iterdir()
                   if p.name.startswith(path.name))
        # in turns with the other tree's child (alternate.py): the SQLite path's rounds,
        # the cache's, then one turn for the rest (the RSS, the fresh processes)
        turns = alternate.turns(2 * rounds + 1)
        warm = warm_loop(path, queries, turns=turns, rounds=rounds)
        cached = warm_loop(path, queries, cached=True, turns=turns, rounds=rounds)
        next(turns)
        chosen, chosen_cached = warm.pop("selected"), cached.pop("selected")
        if dump:  # what each query selected, to compare two versions of the code
            Path(dump).write_text(json.dumps(chosen))
        current, peak = rss_mb()
        result: dict[str, Any] = {
            "size": size,
            "load_avg": code_baseline.load(),
            "build_s": round(build_s, 2),
            "records_per_s": None if build_s != build_s else round(size / build_s),
            "index_mb": round(disk / 1e6, 2),
            "rss_mb": current,  # this process: the generator's claims, the in-memory index
            "peak_rss_mb": peak,
            "sqlite_process_rss_mb": sqlite_process_rss_mb(path, queries),
            "warm": warm,
            "warm_cached": cached,
            # the two paths rank candidates alike: the share of queries whose digest holds
            # the same claims in the same order
            "same_selection_sqlite_vs_cached": round(
                sum(a == b for a, b in zip(chosen, chosen_cached, strict=True))
                / max(1, len(chosen)), 4),
        }
        target = TARGET_P99_MS.get(size)
        if target is not None:
            result["target_p99_ms"] = target
            result["met_sqlite"] = warm["p99_ms"] <= target
            result["met_cached"] = cached["p99_ms"] <= target
        if size == FRESH_SIZE and fresh_runs:
            result["fresh_process"] = fresh(path, queries, fresh_runs)
        for _ in turns:  # (the last turn told done)
            pass
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--fresh-runs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", default=None,
                        help="folder keeping each size's database between runs (reused)")
    parser.add_argument("--dump", default=None,
                        help="with --one: write what each SQLite query selected to this file")
    parser.add_argument("--baseline", default=None,
                        help="a git ref whose code runs each size too, in the same run")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds the queries are split in; with --baseline the two "
                             "trees take them in turns")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= args.queries:
        parser.error(f"--rounds {args.rounds}: give 1 to --queries ({args.queries})")
    if args.one is not None:
        print(json.dumps(run_one(args.one, args.queries, args.seed, args.fresh_runs, args.keep,
                                 args.dump, args.rounds)))
        return 0
    results = []
    with code_baseline.temporary() as tmp:
        source = (code_baseline.export_source(args.baseline, Path(tmp))
                  if args.baseline else None)
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            trees = {"current": _child(size, args, None, Path(tmp, "current.json"))}
            if source is not None:
                trees["baseline"] = _child(size, args, source, Path(tmp, "baseline.json"))
            ran = alternate.in_turns(trees, 2 * args.rounds + 1)
            current = ran["current"]
            if source is None:
                results.append(current)
                continue
            base = ran["baseline"]
            mine = json.loads(Path(tmp, "current.json").read_text())
            theirs = json.loads(Path(tmp, "baseline.json").read_text())
            results.append({"current": current, "baseline": base,
                            # round by round, in the same minutes: current minus baseline
                            "round_gaps": {key: alternate.round_gaps(current[key], base[key])
                                           for key in ("warm", "warm_cached")},
                            # the SQLite path's selections, query by query
                            "same_selection_as_baseline": round(
                                sum(a == b for a, b in zip(mine, theirs, strict=True))
                                / max(1, len(mine)), 4)})
    print(json.dumps({"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version,
                      "baseline": None if not args.baseline else {
                          "ref": args.baseline,
                          "commit": code_baseline.commit_of(args.baseline)},
                      "results": results}, indent=2, ensure_ascii=False))
    return 0


def _child(size: int, args: argparse.Namespace, source: Path | None,
           dump: Path) -> tuple[list[str], dict[str, str]]:
    """The command and environment of one size's child with ``source``'s code."""
    return ([sys.executable, __file__, "--one", str(size), "--queries", str(args.queries),
             "--fresh-runs", str(args.fresh_runs), "--seed", str(args.seed),
             "--rounds", str(args.rounds), "--dump", str(dump),
             *(["--keep", args.keep] if args.keep else [])], code_baseline.env_with(source))


if __name__ == "__main__":
    sys.exit(main())
