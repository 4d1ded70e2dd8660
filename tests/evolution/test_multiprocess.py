"""Multi-process safety (EVOLUTION 82): real processes competing for jobs on one real
evolution.db never run the same attempt twice, and the shared ceilings and route cooldowns
hold across them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, error, openai_ok
from tests.evolution.step_double import FileStep

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3


def child_env() -> dict[str, str]:
    """A worker process's environment: this checkout's own code first, whatever an
    installed copy of Waymarks holds."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


def workers(tmp_path: Path, origin: str, calls_per_hour: int, *extra: str,
            count: int = WORKERS) -> list[subprocess.Popen[str]]:
    """``count`` real worker processes (:mod:`tests.evolution.mp_worker`) on one home,
    started together; ``extra``: the worker's further arguments (a daily ceiling)."""
    go = tmp_path / "go"
    env = child_env()
    children = [subprocess.Popen(
        [sys.executable, "-m", "tests.evolution.mp_worker", str(tmp_path / "home"),
         str(tmp_path / "step"), origin, str(calls_per_hour), str(go), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for _ in range(count)]
    go.touch()
    return children


def _race(tmp_path: Path, origin: str, calls_per_hour: int) -> list[dict[str, object]]:
    children = workers(tmp_path, origin, calls_per_hour)
    attempts = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        attempts += [json.loads(line) for line in out.splitlines()]
    return attempts


@pytest.mark.slow
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


@pytest.mark.slow
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


_TAKEOVER = """
import json, sys
from pathlib import Path
from tests.evolution.step_double import FileStep
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import route_client
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore
home, step, origin = sys.argv[1:4]
route = RouteConfig("openai", "openai", "m1", origin + "/v1")
queue = EvolutionQueue(JobStore.open(Path(home)), FileStep(Path(step)),
                       EvolutionConfig(primary=route), ProviderPolicy.from_config({}),
                       route_client)
print(json.dumps({**queue.run_once("s1").to_json(), "owner": queue.owner}))
queue.close()
"""


@pytest.mark.slow
def test_a_worker_whose_lease_another_process_took_over_is_refused(tmp_path: Path) -> None:
    """Process 1's lease expires (its clock runs 200 s behind: the lease ended 50 s ago
    in real time) while its model call is in flight; a real second process sweeps it and
    takes the job over. Process 1's result, failure and give-up are all refused."""
    import time

    from waymarks.core.model_port import ModelClient, ModelReply, ModelRequest, Route
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.models import route_client
    from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
    from waymarks.service.evolution_queue import EvolutionQueue
    from waymarks.store.jobs import JobStore

    step = FileStep(tmp_path / "step")
    step.add("s1")
    home = tmp_path / "home"
    behind = int(time.time() * 1000) - 200_000
    other: list[dict[str, object]] = []

    with FakeProvider(default=openai_ok("ok")) as fake:
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")

        class TakenOverDuringTheCall:
            def complete(self, request: ModelRequest, r: Route, *,
                         timeout_s: float) -> ModelReply:
                reply = route_client(route).complete(request, r, timeout_s=timeout_s)
                done = subprocess.run(
                    [sys.executable, "-c", _TAKEOVER, str(home), str(tmp_path / "step"),
                     fake.origin], capture_output=True, text=True, timeout=120, cwd=ROOT,
                    env=child_env())
                assert done.returncode == 0, done.stderr
                other.append(json.loads(done.stdout))
                return reply

        def clients(_: RouteConfig) -> ModelClient:
            return TakenOverDuringTheCall()

        store = JobStore.open(home)
        first = EvolutionQueue(store, step, EvolutionConfig(primary=route),
                               ProviderPolicy.from_config({}), clients,
                               now_ms=lambda: behind)
        attempt = first.run_once()
        requests = len(fake.requests)
    assert attempt.outcome == "late"
    [taken] = other
    assert (taken["outcome"], taken["reason"]) == ("settled", "applied")
    assert taken["owner"] != first.owner
    old = store.db.execute("SELECT owner, attempt FROM model_calls ORDER BY id").fetchall()
    assert [o for o, _ in old] == [first.owner, taken["owner"]] and requests == 2
    assert [a for _, a in old] == [1, 2]  # two attempts, each run once, by its own owner
    # the old owner's late verbs are all refused and change nothing
    from waymarks.store.jobs import Lease
    stale = Lease("s1", first.owner, 1, behind + 150_000)
    before = store.job("s1")
    assert store.settle(stale, "applied", behind) is False
    assert store.give_up(stale, "budget_spent", behind) is False
    assert store.fail(stale, "overloaded", behind, output=False, pause=True,
                      retry_at=lambda f: 0) is False
    assert store.job("s1") == before and before is not None and before.state == "settled"
    applies = [r for r in step.log() if r["op"] == "apply"]
    assert len(applies) == 1  # only the new owner's reply was applied
    store.close()


NOTICE_T0 = 1_800_000_000_000


def _notice_round(tmp_path: Path, name: str, clock_ms: int) -> list[dict[str, object]]:
    """WORKERS real processes, all ready before any starts its one check at ``clock_ms``."""
    env = child_env()
    go = tmp_path / f"go-{name}"
    ready = [tmp_path / f"ready-{name}-{n}" for n in range(WORKERS)]
    children = [subprocess.Popen(
        [sys.executable, "-m", "tests.evolution.notice_worker", str(tmp_path / "home"),
         str(tmp_path / "step"), str(ready[n]), str(go), str(clock_ms)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for n in range(WORKERS)]
    deadline = time.monotonic() + 120  # a bound on waiting, not a timing assertion
    while not all(r.exists() for r in ready):
        assert time.monotonic() < deadline, "the workers never got ready"
        assert all(c.poll() is None for c in children), [c.communicate() for c in children]
        time.sleep(0.01)
    go.touch()
    attempts = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        attempts += [json.loads(line) for line in out.splitlines()]
    return attempts


@pytest.mark.slow  # three rounds of real processes: ~20 s on a loaded machine
def test_a_fallback_is_noticed_once_per_pair_per_hour_across_processes(
        tmp_path: Path) -> None:
    """Item 66 across real processes: every process falls back from the rate-limited
    primary in the same moment (its 429s arrive once all of them called), yet exactly
    one of them reports the notice; processes half an hour later report none; an hour
    later, one again."""
    step = FileStep(tmp_path / "step")
    for n in range(3 * WORKERS):
        step.add(f"s{n:02d}", captured_at=f"2026-12-01T10:{n:02d}:00.000Z")
    # the primary answers no one until every process of the round has called it (a
    # barrier, not a delay: a late process on a loaded machine cannot miss the moment)
    barrier = threading.Barrier(WORKERS, timeout=120)
    with FakeProvider(default=error(429, headers={"retry-after": "1"}),
                      hold=barrier.wait) as primary, \
            FakeProvider(default=openai_ok("ok")) as backup:
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text(
            f'[evolution]\nprovider = "primary"\nendpoint = "{primary.origin}/v1"\n'
            f'model = "p1"\ncallsPerHour = 1000\n[[evolution.backups]]\nprovider = "cheap"\n'
            f'endpoint = "{backup.origin}/v1"\nmodel = "c1"\n', encoding="utf-8")
        rounds = {name: _notice_round(tmp_path, name, NOTICE_T0 + offset)
                  for name, offset in (("now", 0), ("half-hour", 1_800_000),
                                       ("hour", 3_700_000))}
        first_calls = len(primary.requests)
    for name, attempts in rounds.items():
        assert [a["outcome"] for a in attempts] == ["settled"] * WORKERS, (name, attempts)
        assert {a["model"] for a in attempts} == {"c1"}, (name, attempts)
    now = rounds["now"]
    # each process fell back in the same attempt (two calls), and the shared table gave
    # the news to one of them only
    assert all(a["calls"] == 2 for a in now), now
    assert first_calls == 3 * WORKERS  # every round called the primary first
    assert sum(1 for a in now if a.get("notice")) == 1, now
    assert [a.get("notice") for a in rounds["half-hour"]] == [None] * WORKERS
    assert sum(1 for a in rounds["hour"] if a.get("notice")) == 1, rounds["hour"]
    db = sqlite3.connect(home / "evolution.db")
    rows = db.execute("SELECT from_provider, to_provider, reason, created_at FROM "
                      "recovery_notices ORDER BY id").fetchall()
    db.close()
    assert [(f, t, r) for f, t, r, _ in rows] == [("primary", "cheap", "rate_limited")] * 2
    assert [at for *_, at in rows] == [NOTICE_T0, NOTICE_T0 + 3_700_000]
