"""Multi-process safety (EVOLUTION 82): real processes competing for jobs on one real
evolution.db never run the same attempt twice, and the shared ceilings and route cooldowns
hold across them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.evolution.fake_provider import FakeProvider, error, openai_ok
from tests.evolution.step_double import FileStep

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3


def _race(tmp_path: Path, origin: str, calls_per_hour: int) -> list[dict[str, object]]:
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [subprocess.Popen(
        [sys.executable, "-m", "tests.evolution.mp_worker", str(tmp_path / "home"),
         str(tmp_path / "step"), origin, str(calls_per_hour), str(go)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for _ in range(WORKERS)]
    go.touch()
    attempts = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        attempts += [json.loads(line) for line in out.splitlines()]
    return attempts


def test_competing_processes_never_run_an_attempt_twice_and_share_the_ceiling(
        tmp_path: Path) -> None:
    step = FileStep(tmp_path / "step")
    for n in range(12):
        step.add(f"s{n:02d}", captured_at=f"2026-12-01T10:{n:02d}:00.000Z")
    reply = openai_ok("ok")
    with FakeProvider(default=(*reply[:3], 0.05)) as fake:
        attempts = _race(tmp_path, fake.origin, calls_per_hour=8)
        requests = len(fake.requests)
    db = sqlite3.connect(tmp_path / "home" / "evolution.db")
    calls = db.execute("SELECT source_id, attempt, owner FROM model_calls").fetchall()
    # the shared hourly ceiling held across the processes
    assert len(calls) == requests == 8
    # every attempt (source, attempt number) belongs to exactly one owner, once
    assert max(Counter((s, a) for s, a, _ in calls).values()) == 1
    applies = [r for r in step.log() if r["op"] == "apply"]
    assert len(applies) == 8
    assert max(Counter(r["source"] for r in applies).values()) == 1
    settled = [a for a in attempts if a["outcome"] == "settled"]
    assert len(settled) == 8 and len({a["sourceId"] for a in settled}) == 8
    assert len({a["owner"] for a in attempts}) == WORKERS
    assert any(a["reason"] == "hourly_cap" for a in attempts)
    states = dict(db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall())
    assert states == {"settled": 8, "pending": 4}


def test_a_cooldown_one_process_met_holds_for_the_others(tmp_path: Path) -> None:
    step = FileStep(tmp_path / "step")
    for n in range(6):
        step.add(f"s{n}", captured_at=f"2026-12-01T10:0{n}:00.000Z")
    limited = error(429, headers={"retry-after": "600"})
    with FakeProvider(default=(*limited[:3], 0.05)) as fake:
        attempts = _race(tmp_path, fake.origin, calls_per_hour=100)
        requests = len(fake.requests)
    # the first 429 cools m1 down for everyone: at most one call per process was in
    # flight before the cooldown was recorded, none after
    assert 1 <= requests <= WORKERS
    assert all(a["outcome"] in ("waiting", "idle", "busy") for a in attempts)
    db = sqlite3.connect(tmp_path / "home" / "evolution.db")
    assert db.execute("SELECT SUM(failures) FROM jobs").fetchone()[0] == 0
    assert step.log() == []
