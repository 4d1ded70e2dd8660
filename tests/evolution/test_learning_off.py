"""Learning off (the home's `learn off`, or a project's `[evolution] learn = false`) means
nothing captured is sent to a model: the queue of a home reads the switch for each job's
origin before leasing it and before each call, and `evolve` refuses in such a directory.
A real home, real SQLite, a real loopback provider."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds, StepClock
from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from waymarks.core.model_port import ModelReply, StepOutcome
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for, route_client
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_wiring import open_queue
from waymarks.service.learning import set_learning

ROOT = Path(__file__).resolve().parents[2]


def _config(home: Path, origin: str, learn: bool) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[evolution]\nlearn = {str(learn).lower()}\nprovider = "openai"\napi = "openai"\n'
        f'endpoint = "{origin}/v1"\nmodel = "m1"\n', encoding="utf-8")


def test_a_home_queue_sends_nothing_of_an_origin_where_learning_is_off(
        tmp_path: Path) -> None:
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (elsewhere / ".waymarks").mkdir()
    (elsewhere / ".waymarks" / "config.toml").write_text("[evolution]\nlearn = false\n")
    step.add("s-else", origin=str(elsewhere), captured_at="2026-01-01T00:00:00.000Z")
    step.add("s-here", origin=str(here), captured_at="2026-01-02T00:00:00.000Z")
    with FakeProvider(default=openai_ok("ok")) as fake:
        _config(home, fake.origin, learn=True)
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")
        queue = open_queue(home, step, EvolutionConfig(primary=route),
                           ProviderPolicy.from_config({}),
                           lambda r: client_for(r.api, r.endpoint, r.key_env),
                           lambda r: True)
        try:
            first = queue.run_once()  # the older source's project turned learning off
            assert (first.outcome, first.source_id) == ("settled", "s-here")
            assert queue.store.job("s-else").wait_reason == "learning_off"  # type: ignore[union-attr]
            forced = queue.run_once("s-else")
            assert (forced.outcome, forced.reason) == ("waiting", "learning_off")
            step.add("s-later", origin=str(here))
            set_learning(home, False)
            later = queue.run_once()
            assert later.outcome == "waiting" and later.reason == "learning_off"
        finally:
            queue.close()
        assert len(fake.requests) == 1 and not step.settled("s-later")


BROKEN = '{"claims": [{"kind": "preference", "content": "Prefers tabs", "confidence": 0.9}]}'
GOOD = '{"claims": [{"kind": "preference", "content": "Prefers tabs"}]}'


class _OffAfterApply(Evolution):
    """The real step; the person turns learning off just after a reply was judged."""

    def apply(self, source_id: str, reply: ModelReply, at: str, *,
              secrets: frozenset[str] = frozenset()) -> StepOutcome:
        try:
            return super().apply(source_id, reply, at, secrets=secrets)
        finally:
            set_learning(self.home, False)


@pytest.mark.parametrize("when", ["during_the_call", "before_the_correction"])
def test_learning_turned_off_during_an_attempt_stops_the_next_call_and_the_write(
        tmp_path: Path, when: str) -> None:
    """Off while the model works: its reply is not written (the call is recorded as
    cancelled); off once a malformed reply was judged: the one format correction (a second
    request) is not sent. Either way the job waits as learning_off, nothing written."""
    home = tmp_path / "home"
    during = when == "during_the_call"
    evo = (Evolution if during else _OffAfterApply)(home, clock=StepClock(),
                                                    ids=CountingIds(3))
    captured = evo.capture(str(tmp_path), "statement", "I prefer tabs", session="s", key="m")
    assert captured is not None

    def off() -> None:  # the person runs `waymarks learn off` while the request is out
        if during:
            set_learning(home, False)

    with FakeProvider([openai_ok(GOOD if during else BROKEN), openai_ok(GOOD)],
                      hold=off) as fake:
        _config(home, fake.origin, learn=True)
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")
        queue = open_queue(home, evo, EvolutionConfig(primary=route),
                           ProviderPolicy.from_config({}), route_client, lambda r: True)
        try:
            attempt = queue.run_once()
            job = queue.store.job(captured.source_id)
            calls = [c["outcome"] for c in queue.store.recent_calls(5)]
        finally:
            queue.close()
        requests = len(fake.requests)
    assert (attempt.outcome, attempt.reason, attempt.calls) == ("waiting", "learning_off", 1)
    assert requests == 1
    assert job is not None and (job.state, job.wait_reason) == ("pending", "learning_off")
    assert calls == (["cancelled"] if during else ["ok"])
    assert evo.claims(["provisional"]) == []
    evo.close()


@pytest.mark.slow
def test_evolve_refuses_with_learning_off_and_sends_nothing(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    step = FileStep(tmp_path / "step")
    step.add("s1", origin=str(project))
    env = {**os.environ, "WAYMARKS_HOME": str(home),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]),
           "EVO_STEP_DIR": str(tmp_path / "step")}
    with FakeProvider(default=openai_ok("ok")) as fake:
        _config(home, fake.origin, learn=False)
        done = subprocess.run([sys.executable, "-m", "tests.evolution.cli_with_step", "evolve"],
                              cwd=project, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == ("Refused (learning_off): learning is off for this "
                                       "directory; `waymarks learn on` to turn it on")
        _config(home, fake.origin, learn=True)
        (project / ".waymarks").mkdir()
        (project / ".waymarks" / "config.toml").write_text("[evolution]\nlearn = false\n")
        done = subprocess.run([sys.executable, "-m", "tests.evolution.cli_with_step", "evolve"],
                              cwd=project, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and "learn = false" in done.stderr
        assert fake.requests == []
    assert not step.settled("s1")


def test_no_learned_claim_is_injected_where_learning_is_off(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """Learning is a mode the person turns on: `learn off` (or the project's
    `[evolution] learn = false`) stopped capture and calls while every plan went on
    injecting what had been learned. Off, a plan injects none (and `evolution explain`
    says why); the claim stays stored and recallable on request."""
    from tests.evolution.test_aging import learn

    cli("learn", "on")
    claim = learn(home, str(project), {"kind": "fact", "content": "The kamal deploy uses "
                                       "two stages", "searchTerms": ["kamal"]},
                  "2099-01-01T00:00:00.000Z")
    ask = "how does the kamal deploy work"

    def kinds() -> list[str]:
        return [m["kind"] for m in cli("plan", "--", ask)["messages"]]

    assert "learned" in kinds()
    cli("learn", "off")
    assert "learned" not in kinds()
    explained = cli("evolution", "explain", ask)
    assert explained["selected"] == []
    assert [s["verdict"] for s in explained["scored"] if s["id"] == claim] == [
        "learning is off for this directory"]
    assert [r["id"] for r in cli("recall", ask)["learned"]] == [claim]  # asked for
    cli("learn", "on")
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text("[evolution]\nlearn = false\n")
    assert "learned" not in kinds()


def test_evolve_does_not_say_nothing_was_sent_of_a_call_learning_off_cut_short(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """`learn off` while the model worked: `evolve` said "... was attempted and now waits:
    learning is off for its directory (...): nothing of it is sent", where the request
    had gone out (reproduced with a slow loopback provider). Nothing more of it is."""
    with Evolution(home) as evo:
        assert evo.capture(str(project), "statement", "I prefer tabs", session="s",
                           key="m") is not None
    with FakeProvider([openai_ok('{"claims": []}')],
                      hold=lambda: set_learning(home, False)) as fake:
        _config(home, fake.origin, learn=True)
        said = cli("evolve", expect=1)
        assert len(fake.requests) == 1
    assert (said["outcome"], said["reason"]) == ("waiting", "learning_off")
    assert "nothing of it is sent" not in said["message"]
    assert "nothing more of it is sent" in said["message"]
