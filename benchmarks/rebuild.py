"""Benchmark: full rebuild throughput (parse a Pi v3 session file + replay into SQLite).

For each size a valid session file is generated directly (no service calls): a header and
``size`` DS4 custom entries with a realistic mix of mutations (~60% memory add, ~25% pin
add, ~10% memory status "expired", ~5% memory supersede). Then, timed:

- ``parse_s``: ``SessionFile.open(path)``;
- ``rebuild_s``: ``Projection(db_path, now_ms)`` + ``projection.rebuild([session], now_ms)``
  inside ``projection.transaction()`` (commit included): the rebuild a read runs on a
  database deleted or damaged; ``rebuild-index`` also catches the claims' subject terms up
  (``store/claim_subjects.py``), not timed here;
- ``total_s`` = parse + rebuild, ``mutations_per_s`` = size / total;
- ``first_recall_s``: the first recall afterwards (catching the recall index up when the
  rebuild left it behind, as the service does, then one query): before the rebuild built
  the recall index itself, this was where it was built. ``usable_s`` = total + first
  recall, ``mutations_per_s_until_usable`` = size / usable;
- ``cpu_s``: CPU time of parse + rebuild + first recall (what a busy machine does not
  inflate as much as wall time).

What bounds it (``detail``): ``replay_only_cpu_s``, the pure fold of the same records (the
rules alone, no SQLite); ``sqlite_only_cpu_s``, SQLite alone writing what the rebuild wrote
(:func:`sqlite_only`: the same rows copied by SQL into empty tables of the same schema,
indexes built after, committed and the log copied back as the projection does; no Python
per row; ``sqlite_only_parts_cpu_s``: rows, each index and all of them, commit). No change
to the code that runs between the two can bring the rebuild under their sum.

The floor (``floor_cpu_s``, ``floor_mutations_per_s``): reading the ledger and decoding
each mutation line with the ledger's own typed decoders, payload included, and nothing
else (:func:`ledger_decode_cpu`): what no rebuild in this Python can go under.

Row for row (``dump``): a digest of every row of each derived table (and ``meta``, the
claim subjects, the recall postings by term) after the rebuild (:func:`dump_digests`);
``same_rows_as_baseline`` is ``true`` when the baseline's rebuild of the same ledger wrote
the same rows, else the tables that differ. Both codes read one ledger (generated once,
kept in ``--keep DIR`` or a temporary folder): its folder is in the rows.

Baselines on the same file: stdlib ``json.loads`` and ``msgspec.json.decode`` of every line;
and the code of ``--baseline REF`` (default ``main``; ``none`` to skip), copied with
``git archive`` and run on the same ledger in the same run, each size right after the
current code (``baseline`` beside each result, with ``speedup_cpu``/``speedup_wall``). The
machine is shared: the load average is recorded around each run, and CPU time is the
figure to compare when it is high.
Each size runs in a fresh subprocess (hidden ``--one SIZE``) so ``peak_rss_mb`` (sampled
right after the rebuild, before the baselines) is that size's own peak.

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/rebuild.py [--sizes 10000,100000,1000000] [--seed 1]
        [--keep DIR] [--baseline REF|none]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from waymarks.core.bulk import gc_paused
from waymarks.core.replay import replay
from waymarks.ledger.session_file import SessionFile
from waymarks.recall.plan import direct_plan
from waymarks.store.bulk import BULK_CACHE_KIB
from waymarks.store.projection import Projection
from waymarks.store.recall_index import RecallIndex

TARGET_MUTATIONS_PER_S = 150_000  # issue 15, at 1M
MEMORY = "ds4-context-memory-v1"
PIN = "ds4-context-pin-v1"
BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z

COMPONENTS = [
    "billing",
    "auth",
    "search",
    "gateway",
    "scheduler",
    "ingest",
    "reporting",
    "notifications",
    "storage",
    "checkout",
    "catalog",
    "analytics",
    "profile",
    "payments",
    "inventory",
    "ledger",
    "export",
    "importer",
    "mailer",
    "audit",
]
TECHS = [
    "PostgreSQL",
    "Redis",
    "Kafka",
    "SQLite",
    "gRPC",
    "RabbitMQ",
    "S3",
    "Elasticsearch",
    "protobuf",
    "msgspec",
    "Celery",
    "nginx",
    "ClickHouse",
    "DynamoDB",
    "Terraform",
]
PURPOSES = [
    "caching",
    "queueing",
    "session storage",
    "rate limiting",
    "full-text search",
    "audit logs",
    "event fan-out",
    "schema migrations",
    "batch exports",
    "retries",
    "metrics",
    "feature flags",
    "deduplication",
    "tracing",
]
SETTINGS = [
    "timeout",
    "retry budget",
    "batch size",
    "log level",
    "pool size",
    "page size",
    "cache ttl",
    "worker count",
]
VALUES = [
    "30 seconds",
    "5 attempts",
    "500 rows",
    "warning",
    "20 connections",
    "100 items",
    "10 minutes",
    "8 workers",
    "2 seconds",
    "debug",
]
FEATURES = [
    "dark mode",
    "SSO",
    "IPv6",
    "HTTP/2",
    "compression",
    "strict validation",
    "bulk export",
    "webhooks",
    "2FA",
    "telemetry",
]
STATES = ["enabled", "disabled", "not required", "supported", "forbidden", "allowed"]
ENVS = ["staging", "production", "the canary pool", "the EU region", "preview"]
WHENS = [
    "every Tuesday",
    "after the nightly build",
    "twice a week",
    "behind a manual gate",
    "only from the release branch",
]
REGIONS = [
    "us-east-1",
    "eu-west-1",
    "eu-central-1",
    "ap-south-1",
    "us-west-2",
    "sa-east-1",
    "ca-central-1",
    "ap-northeast-1",
]
TOOLS = [
    "ruff",
    "mypy",
    "pytest",
    "the migration linter",
    "pre-commit",
    "the schema diff",
    "the license checker",
    "the benchmarks",
]


def memory_claim(rng: random.Random, i: int) -> str:
    r = rng.random()
    c = rng.choice(COMPONENTS)
    if r < 0.40:
        return f"The {c} service uses {rng.choice(TECHS)} for {rng.choice(PURPOSES)} in build {i}"
    if r < 0.65:  # derived key, unique per i
        return f"The {c} {rng.choice(SETTINGS)} for release {i} is {rng.choice(VALUES)}"
    if r < 0.85:  # derived key + polarity, unique per i
        return f"{rng.choice(FEATURES)} in {c} build {i} is {rng.choice(STATES)}"
    if r < 0.97:
        return f"Deploys of {c} to {rng.choice(ENVS)} happen {rng.choice(WHENS)} (ticket {i})"
    # small pool sharing a key: the occasional real conflict (or repeated claim)
    return f"The {c} default region is {rng.choice(REGIONS)}"


def pin_content(rng: random.Random, i: int) -> str:
    return (
        f"Always run {rng.choice(TOOLS)} before merging changes to "
        f"{rng.choice(COMPONENTS)} (rule {i})"
    )


def iso_ms(ms: int) -> str:
    moment = datetime.fromtimestamp(ms // 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def generate(path: Path, size: int, seed: int, cwd: str) -> dict[str, int]:
    """Write a header and ``size`` custom entries; returns the mix actually generated."""
    rng = random.Random(seed)

    def new_uuid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    encode = msgspec.json.Encoder().encode
    mix: Counter[str] = Counter()
    active_memories: list[str] = []
    session_id = new_uuid()
    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": iso_ms(BASE_MS),
        "cwd": cwd,
    }
    parent: str | None = None
    ms = BASE_MS
    with open(path, "wb", buffering=1 << 20) as out:
        out.write(encode(header) + b"\n")
        for i in range(size):
            ms += rng.randint(1, 2000)
            r = rng.random()
            if r < 0.10 and active_memories:
                # status of an earlier active memory
                victim = active_memories.pop(rng.randrange(len(active_memories)))
                custom, op = MEMORY, "memory_status"
                data: dict[str, object] = {
                    "schemaVersion": 1,
                    "mutationId": new_uuid(),
                    "createdAt": ms,
                    "operation": "status",
                    "memoryId": victim,
                    "status": "expired",
                }
                if rng.random() < 0.5:
                    data["reason"] = f"stale after build {i}"
            elif r < 0.15 and active_memories:
                # supersede an earlier active memory with a new item
                slot = rng.randrange(len(active_memories))
                previous = active_memories[slot]
                item_id = new_uuid()
                active_memories[slot] = item_id
                custom, op = MEMORY, "memory_supersede"
                data = {
                    "schemaVersion": 1,
                    "mutationId": new_uuid(),
                    "createdAt": ms,
                    "operation": "supersede",
                    "item": {
                        "id": item_id,
                        "scope": "session",
                        "claim": memory_claim(rng, i),
                        "createdAt": ms,
                        "sourceEntryIds": [],
                    },
                    "previousId": previous,
                }
            elif r < 0.40:
                custom, op = PIN, "pin_add"
                data = {
                    "schemaVersion": 1,
                    "mutationId": new_uuid(),
                    "createdAt": ms,
                    "operation": "add",
                    "item": {
                        "id": new_uuid(),
                        "scope": "session",
                        "content": pin_content(rng, i),
                        "createdAt": ms,
                    },
                }
            else:
                item_id = new_uuid()
                active_memories.append(item_id)
                custom, op = MEMORY, "memory_add"
                data = {
                    "schemaVersion": 1,
                    "mutationId": new_uuid(),
                    "createdAt": ms,
                    "operation": "add",
                    "item": {
                        "id": item_id,
                        "scope": "session",
                        "claim": memory_claim(rng, i),
                        "createdAt": ms,
                        "sourceEntryIds": [],
                    },
                }
            # a bijection on 32 bits: unique, random-looking 8-hex entry IDs
            entry_id = f"{(i + 1) * 2654435761 % (1 << 32):08x}"
            entry = {
                "type": "custom",
                "customType": custom,
                "data": data,
                "id": entry_id,
                "parentId": parent,
                "timestamp": iso_ms(ms),
            }
            out.write(encode(entry) + b"\n")
            parent = entry_id
            mix[op] += 1
    return dict(mix)


def baseline_json(path: Path) -> float:
    loads = json.loads
    start = time.perf_counter()
    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            loads(line)
            count += 1
    return count / (time.perf_counter() - start)


def baseline_msgspec(path: Path) -> float:
    decode = msgspec.json.decode
    start = time.perf_counter()
    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            decode(line)
            count += 1
    return count / (time.perf_counter() - start)


def run_one(size: int, seed: int, tmp_parent: str | None,
            keep: str | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-rebuild-", dir=tmp_parent) as tmp:
        root = Path(tmp)
        # --keep DIR: generate each (size, seed) ledger once and reuse it
        path = Path(keep) / f"session-{size}-{seed}.jsonl" if keep else root / "session.jsonl"
        mix_path = path.with_suffix(".mix.json")
        start = time.perf_counter()
        if keep and path.exists() and mix_path.exists():
            mix = json.loads(mix_path.read_text())
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            mix = generate(path, size, seed, str(path.parent))
            mix_path.write_text(json.dumps(mix))
        generate_s = time.perf_counter() - start
        now_ms = BASE_MS + 10 * 365 * 86_400_000

        cpu_start = time.process_time()
        start = time.perf_counter()
        session = SessionFile.open(path)
        parse_s = time.perf_counter() - start
        if session.anomalies or len(session.records) != size:
            raise SystemExit(
                f"generated file is not clean: {len(session.records)} records, "
                f"{len(session.anomalies)} anomalies, first: "
                f"{session.anomalies[:1]}"
            )

        start = time.perf_counter()
        projection = Projection(root / "waymarks.db", now_ms)
        opened = time.perf_counter()
        with projection.transaction():  # (rebuild-index's: in place, one transaction)
            replayed = projection.rebuild([session], now_ms)
        rebuild_s = time.perf_counter() - start
        open_s = opened - start
        start = time.perf_counter()
        index = RecallIndex(projection.db)
        if index.behind():
            with projection.transaction():
                index.catch_up()
        plan = direct_plan("which service uses Redis for caching?")
        index.candidates(plan)
        first_recall_s = time.perf_counter() - start
        cpu_s = time.process_time() - cpu_start
        indexed = projection.db.execute("SELECT count(*) FROM recall_records").fetchone()[0]
        peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

        statuses = dict(
            projection.db.execute("SELECT status, count(*) FROM items GROUP BY status").fetchall()
        )
        effects = dict(
            projection.db.execute(
                "SELECT effect, count(*) FROM mutations GROUP BY effect"
            ).fetchall()
        )
        projection.close()
        dump = dump_digests(root / "waymarks.db")

        # pure in-memory fold of the same records (the share of rebuild that is Python rules),
        # with the cyclic GC paused as the projection runs it (else full collections over
        # millions of live objects are timed too)
        start, cpu_start = time.perf_counter(), time.process_time()
        with gc_paused():
            replay(session.records)
        replay_only_s = time.perf_counter() - start
        replay_only_cpu_s = time.process_time() - cpu_start
        del session
        sqlite_parts = sqlite_only(root / "waymarks.db", root / "floor.db")

        json_lps = baseline_json(path)
        msgspec_lps = baseline_msgspec(path)
        floor_cpu_s = ledger_decode_cpu(path)
        file_mb = path.stat().st_size / 1e6

    total_s = parse_s + rebuild_s
    return {
        "mutations": size,
        "replayed": replayed,
        "file_mb": round(file_mb, 1),
        "generate_s": round(generate_s, 3),
        "parse_s": round(parse_s, 3),
        "rebuild_s": round(rebuild_s, 3),
        "total_s": round(total_s, 3),
        "mutations_per_s": round(size / total_s),
        "first_recall_s": round(first_recall_s, 3),
        "usable_s": round(total_s + first_recall_s, 3),
        "mutations_per_s_until_usable": round(size / (total_s + first_recall_s)),
        "cpu_s": round(cpu_s, 3),
        "recall_records": indexed,
        "peak_rss_mb": round(peak_rss_mb, 1),
        "floor_cpu_s": round(floor_cpu_s, 3),
        "floor_mutations_per_s": round(size / floor_cpu_s),
        "dump": dump,
        "baseline_json_lines_per_s": round(json_lps),
        "baseline_msgspec_lines_per_s": round(msgspec_lps),
        "detail": {
            "projection_open_s": round(open_s, 4),
            "replay_only_s": round(replay_only_s, 3),
            "replay_only_cpu_s": round(replay_only_cpu_s, 3),
            "sqlite_only_cpu_s": sqlite_parts["total"],
            "sqlite_only_parts_cpu_s": sqlite_parts,
            "parse_lines_per_s": round((size + 1) / parse_s),
            "mix": mix,
            "effects": effects,
            "item_statuses": statuses,
        },
    }


def ledger_decode_cpu(path: Path) -> float:
    """CPU seconds to read the ledger and decode every mutation line with the ledger's own
    typed decoders (``ledger.log_values.FAST_PATHS``, payload included) and nothing else:
    no entry, record, fold or row. The floor under any rebuild in this Python."""
    from waymarks.ledger.log_values import FAST_PATHS

    start = time.process_time()
    with open(path, "rb") as handle:
        handle.readline()  # the header
        for line in handle:
            for mark, _custom_type, decoder in FAST_PATHS:
                if mark in line:
                    decoder.decode(line)
                    break
    return time.process_time() - start


#: the tables a dump compares (``recall_vocab``: the recall postings, by term, read
#: through FTS5's vocabulary: the postings' own table is contentless)
DUMP_TABLES = ("items", "mutations", "recall_records", "entries", "anomalies", "sources",
               "item_groups", "meta", "claim_subjects", "claim_terms", "recall_vocab")


def dump_digests(db_path: Path) -> dict[str, str]:
    """A digest of every row of each of :data:`DUMP_TABLES` (rowids included where the
    table has them), in a fixed order: two rebuilds of one ledger are row-for-row the
    same exactly when their digests are."""
    import hashlib

    db = sqlite3.connect(db_path)
    try:
        digests = {}
        for table in DUMP_TABLES:
            columns = [r[1] for r in db.execute(f"PRAGMA table_xinfo({table})")]
            rowid = "" if db.execute("SELECT 1 FROM sqlite_master WHERE name = ? AND sql LIKE"
                                     " '%WITHOUT ROWID%'", (table,)).fetchone() or \
                table == "recall_vocab" else "rowid, "
            order = ", ".join(f"{c}" for c in columns)
            digest = hashlib.sha256()
            for row in db.execute(f"SELECT {rowid}* FROM {table} ORDER BY {order}"):
                digest.update(repr(row).encode())
            digests[table] = digest.hexdigest()[:16]
        return digests
    finally:
        db.close()


#: what a rebuild bulk-loads, row for row (the recall postings are in a contentless FTS
#: table: they cannot be read back, and are left out)
BULK_TABLES = ("items", "mutations", "recall_records", "entries")


def sqlite_only(rebuilt: Path, into: Path) -> dict[str, float]:
    """CPU seconds SQLite alone takes to write the rows of ``rebuilt``'s bulk-loaded tables
    into a new database ``into``: the same schema, rows copied by ``INSERT ... SELECT``,
    indexes created after them, one commit, then the log copied back and truncated, with
    the projection's settings (WAL, synchronous NORMAL, the bulk load's page cache).
    ``total`` and its parts: ``rows``, ``indexes`` (each index's beside, by name),
    ``commit`` (the commit and the log copied back)."""
    db = sqlite3.connect(into, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute(f"PRAGMA cache_size = {BULK_CACHE_KIB}")
        db.execute("ATTACH DATABASE ? AS rebuilt", (str(rebuilt),))
        marks = ",".join("?" * len(BULK_TABLES))
        schema = db.execute(f"SELECT type, name, sql FROM rebuilt.sqlite_master WHERE sql IS"
                            f" NOT NULL AND tbl_name IN ({marks})", BULK_TABLES).fetchall()
        for kind, _name, sql in schema:
            if kind == "table":
                db.execute(sql)
        start = time.process_time()
        db.execute("BEGIN IMMEDIATE")
        for table in BULK_TABLES:  # (LIMIT -1, no limit: not SQLite's raw copy of the
            # pages of a table of the same schema, which writes no row as a rebuild does)
            db.execute(f"INSERT INTO main.{table} SELECT * FROM rebuilt.{table} LIMIT -1")
        spent = {"rows": time.process_time() - start}
        for kind, name, sql in schema:
            if kind == "index":
                began = time.process_time()
                db.execute(sql)
                spent[f"index {name}"] = time.process_time() - began
        spent["indexes"] = time.process_time() - start - spent["rows"]
        began = time.process_time()
        db.execute("COMMIT")
        db.execute("PRAGMA main.wal_checkpoint(TRUNCATE)")
        spent["commit"] = time.process_time() - began
        spent["total"] = time.process_time() - start
        return {name: round(value, 3) for name, value in spent.items()}
    finally:
        db.close()


def baseline_src(ref: str, into: Path) -> Path:
    """The ``src`` folder of ``ref`` (``git archive``), to run the same benchmark on."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(repo), "archive", ref, "src"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def run_child(command: list[str], src: Path | None) -> dict[str, Any]:
    """One ``--one`` run (of the code in ``src``, when given), with the load around it."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    before = os.getloadavg()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    load = {"before": [round(x, 2) for x in before],
            "after": [round(x, 2) for x in os.getloadavg()]}
    if done.returncode != 0:
        return {"error": done.stderr.strip()[-2000:], "load_average": load}
    return {**json.loads(done.stdout), "load_average": load}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="comma-separated mutation counts"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--dir", default=None, help="parent of the temporary directories (default: system temp)"
    )
    parser.add_argument("--keep", default=None,
                        help="folder keeping the generated ledgers between runs (reused)")
    parser.add_argument("--baseline", default="main",
                        help="git ref whose code is run on the same ledgers ('none': skip)")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.one is not None:
        json.dump(run_one(args.one, args.seed, args.dir, args.keep), sys.stdout)
        sys.stdout.write("\n")
        return 0

    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="waymarks-rebuild-base-") as base_dir:
        base_src = None if args.baseline == "none" else baseline_src(args.baseline,
                                                                      Path(base_dir))
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            command = [sys.executable, str(Path(__file__).resolve()), "--one", str(size),
                       "--seed", str(args.seed)]
            if args.dir:
                command += ["--dir", args.dir]
            # one ledger for both codes (its folder is in every row of ``sources``): the
            # dumps are then comparable
            command += ["--keep", args.keep or str(Path(base_dir) / "ledgers")]
            result = run_child(command, None)
            if base_src is not None and "error" not in result:
                base = run_child(command, base_src)
                result["baseline"] = base
                if "error" not in base:
                    result["same_rows_as_baseline"] = sorted(
                        t for t in result["dump"] if result["dump"][t] != base["dump"].get(t)
                    ) or True
                    result["speedup_cpu"] = round(base["cpu_s"] / result["cpu_s"], 2)
                    result["speedup_wall"] = round(base["usable_s"] / result["usable_s"], 2)
            result.setdefault("mutations", size)
            results.append(result)

    report = {
        "benchmark": "rebuild",
        "baseline_ref": args.baseline,
        "cpus": os.cpu_count(),
        "results": results,
        "target_mutations_per_s": TARGET_MUTATIONS_PER_S,
        "met": all(r.get("mutations_per_s_until_usable", 0) >= TARGET_MUTATIONS_PER_S
                   for r in results),
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
