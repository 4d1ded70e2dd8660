"""The Pi bridge's start on a large session (issue 15), for ``pi_bridge.py --start-mb``.

Pi sends the bridge its whole session at ``initialize``. A generated Pi session of the
given size (no compaction; message entries of about 300 bytes, as a chatty session has)
is sent to ``waymarks bridge`` exactly as the extension sends it, then the first
``/context`` (status) and the first ``plan``: the time of each from the moment the bridge
process is started (the requests' JSON is written beforehand: Pi's part is not timed).
The first start has no checkpoint (cold); each later one follows one new entry, as a
restart of Pi after a turn does (warm). With ``--baseline-src DIR`` or ``--baseline REF``
the same starts run with that code, interleaved round by round, each in its own home.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_stats import summary

HEADER_ID = "33333333-3333-4333-8333-333333333333"
WORDS = ["deploy", "service", "port", "cache", "review", "branch", "linter", "schema"]


def session(mb: float, project: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rnd = random.Random(15)
    header = {"type": "session", "version": 3, "id": HEADER_ID,
              "timestamp": "2026-11-30T10:00:00.000Z", "cwd": str(project)}
    entries: list[dict[str, Any]] = []
    size, parent = 0, None
    while size < mb * 1e6:
        n = len(entries)
        text = f"message {n} " + " ".join(rnd.choice(WORDS) for _ in range(20))
        entry = {"type": "message", "id": f"e{n:08x}", "parentId": parent,
                 "timestamp": "2026-11-30T10:00:01.000Z",
                 "message": {"role": "assistant" if n % 2 else "user",
                             "content": [{"type": "text", "text": text}]}}
        entries.append(entry)
        parent = entry["id"]
        size += len(json.dumps(entry, separators=(",", ":"))) + 1
    return header, entries


class Pi:
    """One Pi session's file and one home, started with one code's bridge."""

    def __init__(self, root: Path, mb: float, source: str | None) -> None:
        root.mkdir()
        self.project, self.file = root / "project", root / "session.jsonl"
        self.project.mkdir()
        self.header, self.entries = session(mb, self.project)
        self.file.write_text("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":"))
                                     + "\n" for e in [self.header, *self.entries]))
        self.env = {**os.environ, "HOME": str(root), "WAYMARKS_HOME": str(root / "home"),
                    "WAYMARKS_CC_HELPER": "off", "PYTHONDONTWRITEBYTECODE": "1"}
        if source is not None:
            self.env["PYTHONPATH"] = source

    def say(self) -> None:
        n = len(self.entries)
        entry = {"type": "message", "id": f"x{n:08x}", "parentId": self.entries[-1]["id"],
                 "timestamp": "2026-11-30T10:00:02.000Z",
                 "message": {"role": "user", "content": [{"type": "text", "text": "next"}]}}
        self.entries.append(entry)
        with self.file.open("a") as file:  # Pi appends what it records
            file.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def start(self) -> dict[str, float]:
        requests = [
            ("initialize", {"cwd": str(self.project), "sessionFile": str(self.file),
                            "header": self.header, "entries": self.entries,
                            "leafId": self.entries[-1]["id"], "hasUI": False}),
            ("command", {"text": "status"}),
            ("plan", {"prompt": "which port does the service use?"}),
            ("shutdown", {})]
        lines = [json.dumps({"id": n, "method": method, "params": params}) + "\n"
                 for n, (method, params) in enumerate(requests, 1)]  # (Pi's part: not timed)
        started = time.perf_counter()
        bridge = subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "bridge"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=self.env, cwd="/")
        assert bridge.stdin is not None and bridge.stdout is not None
        times = {}
        for line, (method, _params) in zip(lines, requests, strict=True):
            bridge.stdin.write(line)
            bridge.stdin.flush()
            answer = json.loads(bridge.stdout.readline())
            if "error" in answer:
                raise SystemExit(f"{method}: {answer['error']}")
            times[method] = (time.perf_counter() - started) * 1000
        bridge.wait()
        return {"initialize_ms": times["initialize"],
                "first_context_ms": times["command"], "first_plan_ms": times["plan"]}


def start_figures(mb: float, runs: int, baseline_src: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="waymarks-pi-start-") as tmp:
        codes = {"current": Pi(Path(tmp, "current"), mb, None)}
        if baseline_src is not None:
            codes["baseline"] = Pi(Path(tmp, "baseline"), mb, baseline_src)
        cold = {name: pi.start() for name, pi in codes.items()}
        warm: dict[str, list[dict[str, float]]] = {name: [] for name in codes}
        for _ in range(runs):
            for name, pi in codes.items():
                pi.say()
                warm[name].append(pi.start())
        size = codes["current"].file.stat().st_size
    return {"session_mb": round(size / 1e6, 1),
            "entries": len(codes["current"].entries),
            **{name: {"cold": {k: round(v, 1) for k, v in cold[name].items()},
                      "warm": {k: summary([row[k] for row in warm[name]])
                               for k in warm[name][0]}}
               for name in codes}}
