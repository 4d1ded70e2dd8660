"""Many processes writing through the real service at once, and a check of what survived.

Run as a script, this file is one worker process::

    python tests/durability/concurrency_worker.py '{"role": "writer", ...}'

A worker builds its own :class:`~waymarks.service.app.Waymarks`, prints ``ready``, waits for
``go`` on stdin, works, and writes its results as JSON to ``config["out"]``:

- a **writer** makes ``writes`` unique writes (pins, plain claims, keyed claims and
  supersessions of its own keyed claims, session and project scope mixed) and records, per
  write, the outcome, the acknowledged ID, the text and the latency (``perf_counter``);
- a **reader** calls ``items("memory")`` and ``items("pin")`` in a loop until the stop file
  appears (then once more) and checks every list for torn or impossible states.

Imported, :func:`run_scenario` starts the workers, waits for them and verifies the home:
nothing acknowledged lost or duplicated, no corrupt line, one linear chain per session
file, health clean, and the projection equal to a rebuild. Used by
``tests/durability/test_concurrency.py`` (small) and ``benchmarks/concurrency.py`` (full).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

WORKER = Path(__file__).resolve()
SCENARIOS = ("shared", "siblings")
MAX_SAMPLES = 10  # examples kept per kind of problem


def monotonic_ns() -> int:
    """System-wide monotonic clock: comparable between processes on one machine."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


# -- what a writer writes ----------------------------------------------------------------


