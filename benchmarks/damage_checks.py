"""Benchmark: what detecting a damaged projection costs (store/integrity.py).

For each size, a real session ledger of that many memory claims plus 50 pins (the plan
benchmark's generator) is projected, then, in the same run and process:

- ``reads``: each read the plan and the listings make, verified (row checksums, grammar,
  per-side counts) against the same read unverified (the former single UNION query, rows
  decoded without checks): the full memory listing, the newest 12 active claims (plan
  continuity), 10 claims by ID (plan matches); p50/p99 in ms;
- ``plan``: the whole plan use case with the checks on, and with every check function
  replaced by a no-op;
- ``open``: opening the projection with the whole-database check (forced at every size
  here; it runs on open only while the database is at most ``OPEN_CHECK_MAX_BYTES``) and
  without it; plus the whole-database check alone (``verify_all``, without the FTS5
  check), ``PRAGMA quick_check`` and ``PRAGMA integrity_check`` for comparison;
- ``rebuild_s``: a full rebuild (checksums and group counts are written with the rows).

Each pair is timed in alternation (load from other processes falls on both alike). Not a
test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/damage_checks.py [--sizes 50,1000,10000,100000] [--runs 200]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench_stats import summary
from plan import SUBJECTS, write_ledger
from waymarks.core.rules import ItemState
from waymarks.service.app import Waymarks
from waymarks.service.planning import plan_request
from waymarks.store import integrity, projection, queries, recall_cache, recall_index
from waymarks.store.integrity import OPEN_CHECK_MAX_BYTES, database_bytes, verify_all
from waymarks.store.projection import ITEM_COLUMNS, Projection

_COLUMNS = ITEM_COLUMNS.removesuffix(", checksum")


def baseline_items(db: sqlite3.Connection, kind: str, session_id: str, project: str, *,
                   ids: list[str] | None = None, recent_active: int | None = None
                   ) -> list[ItemState]:
    """The read as it was before the checks: one UNION query, rows decoded unchecked."""
    if ids is not None:
        rows = db.execute(
            f"SELECT {_COLUMNS} FROM items INDEXED BY items_id WHERE id IN"
            f" ({','.join('?' * len(ids))}) AND kind = ?"
            " AND (session_id = ? OR (project_path = ? AND scope = 'project')) ORDER BY seq",
            (*ids, kind, session_id, project))
    else:
        where = " AND status = 'active'" if recent_active is not None else ""
        order = f" ORDER BY seq DESC LIMIT {recent_active}" if recent_active else " ORDER BY seq"
        side = (f"SELECT * FROM (SELECT {_COLUMNS} FROM items WHERE kind = ? AND %s = ?"
                f"{where}{order if recent_active else ''})")
        mine = side.replace("%s", "session_id")
        theirs = side.replace("%s", "scope = 'project' AND project_path")
        rows = db.execute(f"{mine} UNION {theirs}{order}", (kind, session_id, kind, project))
    with patched_checks():
        return [projection.state_from_row((*r, 0)) for r in rows]


@contextmanager
def patched_checks() -> Iterator[None]:
    """Every check function replaced by a no-op, where each module looks it up."""
    saved: list[tuple[Any, str, Any]] = []
    noop: Callable[..., None] = lambda *args, **kwargs: None  # noqa: E731
    targets = {
        projection: ("verify_item", "verify_blob_row"),
        queries: ("verify_item", "require"),
        recall_index: ("verify_blob_row", "require"),
        recall_cache: ("verify_blob_row",),
    }
    for module, names in targets.items():
        for name in names:
            saved.append((module, name, getattr(module, name)))
            setattr(module, name, noop)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def timed(fn: Callable[[], object], runs: int) -> dict[str, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return summary(times, 3)


def paired(first: Callable[[], object], second: Callable[[], object], runs: int
           ) -> tuple[dict[str, float], dict[str, float]]:
    """Both timed in alternation, so that load from other processes falls on each alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for fn, into in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            fn()
            into.append((time.perf_counter() - started) * 1000)
    return summary(times[0], 3), summary(times[1], 3)


