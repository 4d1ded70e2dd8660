"""A long-lived process's queue follows the home configuration as it is now, not as it
was when the process started: the Claude Code helper and ``waymarks mcp`` keep one
recovery tick for hours, and Pi's bridge one queue per session. A privacy policy
tightened (a provider may receive less), a route removed or a ceiling lowered by an edit
of ``config.toml`` while they run applies at their next check: a stale policy must never
send a source the person no longer allows to leave.

A real home, real SQLite, the real tick's queue (checks driven on its own chain), a real
loopback provider; Pi's queue through the bridge's own ``PiEvolution``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from waymarks.models import route_client, route_is_available
from waymarks.service.evolution_tick import RecoveryTick
from waymarks.service.evolution_wiring import register_step, start_recovery
from waymarks.store.jobs import JobStore

PATIENCE_S = 60.0


def _config(home: Path, origin: str, *, openai_may: str = '["normal", "internal"]',
            route: bool = True, calls_per_hour: int = 20) -> None:
    home.mkdir(exist_ok=True)
    routed = (f'provider = "openai"\napi = "openai"\nendpoint = "{origin}/v1"\n'
              'model = "m1"\n' if route else "")
    (home / "config.toml").write_text(
        f"[evolution]\nlearn = true\ncallsPerHour = {calls_per_hour}\n{routed}"
        f"[privacy.remoteProviders]\nopenai = {openai_may}\n", encoding="utf-8")


def _check(tick: RecoveryTick) -> Any:
    """One check of the tick, on its own chain (where the queue's connection lives)."""
    return tick.chain.submit(tick.check).result(PATIENCE_S)


def _job(home: Path, source: str) -> tuple[str, str | None]:
    store = JobStore.open(home)
    try:
        job = store.job(source)
    finally:
        store.close()
    assert job is not None
    return job.state, job.wait_reason


@contextmanager
def _running_tick(tmp_path: Path) -> Iterator[tuple[RecoveryTick, FileStep, FakeProvider, Path]]:
    """The real tick of a home whose route is a loopback provider, two internal sources
    captured; its first check has sent s1. The timer itself never fires here: the test
    drives the checks."""
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1", classification="internal", captured_at="2026-12-01T10:00:00.000Z")
    step.add("s2", classification="internal", captured_at="2026-12-01T11:00:00.000Z")
    register_step(lambda app: step)
    try:
        with FakeProvider(default=openai_ok("ok")) as fake:
            _config(home, fake.origin)
            tick = start_recovery(home, route_client, route_is_available, interval_s=3600)
            assert tick is not None
            try:
                first = _check(tick)
                assert (first.outcome, first.source_id) == ("settled", "s1")
                yield tick, step, fake, home
            finally:
                tick.stop()
    finally:
        register_step(None)


def _tick_after_edit(tmp_path: Path, **edit: Any) -> tuple[Any, int, Path]:
    """After the first check, edit the configuration as ``edit`` says, check again: what
    the second check did, the requests the provider saw, the home."""
    with _running_tick(tmp_path) as (tick, _step, fake, home):
        _config(home, fake.origin, **edit)  # the person edits config.toml
        return _check(tick), len(fake.requests), home


def test_a_tightened_privacy_policy_applies_to_the_running_tick(tmp_path: Path) -> None:
    second, requests, home = _tick_after_edit(tmp_path, openai_may='["normal"]')
    assert (second.outcome, second.source_id, second.reason) == ("waiting", "s2", "privacy")
    assert requests == 1  # s1's, before the edit: s2 (internal) never left
    assert _job(home, "s2") == ("pending", "privacy")


def test_a_route_removed_applies_to_the_running_tick(tmp_path: Path) -> None:
    second, requests, home = _tick_after_edit(tmp_path, route=False)
    assert (second.outcome, second.reason) == ("waiting", "no_route")
    assert requests == 1 and _job(home, "s2") == ("pending", "no_route")


def test_a_lowered_ceiling_applies_to_the_running_tick(tmp_path: Path) -> None:
    second, requests, home = _tick_after_edit(tmp_path, calls_per_hour=1)
    assert (second.outcome, second.reason) == ("waiting", "hourly_cap")
    assert requests == 1 and _job(home, "s2") == ("pending", "hourly_cap")


def test_an_invalid_edit_stops_the_running_tick_from_sending(tmp_path: Path) -> None:
    """A file that no longer parses is no policy at all: the check fails (counted, never
    raised out of the tick) and nothing is sent, until the file is fixed."""
    with _running_tick(tmp_path) as (tick, step, fake, home):
        (home / "config.toml").write_text(
            "[privacy]\nremoteDefaultAllowed = \"bogus\"\n[evolution]\nlearn = true\n"
            f'provider = "openai"\napi = "openai"\nendpoint = "{fake.origin}/v1"\n'
            'model = "m1"\n', encoding="utf-8")
        failed = None
        try:
            _check(tick)
        except Exception as exc:  # noqa: BLE001 - what the tick's loop contains
            failed = exc
        assert failed is not None
        assert len(fake.requests) == 1 and not step.settled("s2")
        _config(home, fake.origin)  # fixed: the next check goes on
        assert _check(tick).source_id == "s2" and step.settled("s2")


def test_pis_queue_follows_a_tightened_privacy_policy(tmp_path: Path) -> None:
    """Pi's bridge keeps its queue for the session and hands Pi's model to it on every
    ``evolve``: the policy for Pi's provider is the one in force at that check."""
    from waymarks.hosts.pi_model import PiEvolution
    from waymarks.service.app import Waymarks

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    step = FileStep(tmp_path / "step")
    step.add("s1", classification="internal", origin=str(project.resolve()),
             captured_at="2026-12-01T10:00:00.000Z")
    step.add("s2", classification="internal", origin=str(project.resolve()),
             captured_at="2026-12-01T11:00:00.000Z")
    config = home / "config.toml"
    config.write_text('[evolution]\nlearn = true\n[privacy]\nremoteDefaultAllowed = '
                      '"internal"\n', encoding="utf-8")
    asked: list[dict[str, Any]] = []

    def ask(method: str, params: dict[str, Any]) -> Any:
        asked.append(params)
        return {"text": "ok", "provider": params["provider"], "model": params["model"],
                "stopReason": "stop"}

    register_step(lambda app: step)
    evolution = PiEvolution(ask)
    try:
        with Waymarks(home, cwd=str(project)) as app:
            first = evolution.run(app, "piprov", "pi-m")
            assert (first["outcome"], first["sourceId"]) == ("settled", "s1")
            config.write_text('[evolution]\nlearn = true\n[privacy]\nremoteDefaultAllowed = '
                              '"normal"\n', encoding="utf-8")
            second = evolution.run(app, "piprov", "pi-m")
    finally:
        evolution.close()
        register_step(None)
    assert (second["outcome"], second["sourceId"], second["reason"]) == (
        "waiting", "s2", "privacy")
    assert len(asked) == 1 and not step.settled("s2")


def test_the_tick_applies_the_stricter_privacy_of_the_project_a_source_came_from(
        tmp_path: Path) -> None:
    """The tick reads the home's configuration (its jobs come from every project), so a
    trusted project's stricter ``[privacy]`` never reached the jobs captured in it: its
    internal sources went to a provider the project allows only normal text. Each job is
    checked against its own project's policy too (the home's, tightened by it)."""
    from waymarks.service.trust import TrustStore

    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    strict, plain = tmp_path / "strict", tmp_path / "plain"
    for project in (strict, plain):
        project.mkdir()
        TrustStore(home).trust(str(project.resolve()))
    (strict / ".waymarks").mkdir()
    (strict / ".waymarks" / "config.toml").write_text(
        '[privacy.remoteProviders]\nopenai = ["normal"]\n', encoding="utf-8")
    step.add("s1", classification="internal", origin=str(strict.resolve()),
             captured_at="2026-12-01T10:00:00.000Z")
    step.add("s2", classification="internal", origin=str(plain.resolve()),
             captured_at="2026-12-01T11:00:00.000Z")
    register_step(lambda app: step)
    try:
        with FakeProvider(default=openai_ok("ok")) as fake:
            _config(home, fake.origin)  # the home allows openai normal and internal
            tick = start_recovery(home, route_client, route_is_available, interval_s=3600)
            assert tick is not None
            try:
                first = _check(tick)
                assert (first.outcome, first.source_id) == ("settled", "s2"), first
                assert len(fake.requests) == 1 and not step.settled("s1")
                assert _job(home, "s1") == ("pending", "privacy")
            finally:
                tick.stop()
    finally:
        register_step(None)