def planned_write(writer: int, i: int) -> tuple[str, str, str]:
    """``(operation, scope, text)`` of write ``i`` of ``writer``: unique, never conflicting.

    Texts carry the writer and sequence numbers; keyed claims (``Setting wW nI is value I``)
    have a subject of their own, and every fourth write supersedes the keyed claim just
    before it (same subject, so the same key). Some texts say "alpha" so that the
    full-text index is part of the rebuild comparison.
    """
    scope = "project" if (i // 4) % 2 else "session"
    step = i % 4
    if step == 0:
        return "pin", scope, f"Writer {writer} pin {i}: run alpha check {writer}-{i} first."
    if step == 1:
        return "remember", scope, f"Writer {writer} noted that build step {writer}-{i} takes {i}s"
    if step == 2:
        return "remember", scope, f"Setting w{writer} n{i} is value {i}"
    return "supersede", scope, f"Setting w{writer} n{i - 1} is value {i} (revised)"


def _handshake() -> None:
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")


def run_writer(cfg: dict[str, Any]) -> dict[str, Any]:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import Committed

    writer = int(cfg["index"])
    app = Waymarks(Path(cfg["home"]), cwd=cfg["project"], session=cfg["session"])
    app.current_session()
    _ = app.projection  # open (and, racing the others, maybe create) the database now
    _handshake()
    records: list[dict[str, Any]] = []
    keyed: str | None = None
    clock = time.perf_counter
    start = monotonic_ns()
    for i in range(int(cfg["writes"])):
        op, scope, text = planned_write(writer, i)
        record: dict[str, Any] = {"i": i, "op": op, "scope": scope, "text": text}
        t0 = clock()
        try:
            if op == "pin":
                outcome: Any = app.pin(text, scope=scope)
            elif op == "remember":
                outcome = app.remember(text, scope=scope)
            elif keyed is not None:
                record["supersedes"] = keyed
                outcome = app.supersede_memory(keyed, text)
            else:  # the keyed claim before failed: write something unique instead
                record["op"] = op = "remember"
                outcome = app.remember(text.replace("Setting", "Fallback"), scope=scope)
        except Exception as exc:  # noqa: BLE001 - every failure is a result to report
            record["latency"] = clock() - t0
            record["outcome"] = "error"
            record["error"] = f"{type(exc).__name__}: {exc}"
            records.append(record)
            keyed = None
            continue
        record["latency"] = clock() - t0
        record["outcome"] = getattr(outcome, "outcome", type(outcome).__name__)
        if isinstance(outcome, Committed):
            record["id"] = outcome.id
            record["entryId"] = outcome.entry_id
            warning = getattr(outcome, "warning", None)
            if warning:
                record["warning"] = warning
        else:
            record["detail"] = repr(outcome)[:300]
        keyed = record.get("id") if step_is_keyed(op, text) else None
        records.append(record)
    end = monotonic_ns()
    session = app.current_session()
    app.close()
    return {"role": "writer", "index": writer, "start_ns": start, "end_ns": end,
            "session": str(session.path) if session else None, "records": records}


def step_is_keyed(op: str, text: str) -> bool:
    return op == "remember" and text.startswith("Setting ")


# -- what a reader checks ----------------------------------------------------------------


def check_views(views: list[Any], project: str) -> list[str]:
    """Impossible states in one ``items()`` list (``ItemView`` objects), described."""
    problems: list[str] = []
    ids = [v.id for v in views]
    if len(set(ids)) != len(ids):
        dups = [i for i, n in Counter(ids).items() if n > 1]
        problems.append(f"ids listed twice: {dups[:3]}")
    by_id = {v.id: v for v in views}
    active: Counter[tuple[str, ...]] = Counter()
    for v in views:
        if v.superseded_by is not None:
            newer = by_id.get(v.superseded_by)
            if newer is None:
                problems.append(f"{v.id} superseded by {v.superseded_by}, not in the list")
            elif newer.supersedes != v.id:
                problems.append(f"{v.id} superseded by {newer.id}, which supersedes "
                                f"{newer.supersedes}")
        if v.status == "superseded" and v.superseded_by is None:
            problems.append(f"{v.id} superseded by nothing")
        if v.supersedes is not None:
            older = by_id.get(v.supersedes)
            if older is None:
                problems.append(f"{v.id} supersedes {v.supersedes}, not in the list")
            elif older.status != "superseded" or older.superseded_by != v.id:
                problems.append(f"{v.id} supersedes {older.id}, which is {older.status} "
                                f"(superseded by {older.superseded_by})")
        if v.status != "active":
            continue
        partition = f"project:{project}" if v.scope == "project" else f"session:{v.session_id}"
        if v.key is not None:
            active[("key", v.kind, partition, v.key)] += 1
        active[("text", v.kind, partition, " ".join(v.text.lower().split()))] += 1
    problems += [f"{n} active items share {facet[0]} {facet[-1]!r} in {facet[2]}"
                 for facet, n in active.items() if n > 1]
    return problems


def run_reader(cfg: dict[str, Any]) -> dict[str, Any]:
    from waymarks.service.app import Waymarks

    app = Waymarks(Path(cfg["home"]), cwd=cfg["project"], session=cfg["session"])
    app.current_session()
    _ = app.projection
    project = app.cwd
    stop = Path(cfg["stop"])
    _handshake()
    checks = 0
    violations: list[str] = []
    errors: list[str] = []
    latencies: list[float] = []
    previous = {"memory": 0, "pin": 0}
    while True:
        stopping = stop.exists()
        for kind in ("memory", "pin"):
            t0 = time.perf_counter()
            try:
                views = app.items(kind)  # type: ignore[arg-type]
            except Exception as exc:  # noqa: BLE001 - every failure is a result to report
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            latencies.append(time.perf_counter() - t0)
            checks += 1
            found = check_views(views, project)
            if len(views) < previous[kind]:
                found.append(f"{kind} count fell from {previous[kind]} to {len(views)}")
            previous[kind] = len(views)
            violations += [f"read {checks} ({kind}): {p}" for p in found]
        if stopping or len(errors) > 100:
            break
    app.close()
    return {"role": "reader", "index": cfg["index"], "checks": checks,
            "violations": violations, "errors": errors, "latencies": latencies,
            "final_counts": previous}


def worker_main(argv: list[str]) -> int:
    cfg = json.loads(argv[1])
    result = run_writer(cfg) if cfg["role"] == "writer" else run_reader(cfg)
    Path(cfg["out"]).write_text(json.dumps(result), encoding="utf-8")
    return 0


# -- the orchestra -----------------------------------------------------------------------


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * pct // 100))
    return sorted_values[int(rank) - 1]


def latency_summary(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    ms = 1000.0
    return {
        "p50_ms": round(percentile(ordered, 50) * ms, 3),
        "p95_ms": round(percentile(ordered, 95) * ms, 3),
        "p99_ms": round(percentile(ordered, 99) * ms, 3),
        "max_ms": round(ordered[-1] * ms, 3) if ordered else 0.0,
        "mean_ms": round(sum(ordered) / len(ordered) * ms, 3) if ordered else 0.0,
    }


def _spawn(cfg: dict[str, Any], root: Path) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    name = f"{cfg['role']}-{cfg['index']}"
    cfg = {**cfg, "out": str(root / f"{name}.json")}
    stderr = open(root / f"{name}.err", "w", encoding="utf-8")  # noqa: SIM115 - closed by caller
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), json.dumps(cfg)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True,
    )
    cfg["stderr"] = stderr
    return proc, cfg