def open_costs(path: Path, runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Opening with the whole-database check (forced, whatever the size) and without."""
    saved = integrity.OPEN_CHECK_MAX_BYTES

    def opened(limit: int) -> Callable[[], None]:
        def once() -> None:
            integrity.OPEN_CHECK_MAX_BYTES = limit
            Projection(path, 0).db.close()
        return once

    try:
        return paired(opened(1 << 62), opened(-1), runs)
    finally:
        integrity.OPEN_CHECK_MAX_BYTES = saved


def run(size: int, runs: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="waymarks-damage-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        ledger = Path(tmp, "session.jsonl")
        write_ledger(ledger, str(project), size, 50, seed)
        app = Waymarks(Path(tmp, "home"), cwd=str(project), session=str(ledger))
        started = time.perf_counter()
        app.rebuild_index()
        rebuild_s = time.perf_counter() - started
        app.recall("warm up the recall index")
        session = app.current_session()
        assert session is not None
        db, sid, cwd = app.projection.db, session.session_id, app.cwd
        all_ids = [v.id for v in app.items("memory")]
        some = rng.sample(all_ids, min(10, len(all_ids)))
        listing_runs = max(3, min(runs, 200_000 // max(size, 1)))
        reads = {}
        for name, checked, plain, n in (
            ("full_listing", lambda: queries.visible_items(db, "memory", sid, cwd),
             lambda: baseline_items(db, "memory", sid, cwd), listing_runs),
            ("newest_12_active",
             lambda: queries.visible_items(db, "memory", sid, cwd, recent_active=12),
             lambda: baseline_items(db, "memory", sid, cwd, recent_active=12), runs),
            ("ten_by_id", lambda: queries.visible_items(db, "memory", sid, cwd, ids=some),
             lambda: baseline_items(db, "memory", sid, cwd, ids=some), runs),
        ):
            assert [s.id for s in checked()] == [s.id for s in plain()]
            on, off = paired(checked, plain, n)
            reads[name] = {"checked": on, "unchecked": off}
        prompts = iter([f"what port does the {rng.choice(SUBJECTS)}-"
                        f"{rng.randint(50, size + 49)} service use?" for _ in range(runs)] * 2)

        def plan_off() -> None:
            with patched_checks():
                plan_request(app, next(prompts), provider="remote")

        plan_on, plan_off_times = paired(
            lambda: plan_request(app, next(prompts), provider="remote"), plan_off, runs)
        app.close()
        path = Path(tmp, "home", "waymarks.db")
        con = sqlite3.connect(path)
        size_bytes = database_bytes(con)
        whole = {name: timed(fn, 3 if size >= 10_000 else 20) for name, fn in (
            ("verify_all", lambda: verify_all(con)),
            ("quick_check", lambda: con.execute("PRAGMA quick_check").fetchall()),
            ("integrity_check", lambda: con.execute("PRAGMA integrity_check").fetchall()),
        )}
        con.close()
        with_check, without = open_costs(path, 3 if size >= 10_000 else 30)
        return {
            "memories": size, "pins": 50, "database_kib": size_bytes // 1024,
            "checked_on_open": size_bytes <= OPEN_CHECK_MAX_BYTES,
            "rebuild_s": round(rebuild_s, 3), "reads": reads,
            "plan": {"checks_on": plan_on, "checks_off": plan_off_times},
            "open": {"with_whole_check": with_check, "without": without},
            "whole_database": whole,
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,1000,10000")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = [run(int(s), args.runs, args.seed) for s in args.sizes.split(",")]
    json.dump({"benchmark": "damage_checks", "open_check_max_bytes": OPEN_CHECK_MAX_BYTES,
               "results": results}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    assert integrity.ITEM_FIELDS == 22
    sys.exit(main())
