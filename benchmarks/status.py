"""Benchmark: ``waymarks status``'s counts, and the inspector overview's, at 10k and 100k memories.

The store is a real session ledger written as in ``plan.py`` (memory adds and 50 pins),
projected with ``rebuild_index``; a tenth of the claims are then expired, so the rows
``status`` must read and verify (every claim not plainly active) are there too. Each
status runs the service use case (``Waymarks.status``: refresh, pins, memory counts, the
hybrid recall's vectors); beside it, the overview's count (``visible_count``, SQL only).
With ``--baseline REF`` each size runs again, right after, against ``REF``'s code (its
``src`` exported: ``code_baseline.py``). Each run also prints the counts, which must be
the same in both versions (the baseline's total left out nothing here: the session is
the project's own).

    .venv/bin/python benchmarks/status.py [--sizes 10000,100000] [--baseline REF]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import code_baseline
from bench_stats import summary
from plan import write_ledger
from waymarks.service.app import Waymarks

RUNS = 30


def expire_a_tenth(ledger: Path) -> None:
    """Append a status entry expiring every tenth memory of ``ledger``."""
    lines = ledger.read_text().splitlines()
    last = json.loads(lines[-1])
    parent, ms = last["id"], last["data"]["createdAt"]
    claims = [json.loads(line)["data"]["item"]["id"] for line in lines[1:]
              if "memory" in json.loads(line)["customType"]]
    for n, item_id in enumerate(claims[::10]):
        ms += 1
        entry = f"e{n:07x}"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"
        lines.append(json.dumps({
            "type": "custom", "customType": "ds4-context-memory-v1", "id": entry,
            "parentId": parent, "timestamp": stamp,
            "data": {"schemaVersion": 1, "mutationId": f"expire-{n}", "createdAt": ms,
                     "operation": "status", "memoryId": item_id, "status": "expired"}}))
        parent = entry
    ledger.write_text("\n".join(lines) + "\n")


def run(size: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-status-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        ledger = Path(tmp, "session.jsonl")
        write_ledger(ledger, str(project), size, 50, seed)
        expire_a_tenth(ledger)
        with Waymarks(Path(tmp, "home"), cwd=str(project), session=str(ledger)) as app:
            app.rebuild_index()
        with Waymarks(Path(tmp, "home"), cwd=str(project), session=str(ledger)) as app:
            from waymarks.service.provenance import visible_count

            times, counted = [], []
            data = app.status()
            for _ in range(RUNS):
                t0 = time.perf_counter()
                data = app.status()
                times.append((time.perf_counter() - t0) * 1000)
            for _ in range(RUNS):
                t0 = time.perf_counter()
                with app.begin():
                    total = visible_count(app, "memory")
                counted.append((time.perf_counter() - t0) * 1000)
    return {"memories": size, "status": summary(times), "overview_count": summary(counted),
            "counts": data["memory"], "overview_total": total}


def main() -> int:
    parser = code_baseline.sized_parser(__doc__, "10000,100000")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run(args.one, args.seed)))
        return 0
    return code_baseline.print_report(code_baseline.sized_report(__file__, "status", args))


if __name__ == "__main__":
    sys.exit(main())