def _finish(proc: subprocess.Popen[str], cfg: dict[str, Any], deadline: float,
            problems: list[str]) -> dict[str, Any] | None:
    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()  # only a process this run started, by its own handle
        proc.wait()
        problems.append(f"{cfg['role']} {cfg['index']} still running at the deadline "
                        "(deadlock or stall); killed")
    cfg["stderr"].close()
    err = Path(cfg["stderr"].name).read_text(encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        problems.append(f"{cfg['role']} {cfg['index']} exited {proc.returncode}: {err[-800:]}")
        return None
    return dict(json.loads(Path(cfg["out"]).read_text(encoding="utf-8")))


def run_scenario(root: Path, scenario: str, *, writers: int, writes: int, readers: int = 2,
                 timeout: float = 600.0) -> dict[str, Any]:
    """Run one scenario in a fresh home under ``root``; returns measurements and checks.

    ``shared``: every writer appends to one session file. ``siblings``: each writer has
    its own session of one trusted project. Readers follow the first sessions.
    """
    from waymarks.service.app import Waymarks

    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {SCENARIOS}")
    home, project = root / "home", root / "project"
    project.mkdir(parents=True)
    # set up without opening the database: the workers create it, racing each other
    with Waymarks(home, cwd=str(project)) as setup:
        setup.trust(str(project))
        count = 1 if scenario == "shared" else max(writers, 1)
        paths = [setup.session_new().path for _ in range(count)]
    assert not (home / "waymarks.db").exists()
    base = {"home": str(home), "project": str(project), "stop": str(root / "stop")}
    procs = [
        _spawn({**base, "role": "writer", "index": w, "writes": writes,
                "session": paths[w % len(paths)]}, root) for w in range(writers)
    ] + [_spawn({**base, "role": "reader", "index": r, "session": paths[r % len(paths)]}, root)
         for r in range(readers)]
    problems: list[str] = []
    for proc, cfg in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            problems.append(f"{cfg['role']} {cfg['index']} did not start")
    for proc, _cfg in procs:
        assert proc.stdin is not None
        try:
            proc.stdin.write("go\n")
            proc.stdin.close()
        except BrokenPipeError:
            pass
    deadline = time.monotonic() + timeout
    results = [_finish(p, c, deadline, problems) for p, c in procs[:writers]]
    Path(base["stop"]).touch()
    reader_results = [_finish(p, c, deadline + 60, problems) for p, c in procs[writers:]]
    writer_results = [r for r in results if r is not None]
    report = verify(home, str(project), [str(p) for p in paths], writer_results, scenario)
    report["problems"] = problems + report["problems"]
    report.update(_measure(writer_results, [r for r in reader_results if r is not None]))
    report.update({"scenario": scenario, "writers": writers, "writes_per_writer": writes,
                   "readers": readers})
    return report


def _measure(writers: list[dict[str, Any]], readers: list[dict[str, Any]]) -> dict[str, Any]:
    records = [r for w in writers for r in w["records"]]
    acked = [r for r in records if r["outcome"] == "committed"]
    wall = ((max(w["end_ns"] for w in writers) - min(w["start_ns"] for w in writers)) / 1e9
            if writers else 0.0)
    read_latencies = [x for r in readers for x in r["latencies"]]
    return {
        "acknowledged": len(acked),
        "wall_s": round(wall, 3),
        "durable_writes_per_s": round(len(acked) / wall, 1) if wall else 0.0,
        "latency": latency_summary([r["latency"] for r in acked]),
        "not_committed": len(records) - len(acked),
        "not_committed_samples": [
            {k: r.get(k) for k in ("op", "outcome", "error", "detail")}
            for r in records if r["outcome"] != "committed"][:MAX_SAMPLES],
        "warnings": [r["warning"] for r in acked if "warning" in r][:MAX_SAMPLES],
        "reader_checks": sum(r["checks"] for r in readers),
        "reader_violations": sum(len(r["violations"]) for r in readers),
        "reader_violation_samples": [v for r in readers for v in r["violations"]][:MAX_SAMPLES],
        "reader_errors": [e for r in readers for e in r["errors"]][:MAX_SAMPLES],
        "reader_latency": latency_summary(read_latencies),
    }


# -- verification ------------------------------------------------------------------------


def _read_ledger(path: Path) -> dict[str, Any]:
    """Parse every line; count what is corrupt; check the parent chain is one line."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    corrupt, entries = [], []
    for n, raw in enumerate(lines, start=1):
        try:
            entries.append(json.loads(raw))
        except ValueError:
            corrupt.append(f"{path.name}:{n}: {raw[:80]!r}")
    if tail:
        corrupt.append(f"{path.name}: unterminated last line {tail[:80]!r}")
    body = [e for e in entries if e.get("type") != "session"]
    breaks = []
    previous = None
    for n, entry in enumerate(body, start=2):
        if entry.get("parentId") != previous:
            breaks.append(f"{path.name}:{n}: parentId {entry.get('parentId')} != {previous}")
        previous = entry.get("id")
    ids = Counter(e.get("id") for e in body)
    return {"entries": body, "corrupt": corrupt, "chain_breaks": breaks,
            "duplicate_entry_ids": [i for i, n in ids.items() if n > 1]}


def verify(home: Path, project: str, paths: list[str], writers: list[dict[str, Any]],
           scenario: str) -> dict[str, Any]:
    from tests.store.test_rebuild import snapshot
    from waymarks.service.app import Waymarks

    problems: list[str] = []
    acked = [dict(r, session=w["session"]) for w in writers for r in w["records"]
             if r["outcome"] == "committed"]
    # every session, read through the service: the projection catches up with each file
    views: dict[str, list[Any]] = {}
    health: dict[str, Any] = {}
    for path in paths:
        with Waymarks(home, cwd=project, session=path) as app:
            views[path] = app.items("pin") + app.items("memory")
            health = app.health()
    # lost / duplicated: each acknowledged id exactly once in its own session's view
    lost, duplicated = [], []
    seen = {path: Counter(v.id for v in vs) for path, vs in views.items()}
    for record in acked:
        n = seen[record["session"]][record["id"]]
        if n == 0:
            lost.append(record["id"])
        elif n > 1:
            duplicated.append(record["id"])
    db = sqlite3.connect(home / "waymarks.db")
    try:
        db_items = Counter(i for (i,) in db.execute("SELECT id FROM items"))
        db_mutations = db.execute("SELECT count(*) FROM mutations").fetchone()[0]
    finally:
        db.close()
    acked_ids = {r["id"] for r in acked}
    duplicated += [i for i, n in db_items.items() if n > 1]
    unacknowledged = sorted(set(db_items) - acked_ids)
    lost += sorted(acked_ids - set(db_items) - set(lost))
    # the ledgers: every line JSON, one chain per file, one entry per acknowledged write
    ledgers = {path: _read_ledger(Path(path)) for path in paths}
    corrupt = [c for led in ledgers.values() for c in led["corrupt"]]
    breaks = [b for led in ledgers.values() for b in led["chain_breaks"]]
    ledger_items = Counter(
        (e.get("data") or {}).get("item", {}).get("id")
        for led in ledgers.values() for e in led["entries"] if e.get("type") == "custom")
    duplicated += [i for i, n in ledger_items.items() if n > 1]
    lost += [i for i in acked_ids if ledger_items[i] == 0 and i not in lost]
    dup_entry_ids = [i for led in ledgers.values() for i in led["duplicate_entry_ids"]]
    # state: each item has the text its writer wrote and the status it must have
    wrong_state = []
    by_id = {v.id: v for vs in views.values() for v in vs}
    superseded = {r["supersedes"]: r["id"] for r in acked if "supersedes" in r}
    for record in acked:
        view = by_id.get(record["id"])
        if view is None:
            continue
        expected = "superseded" if record["id"] in superseded else "active"
        # a supersession inherits the scope of the claim just before it, in the same block
        if (view.text, view.status, view.scope) != (record["text"], expected, record["scope"]):
            wrong_state.append(f"{record['id']}: {view.status}/{view.scope} {view.text!r}, "
                               f"expected {expected}/{record['scope']} {record['text']!r}")
        if expected == "superseded" and view.superseded_by != superseded[record["id"]]:
            wrong_state.append(f"{record['id']}: superseded by {view.superseded_by}")
    consistency = [p for vs in views.values() for p in check_views(vs, project)]
    anomalies = health.get("anomalyCounts", {})
    # the projection built write by write must equal a replay of the ledgers
    incremental = snapshot(home / "waymarks.db")
    with Waymarks(home, cwd=project, session=paths[0]) as app:
        rebuilt_report = app.rebuild_index()
    rebuilt = snapshot(home / "waymarks.db")
    rebuild_diff = {table: [len(incremental[table]), len(rebuilt[table])]
                    for table in incremental if incremental[table] != rebuilt[table]}
    checks = {
        "lost": len(set(lost)),
        "duplicates": len(set(duplicated)),
        "unacknowledged_items": len(unacknowledged),
        "corrupt_lines": len(corrupt),
        "anomalies": sum(anomalies.values()),
        "ignored_mutations": health.get("ignoredMutations", 0),
        "integrity": health.get("integrity"),
        "mutations_vs_acknowledged": [db_mutations, len(acked)],
        "chain_breaks": len(breaks),
        "duplicate_entry_ids": len(dup_entry_ids),
        "wrong_state": len(wrong_state),
        "final_consistency_violations": len(consistency),
        "rebuild_matches": not rebuild_diff,
        "rebuild_diff_rows": rebuild_diff,
        "rebuild_sources": rebuilt_report.get("sources"),
        "session_files": len(paths),
    }
    for name, samples in (("lost", lost), ("duplicated", duplicated),
                          ("unacknowledged", unacknowledged), ("corrupt", corrupt),
                          ("chain", breaks), ("entry ids", dup_entry_ids),
                          ("state", wrong_state), ("consistency", consistency)):
        if samples:
            problems.append(f"{name}: {len(samples)}, e.g. {samples[:3]}")
    if sum(anomalies.values()):
        problems.append(f"anomalies: {anomalies}")
    if db_mutations != len(acked):
        problems.append(f"{db_mutations} mutations projected for {len(acked)} acknowledged")
    if rebuild_diff:
        problems.append(f"projection differs from rebuild in {sorted(rebuild_diff)}")
    if rebuilt_report.get("sources") != len(paths):
        problems.append(f"rebuild read {rebuilt_report.get('sources')} of {len(paths)} sources")
    return {"checks": checks, "problems": problems}


if __name__ == "__main__":
    raise SystemExit(worker_main(sys.argv))
