"""Benchmark: cross-session project memory over many sibling session files.

Builds a trusted project with an active session and ``--siblings`` Pi-format session files
of ``--entries`` entries each (one in ten a project memory mutation, the rest user and
assistant messages), then measures through the real service:

- initial index: the first read after the files appear (discovery + indexing), MB/s;
- refresh with nothing changed: ``app.refresh()``, p50/p99 (target <= 20 ms);
- refresh after one line was appended to one sibling, p50/p99 (target <= 30 ms).

Baselines in the same run: listing and stat-ing the files alone (the floor of any
change detection), and ``rebuild-index`` (reading every file whole).

    .venv/bin/python benchmarks/cross_session.py [--siblings 1000] [--entries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench_stats import summary
from waymarks.ledger.discovery import session_dir, session_file_name
from waymarks.service.app import Waymarks

T0 = 1_767_225_600_000


def iso(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def memory_line(project: str, entry_id: str, parent: str, at: int, n: int) -> dict[str, Any]:
    return {"type": "custom", "customType": "ds4-context-memory-v1", "id": entry_id,
            "parentId": parent, "timestamp": iso(at),
            "data": {"schemaVersion": 1, "mutationId": str(uuid.uuid4()), "createdAt": at,
                     "operation": "add",
                     "item": {"id": str(uuid.uuid4()), "scope": "project", "createdAt": at,
                              "claim": f"Service {n} listens on port {1000 + n % 60000}",
                              "projectPath": project, "sourceEntryIds": [parent]}}}


def write_sibling(directory: Path, project: str, start: int, entries: int, base: int) -> Path:
    session_id = str(uuid.uuid4())
    path = directory / session_file_name(iso(start), session_id)
    lines = [{"type": "session", "version": 3, "id": session_id, "timestamp": iso(start),
              "cwd": project}]
    parent = None
    for n in range(entries):
        entry_id, at = f"{n + 1:08x}", start + (n + 1) * 1000
        if n % 10 == 9:
            lines.append(memory_line(project, entry_id, parent or "", at, base + n))
        else:
            role = "user" if n % 2 == 0 else "assistant"
            lines.append({"type": "message", "id": entry_id, "parentId": parent,
                          "timestamp": iso(at), "message": {"role": role, "content": [
                              {"type": "text", "text": f"turn {n} about the build " * 4}]}})
        parent = entry_id
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--siblings", type=int, default=1000)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waymarks-xs-") as tmp:
        home, project_dir = Path(tmp, "home"), Path(tmp, "project")
        project_dir.mkdir()
        home.mkdir()
        (home / "config.toml").write_text(
            f"[memory]\nmaxProjectSessions = {args.siblings}\n")
        app = Waymarks(home, cwd=str(project_dir))
        app.trust(str(project_dir))
        app.session_new()
        app.session_say("start")
        app.items("memory")  # the database exists: what follows is discovery, not a fill
        directory = session_dir(home, app.cwd)
        paths = [write_sibling(directory, app.cwd, T0 + n * 400_000, args.entries,
                               n * args.entries) for n in range(args.siblings)]
        total_bytes = sum(p.stat().st_size for p in paths)

        started = time.perf_counter()
        app.refresh()
        initial_s = time.perf_counter() - started
        indexed = app.status()["memory"]["applies"]

        unchanged = []
        for _ in range(args.runs):
            started = time.perf_counter()
            app.refresh()
            unchanged.append((time.perf_counter() - started) * 1000)

        appended = []
        for n in range(args.runs):
            path = paths[(n * 37) % len(paths)]
            line = memory_line(app.cwd, f"f{n:07x}", "00000001", T0 + 10**9 + n, 10**7 + n)
            with path.open("a") as handle:
                handle.write(json.dumps(line) + "\n")
            started = time.perf_counter()
            app.refresh()
            appended.append((time.perf_counter() - started) * 1000)
        after = app.status()["memory"]["applies"]

        floor = []
        for _ in range(args.runs):
            started = time.perf_counter()
            for entry in os.scandir(directory):
                entry.stat()
            floor.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        app.rebuild_index()
        rebuild_s = time.perf_counter() - started
        app.close()
    report = {
        "benchmark": "cross_session",
        "siblings": args.siblings, "entries_per_sibling": args.entries,
        "bytes": total_bytes,
        "initial_index": {"seconds": round(initial_s, 2),
                          "mb_per_s": round(total_bytes / 1e6 / initial_s, 1),
                          "project_memories_in_effect": indexed},
        "refresh_unchanged": {**summary(unchanged), "target_ms": 20},
        "refresh_after_one_appended_line": {**summary(appended), "target_ms": 30,
                                            "memories_in_effect_after": after},
        "baseline_scandir_and_stat": summary(floor),
        "baseline_rebuild_index_s": round(rebuild_s, 2),
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
