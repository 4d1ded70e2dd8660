"""Authority refusals through the whole loop (EVOLUTION items 2, 51, 61; seed 004): a model
reply that names a pin, a person-confirmed memory, a cross-origin claim or a newer claim,
run by the real ``waymarks evolve`` (real step, real queue, real loopback provider),
changes nothing, is recorded with a fixed reason, and leaves the source *paused, not
settled* in all four places that describe it: the evolution ledger (refusal records, no
settlement), its projection (the source is unsettled), the queue (``paused`` /
``write_rejected``) and ``waymarks evolution status``. A later forced attempt with a clean
reply settles it everywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CountingIds, StepClock
from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution, ledger_path
from waymarks.service.outcomes import Committed
from waymarks.store.jobs import JobStore

AT = "2030-01-01T00:00:00.000Z"
KEY = "sk-test-authority-0123456789abcdef"


def _cli(home: Path, cwd: Path, *args: str, rc: int = 0) -> dict[str, Any]:
    env = {**os.environ, "EVO_AUTH_KEY": KEY}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == rc, done.stdout + done.stderr
    assert KEY not in done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _reply(*claims: dict[str, object]) -> str:
    return json.dumps({"claims": list(claims)})


def _records(home: Path) -> list[dict[str, Any]]:
    out = []
    for line in ledger_path(home).read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("type") == "custom":
            out.append(entry["data"])
    return out


def _setup(case: str, home: Path, project: Path) -> tuple[str, str]:
    """Make the target of ``case`` and capture the source whose reply will name it; returns
    (source ID, target ID)."""
    origin = str(project)
    app = Waymarks(home, cwd=origin, clock=StepClock(), ids=CountingIds(1))
    pin = app.pin("Always run the linters before committing.")
    memory = app.remember("The deploy target is Fly.io.")
    assert isinstance(pin, Committed) and isinstance(memory, Committed)
    app.close()
    with Evolution(home, clock=StepClock(), ids=CountingIds(5)) as evo:
        target = {"pinned": pin.id, "person_confirmed": memory.id}.get(case, "")
        if case == "cross_origin":
            other = evo.capture("/elsewhere", "statement", "Remember the deploy target is "
                                "Render", session="s", key="b")
            assert other is not None
            assert evo.apply(other.source_id, openai_reply_model(
                _reply({"kind": "fact", "content": "The deploy target is Render"})),
                AT).code == "applied"
            [claim] = evo.claims(["provisional"])
            target = claim.id
        source = evo.capture(origin, "statement", "Remember: the deploy target is Heroku "
                             "now, and the linters are optional", session="s", key="a")
        assert source is not None
        if case == "newer":
            later = evo.capture(origin, "statement", "Remember the deploy target is Render",
                                session="s", key="later")
            assert later is not None
            assert evo.apply(later.source_id, openai_reply_model(
                _reply({"kind": "fact", "content": "The deploy target is Render"})),
                AT).code == "applied"
            [claim] = evo.claims(["provisional"])
            target = claim.id
    return source.source_id, target


def openai_reply_model(text: str) -> Any:
    from waymarks.core.model_port import ModelReply
    return ModelReply(text, "fake", "fake-model")


@pytest.mark.parametrize("case", ["pinned", "person_confirmed", "cross_origin", "newer"])
@pytest.mark.slow
def test_an_authority_refusal_changes_nothing_and_pauses_without_settling(
        case: str, home: Path, project: Path) -> None:
    source_id, target = _setup(case, home, project)
    with Evolution(home) as evo:
        claims_before = evo.claims()
    ledger_before = _records(home)
    bad = _reply({"kind": "fact", "content": "The deploy target is Heroku", "replaces": target},
                 {"kind": "fact", "content": "Linters are optional in this project"})
    with FakeProvider([openai_ok(bad)]) as fake:
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\nkeyEnv = "EVO_AUTH_KEY"\n',
            encoding="utf-8")
        attempt = _cli(home, project, "evolve", rc=1)  # a paused source is a failure
        assert len(fake.requests) == 1
    assert (attempt["outcome"], attempt["reason"], attempt["sourceId"]) == (
        "paused", "write_rejected", source_id)
    assert attempt["code"] == "paused" and "is paused (write_rejected)" in attempt["message"]

    # the ledger: only the refusal, with its fixed reason; no claim, no settlement
    added = _records(home)[len(ledger_before):]
    assert added == [{"op": "refused", "schemaVersion": 1, "sourceId": source_id,
                      "target": target, "reason": case, "at": added[0]["at"]}]
    # the projection: nothing changed, the source is unsettled
    with Evolution(home) as evo:
        assert evo.claims() == claims_before
        assert [r.source_id for r in evo.unsettled(10)] == [source_id]
        assert evo.store.view.source(source_id).settled is None  # type: ignore[union-attr]
    # pins and confirmed memory are untouched
    app = Waymarks(home, cwd=str(project))
    assert [v.text for v in app.items("pin")] == ["Always run the linters before committing."]
    assert [(v.text, v.status) for v in app.items("memory")] == [
        ("The deploy target is Fly.io.", "active")]
    app.close()
    # the queue: paused as write_rejected, not settled
    store = JobStore.open(home)
    job = store.job(source_id)
    store.close()
    assert job is not None and (job.state, job.last_error) == ("paused", "write_rejected")
    # status says the same, and a check does not run it again
    status = _cli(home, project, "evolution", "status")
    # (the other source, applied straight through the ledger with no job, counts as
    # settled: ef14698a counts the ledger's settled sources no job holds)
    earlier = 1 if case in ("cross_origin", "newer") else 0
    assert status["counts"]["paused"] == 1 and status["counts"]["settled"] == earlier
    assert [(f["sourceId"], f["state"], f["lastError"]) for f in status["failed"]] == [
        (source_id, "paused", "write_rejected")]
    again = _cli(home, project, "evolve")
    assert again["outcome"] == "idle"
    assert "Heroku" not in json.dumps(status)

    # a forced attempt with a clean reply settles it everywhere
    good = _reply({"kind": "fact", "content": "Linters are optional in this project"})
    with FakeProvider([openai_ok(good)]) as fake:
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\nkeyEnv = "EVO_AUTH_KEY"\n',
            encoding="utf-8")
        forced = _cli(home, project, "evolve", source_id)
    assert (forced["outcome"], forced["reason"]) == ("settled", "applied")
    settled = [r for r in _records(home) if r["op"] == "settled"
               and r["sourceId"] == source_id]
    assert [r["code"] for r in settled] == ["applied"]
    status = _cli(home, project, "evolution", "status")
    assert status["counts"]["paused"] == 0 and status["counts"]["settled"] == 1 + earlier
    with Evolution(home) as evo:
        assert evo.unsettled(10) == []


def test_many_paused_sources_never_hide_a_new_one_from_the_queue(tmp_path: Path) -> None:
    """Refused sources stay unsettled for good; reconcile still finds the newest."""
    from tests.evolution.step_double import FileStep
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.service.evolution_config import EvolutionConfig
    from waymarks.service.evolution_queue import RECONCILE_BATCH, EvolutionQueue

    step = FileStep(tmp_path / "step")
    store = JobStore.open(tmp_path / "home")
    for n in range(RECONCILE_BATCH + 3):
        step.add(f"p{n:03d}", captured_at=f"2026-12-01T10:00:{n % 60:02d}.{n:03d}Z")
    queue = EvolutionQueue(store, step, EvolutionConfig(), ProviderPolicy.from_config({}),
                           lambda route: None,  # type: ignore[arg-type,return-value]
                           now_ms=lambda: 1_000)
    assert queue.reconcile() == RECONCILE_BATCH  # one batch past the open jobs at a time
    assert queue.reconcile() == 3
    for n in range(RECONCILE_BATCH + 3):  # all of them paused by a refusal
        lease = store.lease(f"p{n:03d}", "A", 1_000, 200_000)
        assert lease is not None
        assert store.fail(lease, "write_rejected", 1_000, output=False, pause=True,
                          retry_at=lambda f: 0)
    step.add("new", captured_at="2026-12-01T11:00:00.000Z")
    assert queue.reconcile() == 1
    assert store.job("new") is not None and store.job("new").state == "pending"  # type: ignore[union-attr]
    store.close()
