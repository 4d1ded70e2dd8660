"""EVOLUTION item 79: evolution rows are validated when read. Rows are damaged in a real
database (raw SQL, as a bad disk or a hand edit would); each bad row is left out and named,
and never stops the queue, the projection's readers or `evolution status` from working on
the others."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from tests.inprocess import waymarks
from waymarks.core.model_port import ModelClient, SourceRef
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.service.evolution_wiring import open_queue
from waymarks.store.evolution_probe import check_projection
from waymarks.store.jobs import JobStore

NOW = 1_800_000_000_000
SUMMARY = "\n".join(["## Key decisions", "- Use Postgres 16 for billing",
                     "- Keep the API under /v2", "- Deploy on Fridays never"])


def _damage(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    db = sqlite3.connect(path)
    with db:
        for sql, args in statements:
            db.execute(sql, args)
    db.close()


def test_damaged_job_rows_are_left_out_and_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = JobStore.open(home)
    # the damaged ones sort first (least recently checked), so a LIMIT would hide the rest
    store.add_jobs([SourceRef(f"s{n}", "/work/a", "normal", f"t{n}") for n in range(10)], NOW)
    store.close()
    _damage(home / "evolution.db",
            ("UPDATE jobs SET state = 'exploded' WHERE source_id = 's0'", ()),
            ("UPDATE jobs SET models = 'not json' WHERE source_id = 's1'", ()),
            ("UPDATE jobs SET last_error = 'Traceback: sk-live-secret' WHERE source_id = 's2'",
             ()),
            ("UPDATE jobs SET state = 'leased' WHERE source_id = 's3'", ()),  # no owner
            ("UPDATE jobs SET failures = -4 WHERE source_id = 's4'", ()),
            ("INSERT INTO model_calls (source_id, owner, attempt, provider, model, "
             "reserved_at, outcome) VALUES ('s5', 'o', 1, 'p', 'm', 1, 'provider said no')",
             ()),
            ("INSERT INTO route_health (provider, model, cooldown_until, reason, updated_at) "
             "VALUES ('openai', 'm1', 5, 'free text', 1)", ()))
    store = JobStore.open(home)
    due = store.due(NOW, 8)
    assert [j.source_id for j in due] == ["s5", "s6", "s7", "s8", "s9"]
    assert store.bad_jobs == {"s1", "s2", "s4"}  # s0 (no state) and s3 (leased): not due
    assert store.job("s3") is None and store.is_bad("s3") and not store.is_bad("s5")
    health = store.check()
    assert not health.ok and health.bad_jobs == ("s0", "s1", "s2", "s3", "s4")
    assert len(health.bad_calls) == 1 and health.bad_routes == ("openai/m1",)
    assert health.schema == health.expected
    assert "sk-live-secret" not in repr(health.to_json())
    store.close()


def test_the_queue_works_past_damaged_rows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    step = FileStep(tmp_path / "step")
    for n in range(3):
        step.add(f"s{n}")
    with FakeProvider(default=openai_ok('{"claims": []}')) as fake:
        store = JobStore.open(home)
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")

        def clients(r: RouteConfig) -> ModelClient:
            return client_for(r.api, r.endpoint, r.key_env)

        queue = EvolutionQueue(store, step, EvolutionConfig(primary=route),
                               ProviderPolicy.from_config({}), clients, now_ms=lambda: NOW)
        queue.reconcile()
        _damage(home / "evolution.db",
                ("UPDATE jobs SET models = '[1, 2]' WHERE source_id = 's0'", ()))
        first = queue.run_once()
        assert (first.outcome, first.source_id) == ("settled", "s1")
        forced = queue.run_once("s0")
        assert (forced.outcome, forced.source_id) == ("bad_row", "s0")
        assert queue.run_once().source_id == "s2"
        assert len(fake.requests) == 2  # never a call for the damaged job
        queue.close()


def test_damaged_projection_rows_are_named_and_left_out(tmp_path: Path) -> None:
    home = tmp_path / "home"
    origin = str(tmp_path / "project")
    with Evolution(home) as evo:
        done = evo.capture(origin, "summary", SUMMARY, session="s", key="c1")
        assert done is not None and done.local_claims == 3
        evo.capture(origin, "statement", "Remember: our CI runs on Buildkite.", session="s",
                    key="m1")
        claims = evo.claims()
    assert check_projection(home / "waymarks.db")["ok"] is True
    target = claims[0].id
    _damage(home / "waymarks.db",
            ("UPDATE evo_claims SET content = 'Use MySQL for billing' WHERE id = ?", (target,)),
            ("UPDATE evo_sources SET classification = 'public' WHERE kind = 'statement'", ()),
            ("UPDATE evo_events SET op = 'teleport' WHERE seq = 1", ()),
            ("INSERT INTO evo_receipts (source_id, claim_id, verdict, at, seq) VALUES "
             "('x', 'no-such-claim', 'useful', '2026', 99)", ()))
    report = check_projection(home / "waymarks.db")
    assert report["ok"] is False and report["schema"] == report["expectedSchema"]
    bad = report["bad"]
    assert bad["claims"]["ids"] == [target]  # type: ignore[index]
    assert bad["sources"]["count"] == 1 and bad["history"]["ids"] == ["1"]  # type: ignore[index]
    assert bad["receipts"]["ids"] == ["x:no-such-claim"]  # type: ignore[index]
    assert "MySQL" not in json.dumps(report)
    with Evolution(home) as evo:
        # the damaged source is left out of the queue's list; the summary still reaches it
        unsettled = evo.unsettled(10)
        assert len(unsettled) == 1
        summary_id = unsettled[0].source_id
        offered = [c.id for c, _ in evo._offered(evo.store.view.source(summary_id))]  # type: ignore[arg-type]
        assert target not in offered and len(offered) == 2


def test_status_names_damaged_rows_through_the_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = JobStore.open(home)
    store.add_jobs([SourceRef("good1", "/w", "normal", "t"),
                    SourceRef("bad1", "/w", "normal", "t")], NOW)
    store.close()
    _damage(home / "evolution.db",
            ("UPDATE jobs SET classification = 'secret sauce' WHERE source_id = 'bad1'", ()))
    run = waymarks("--home", str(home), "evolution", "status", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Damaged queue rows in evolution.db (left out): bad1" in run.stdout
    assert "secret sauce" not in run.stdout + run.stderr
    assert "1 pending" in run.stdout or "pending" in run.stdout
    data = json.loads(waymarks("--home", str(home), "--json", "evolution", "status",
                               cwd=tmp_path).stdout.strip().splitlines()[-1])
    assert data["health"]["queue"]["badJobs"] == ["bad1"]


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_queue_database_is_set_aside_and_its_jobs_come_back(
        tmp_path: Path, damage: str) -> None:
    """A damaged evolution.db made `evolve` and `evolution status` crash with a traceback,
    and health said OK. Its jobs are operational state rebuilt from the sources the ledger
    holds unsettled, so it is set aside (kept) like the projection and made anew."""
    import os

    from waymarks.service.app import Waymarks

    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    step.add("s1")
    with FakeProvider(default=openai_ok('{"claims": []}')) as fake:
        home.mkdir()
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\n', encoding="utf-8")
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")

        def queue() -> EvolutionQueue:
            return open_queue(home, step, EvolutionConfig(primary=route),
                              ProviderPolicy.from_config({}),
                              lambda r: client_for(r.api, r.endpoint, r.key_env),
                              lambda r: True)

        first = queue()
        assert first.run_once().outcome == "settled"
        first.close()
        db = home / "evolution.db"
        for extra in ("-wal", "-shm"):
            Path(f"{db}{extra}").unlink(missing_ok=True)
        broken = os.urandom(8192) if damage == "garbage" else db.read_bytes()[:1500]
        db.write_bytes(broken)
        step.add("s2")
        run = waymarks("--home", str(home), "--json", "evolution", "status", cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        [aside] = json.loads(run.stdout)["health"]["damagedQueues"]
        assert Path(aside).read_bytes() == broken  # kept as it was, for inspection
        again = queue()
        try:
            attempt = again.run_once()  # s2's job came back from the unsettled source
        finally:
            again.close()
        assert (attempt.outcome, attempt.source_id) == ("settled", "s2")
        assert len(fake.requests) == 2
    db.write_bytes(broken)  # damage no command has met yet: health repairs and names it
    with Waymarks(home, cwd=str(tmp_path)) as app:
        report = app.health()
    assert report["ok"] is True and len([p for p in report["damagedCopies"]
                                         if "evolution.db" in p]) == 2


def test_every_op_the_fold_writes_is_history_the_check_takes_as_sound(tmp_path: Path) -> None:
    """A review: pinning, unpinning or adopting a learned claim made `evolution status`
    report damaged history rows that `rebuild-index` could not clear: the check's list
    of ops lacked ``pin``, ``unpin``, ``adopt`` and ``refresh``, which the fold writes.
    The check takes the fold's own list, and that list holds every op the fold names."""
    import ast
    import inspect

    from waymarks.core.evolution import fold
    from waymarks.service import evolution_edits

    home = tmp_path / "home"
    with Evolution(home) as evo:
        evo.capture(str(tmp_path / "project"), "summary", SUMMARY, session="s", key="c1")
        claim = evo.claims()[0].id
        assert evolution_edits.pin(evo, claim).ok
        assert evolution_edits.pin(evo, claim, pinned=False).ok
    report = check_projection(home / "waymarks.db")
    assert report["ok"] is True, report
    named = {node.args[0].value for node in ast.walk(ast.parse(inspect.getsource(fold)))
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Effect"
             and isinstance(node.args[0], ast.Constant)}
    named |= {"pin", "unpin"}  # _pin's op is one of the two
    assert named == fold.EFFECT_OPS
