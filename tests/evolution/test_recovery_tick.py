"""The recovery tick on its real thread and serial chain: a persisted failed job and a
malformed model reply are both recovered with no user activity; the timer never piles up;
stopping cancels an in-flight attempt without counting a failure."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service.evolution_attempt import Attempt
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.service.evolution_tick import RecoveryTick, SerialChain
from waymarks.store.jobs import JobStore

#: upper bound on waiting for background work in these tests (a timeout, not an assertion)
PATIENCE_S = 60.0


def _until(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


class Offset:
    """The system clock plus an offset a test can move (to skip a backoff)."""

    def __init__(self) -> None:
        self.offset = 0

    def __call__(self) -> int:
        return int(time.time() * 1000) + self.offset


def _factory(home: Path, step: FileStep, origin: str,
             clock: Callable[[], int] | None = None) -> Callable[[], EvolutionQueue]:
    route = RouteConfig("openai", "openai", "m1", origin + "/v1")

    def make() -> EvolutionQueue:
        return EvolutionQueue(JobStore.open(home), step, EvolutionConfig(primary=route),
                              ProviderPolicy.from_config({}),
                              lambda r: client_for(r.api, r.endpoint, r.key_env),
                              now_ms=clock or Offset(), jitter=lambda: 0.5)
    return make


def _learning_home(home: Path, origin: str) -> None:
    """A home with learning on, its route the loopback provider at ``origin``."""
    home.mkdir()
    (home / "config.toml").write_text(
        f'[evolution]\nlearn = true\nprovider = "openai"\n'
        f'endpoint = "{origin}/v1"\nmodel = "m1"\n', encoding="utf-8")


def test_a_persisted_failure_is_recovered_by_the_tick(tmp_path: Path) -> None:
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    # a failure persisted by an earlier process, now due
    store = JobStore.open(home)
    store.add_jobs(step.unsettled(5), 0)
    lease = store.lease("s1", "earlier", 0, 150_000)
    assert lease is not None
    store.fail(lease, "overloaded", 1, output=False, pause=False, retry_at=lambda n: 2)
    store.close()
    with FakeProvider([openai_ok("ok")]) as fake:
        tick = RecoveryTick(_factory(home, step, fake.origin), interval_s=0.05)
        tick.start()
        try:
            assert _until(lambda: step.settled("s1"))
        finally:
            tick.stop()
    assert [r["op"] for r in step.log()] == ["apply"]
    check = JobStore.open(home)
    job = check.job("s1")
    assert job is not None and (job.state, job.failures) == ("settled", 1)


def test_a_malformed_reply_is_retried_by_the_tick(tmp_path: Path) -> None:
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    clock = Offset()
    attempts: list[Attempt] = []
    with FakeProvider([openai_ok("INVALID"), openai_ok("fine")]) as fake:
        tick = RecoveryTick(_factory(home, step, fake.origin, clock), interval_s=0.05,
                            on_attempt=attempts.append)
        tick.start()
        try:
            # wait for the attempt to END, not for the step's log line: the failure and its
            # retry time are persisted after `apply` returns, and moving the clock before
            # that (a loaded machine widens the gap) leaves the lease looking expired and
            # the retry an hour plus a backoff away: the old flake
            assert _until(lambda: any(a.outcome == "failed" for a in attempts))
            assert [r["code"] for r in step.log()] == ["invalid_output"]
            store = JobStore.open(home)
            job = store.job("s1")
            store.close()
            assert job is not None and (job.failures, job.owner) == (1, None)
            clock.offset = 3_600_000  # the backoff has passed
            assert _until(lambda: step.settled("s1"))
        finally:
            tick.stop()
    assert [r["code"] for r in step.log()] == ["invalid_output", "applied"]


def test_the_timer_skips_while_work_is_queued(tmp_path: Path) -> None:
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    chain = SerialChain()
    gate = threading.Event()
    with FakeProvider([openai_ok("ok")]) as fake:
        tick = RecoveryTick(_factory(home, step, fake.origin), chain=chain, interval_s=0.05)
        blocker = chain.submit(gate.wait)
        tick.start()
        try:
            assert _until(lambda: tick.skipped >= 3)
            assert tick.checks == 0 and fake.requests == []
            gate.set()
            blocker.result(PATIENCE_S)
            assert _until(lambda: step.settled("s1"))
        finally:
            tick.stop()


@pytest.mark.slow
def test_stop_cancels_an_in_flight_attempt_without_a_failure(tmp_path: Path) -> None:
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    slow = openai_ok("ok")
    with FakeProvider([(*slow[:3], 1.0)]) as fake:
        tick = RecoveryTick(_factory(home, step, fake.origin), interval_s=0.05)
        tick.start()
        assert _until(lambda: len(fake.requests) == 1)
        tick.stop(timeout=PATIENCE_S)
    assert step.log() == []
    job = JobStore.open(home).job("s1")
    assert job is not None and (job.state, job.failures, job.owner) == ("pending", 0, None)


def test_no_step_wired_stops_the_tick_quietly(tmp_path: Path) -> None:
    tick = RecoveryTick(lambda: None, interval_s=0.05)
    tick.start()
    assert _until(lambda: tick._stop.is_set())
    tick.stop()
    assert tick.errors == 0 and not (tmp_path / "home" / "evolution.db").exists()


def test_start_recovery_needs_learning_on_and_never_runs_in_a_child(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from waymarks.core.evolution_policy import CHILD_ENV
    from waymarks.models import route_client, route_is_available
    from waymarks.service.evolution_wiring import register_step, start_recovery

    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    assert start_recovery(home, route_client, route_is_available) is None  # learning off
    register_step(lambda app: step)
    try:
        monkeypatch.setenv(CHILD_ENV, "1")
        assert start_recovery(home, route_client, route_is_available) is None
        monkeypatch.delenv(CHILD_ENV)
        with FakeProvider([openai_ok("ok")]) as fake:
            _learning_home(home, fake.origin)
            tick = start_recovery(home, route_client, route_is_available, interval_s=0.05)
            assert tick is not None
            try:
                assert _until(lambda: step.settled("s1"))
            finally:
                tick.stop()
    finally:
        register_step(None)


@pytest.mark.slow
def test_the_tick_stops_calling_once_learning_is_turned_off(tmp_path: Path) -> None:
    """A long-lived process started while learning was on reads the switch again on every
    check: after `learn off` nothing more is sent, and the job waits as `learning_off`."""
    from waymarks.models import route_client, route_is_available
    from waymarks.service.evolution_wiring import register_step, start_recovery
    from waymarks.service.learning import set_learning

    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    register_step(lambda app: step)
    try:
        with FakeProvider(default=openai_ok("ok")) as fake:
            _learning_home(home, fake.origin)
            tick = start_recovery(home, route_client, route_is_available, interval_s=0.05)
            assert tick is not None
            try:
                assert _until(lambda: step.settled("s1"))
                set_learning(home, False)
                step.add("s2")
                checks = tick.checks
                assert _until(lambda: tick.checks >= checks + 5)
            finally:
                tick.stop()
            assert len(fake.requests) == 1  # s1's, before the switch
    finally:
        register_step(None)
    assert not step.settled("s2")
    job = JobStore.open(home).job("s2")
    assert job is not None and (job.state, job.wait_reason) == ("pending", "learning_off")
