"""The daily cost ceiling (``dailyEstimatedUsd``) is shared and counts calls in flight: a
reserved call carries its worst-case cost (the request's input, its whole output ceiling)
from the moment it is reserved, in the transaction that checks the ceiling, so real
processes sharing one ``evolution.db`` never spend past it together; a worker killed mid-call
leaves that worst case counted and its call ``interrupted``. Real SQLite, real processes, a
real loopback provider (A review: three concurrent workers spent $1.20 of a $0.50 ceiling,
two in a row $0.80, and a killed worker's call stayed ``reserved`` at $0 for good.)"""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from tests.evolution.test_multiprocess import WORKERS, workers
from waymarks.store.jobs import JobStore

#: 300 + 100 tokens at 1000 USD per million each: one call costs $0.40; its worst case,
#: reserved before it is sent, is its input estimate plus 512 output tokens (about $0.53)
COST = 0.4
CEILING = 1.0
REPLY = openai_ok('{"claims": []}', usage=(300, 100))


def _sources(tmp_path: Path, count: int) -> None:
    step = FileStep(tmp_path / "step")
    for n in range(count):
        step.add(f"s{n}", captured_at=f"2026-12-01T1{n}:00:00.000Z")


def _wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + 120  # a bound on waiting, not a timing assertion
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _calls(home: Path) -> list[tuple[str, float | None]]:
    db = sqlite3.connect(home / "evolution.db")
    try:
        return [(str(o), u) for o, u in db.execute(
            "SELECT outcome, estimated_usd FROM model_calls ORDER BY id")]
    finally:
        db.close()


@pytest.mark.slow
def test_concurrent_workers_never_spend_past_the_daily_ceiling_together(
        tmp_path: Path) -> None:
    _sources(tmp_path, 3)
    release = threading.Event()
    with FakeProvider(default=REPLY, hold=lambda: release.wait(120)) as fake:
        children = workers(tmp_path, fake.origin, 100, str(CEILING))
        try:
            _wait(lambda: len(fake.requests) >= 1, "no call was made")
            # every other worker checks while the first call is held: each finds the
            # ceiling taken by the call in flight and gives up its turn (before, each sent
            # its own call: three in flight, $1.20 spent under a $1.00 ceiling)
            _wait(lambda: sum(c.poll() is not None for c in children) >= WORKERS - 1
                  or len(fake.requests) > 1, "the other workers never finished")
            in_flight = len(fake.requests)
        finally:
            release.set()
        for child in children:
            _out, err = child.communicate(timeout=300)
            assert child.returncode == 0, err
        requests = len(fake.requests)
    assert in_flight == 1
    # the first call's $0.40 left room for a second one's worst case, not for a third's
    assert requests == 2
    calls = _calls(tmp_path / "home")
    assert [o for o, _ in calls] == ["ok", "ok"]
    assert sum(u or 0.0 for _, u in calls) == pytest.approx(2 * COST)
    store = JobStore.open(tmp_path / "home")
    try:
        assert store.usd_since(0) <= CEILING
        assert store.wait_reasons() == {"daily_budget": 1}
    finally:
        store.close()


@pytest.mark.slow
def test_a_worker_killed_mid_call_leaves_its_worst_case_counted(tmp_path: Path) -> None:
    _sources(tmp_path, 1)
    release = threading.Event()
    with FakeProvider(default=REPLY, hold=lambda: release.wait(120)) as fake:
        [child] = workers(tmp_path, fake.origin, 100, str(CEILING), count=1)
        try:
            _wait(lambda: len(fake.requests) == 1, "no call was made")
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=60)
        finally:
            release.set()
    [(outcome, reserved)] = _calls(tmp_path / "home")
    # in flight, the call counts at its worst case: more than the call could report
    assert outcome == "reserved" and reserved is not None and reserved > COST
    store = JobStore.open(tmp_path / "home")
    try:
        assert store.usd_since(0) == pytest.approx(reserved)
        # the lease runs out: the sweep makes the job an interrupted failure, and the call
        # an interrupted one that keeps its cost (before: reserved, $0, for good)
        assert store.expire_leases(2 ** 62, lambda failures: 0) == 1
        assert _calls(tmp_path / "home") == [("interrupted", reserved)]
        assert store.usd_since(0) == pytest.approx(reserved)
        assert store.check().bad_calls == ()
        job = store.job("s0")
        assert job is not None and (job.state, job.last_error) == ("retrying", "interrupted")
    finally:
        store.close()
