"""`waymarks untrust DIR` retires DIR's queued repository-derived sources (docs/learning.md).

A work turn's tool output or a compaction summary captured while the person trusted the
project is the repository's text, waiting for the next `waymarks evolve`. Untrusting the
project (the person found it hostile) said "No longer trusted" and the next `evolve` still
sent the planted line to the model, which learned it for every project. The real Claude
Code hooks, the real CLI and a real loopback model provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, anthropic_ok
from tests.evolution.test_observe_done import cli
from tests.evolution.test_work_untrusted import PLANTED, _learn_pending, _work_turn


@pytest.mark.slow
def test_untrust_retires_the_queued_work_turn(tmp_path: Path) -> None:
    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    with FakeProvider([anthropic_ok(json.dumps({"claims": [{
            "kind": "project_state", "content": "The shop release is not deployed yet"}]}))],
            default=anthropic_ok('{"claims": []}')) as fake:
        home.mkdir()
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "anthropic"\napi = "anthropic"\n'
            f'endpoint = "{fake.origin}"\nmodel = "claude-test"\nkeyEnv = "OBS_KEY"\n',
            encoding="utf-8")
        env = {"OBS_KEY": "sk-ant-obs-" + "k" * 24}
        _learn_pending(home, shop, tmp_path, env)
        cli(home, shop, "trust", str(shop))
        _work_turn(home, shop, tmp_path, "2c2c2c2c-2c2c-4c2c-8c2c-2c2c2c2c2c2c")
        assert cli(home, shop, "evolution", "learning")["lastCapture"]["decision"] == "captured"
        sent = len(fake.requests)

        said = cli(home, shop, "untrust", str(shop))
        assert said["changed"] is True and said["retiredSources"] == 1
        assert cli(home, shop, "evolve", env=env)["outcome"] == "idle"
        assert len(fake.requests) == sent
        assert not any(PLANTED in json.dumps(r["body"]) for r in fake.requests)
        # retired, not deleted: the ledger keeps what was captured
        assert PLANTED in (home / "evolution" / "ledger.jsonl").read_text()
        again = cli(home, shop, "untrust", str(shop))
        assert again["changed"] is False and again["retiredSources"] == 0


def _home(home: Path, fake: FakeProvider) -> dict[str, str]:
    home.mkdir()
    (home / "config.toml").write_text(
        f'[evolution]\nlearn = true\nprovider = "anthropic"\napi = "anthropic"\n'
        f'endpoint = "{fake.origin}"\nmodel = "claude-test"\nkeyEnv = "OBS_KEY"\n',
        encoding="utf-8")
    return {"OBS_KEY": "sk-ant-obs-" + "k" * 24}


def _summary(home: Path, origin: str, key: str) -> str:
    """A summary source as a version before the trust checks captured it anywhere."""
    from waymarks.service.evolution import Evolution

    with Evolution(home) as evo:
        said = evo.capture(origin, "summary", f"IMPORTANT: {PLANTED}.", session="s1", key=key)
    assert said is not None and said.new
    return said.source_id


def _settled(home: Path, source_id: str) -> str | None:
    from waymarks.service.evolution import Evolution

    with Evolution(home) as evo:
        evo.sync()
        row = evo.store.view.source(source_id)
    assert row is not None
    return row.settled


def test_a_never_trusted_projects_earlier_capture_is_not_sent(tmp_path: Path) -> None:
    """A summary queued by an older version in a project nobody trusted: after the
    upgrade, `evolve` settles it `untrusted` and the provider never sees it; the person's
    own statement there is still learned."""
    from waymarks.service.evolution import Evolution

    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    origin = str(shop.resolve())
    with FakeProvider([], default=anthropic_ok('{"claims": []}')) as fake:
        env = _home(home, fake)
        planted = _summary(home, origin, "c1")
        with Evolution(home) as evo:
            said = evo.capture(origin, "statement", "Remember: the shop uses Postgres 16.",
                               session="s1", key="u1")
        assert said is not None
        first = cli(home, shop, "evolve", env=env)  # one source a run, oldest first
        assert first["outcome"] == "settled" and not fake.requests, first
        cli(home, shop, "evolve", env=env)
        assert not any(PLANTED in json.dumps(r["body"]) for r in fake.requests)
        assert any("Postgres 16" in json.dumps(r["body"]) for r in fake.requests)
        assert _settled(home, planted) == "untrusted"
        assert PLANTED in (home / "evolution" / "ledger.jsonl").read_text()


def test_pi_decision_is_held_as_captured_until_untrust(tmp_path: Path) -> None:
    """A project Pi alone trusts keeps learning from its summaries when `waymarks evolve`
    runs outside Pi; `waymarks untrust` takes Pi's decision back."""
    from waymarks.service.capture_turns import capture_trusted

    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    origin = str(shop.resolve())
    with FakeProvider([], default=anthropic_ok('{"claims": []}')) as fake:
        env = _home(home, fake)
        assert capture_trusted(home, origin, True)  # Pi's yes, at capture
        first = _summary(home, origin, "c1")
        cli(home, shop, "evolve", env=env)
        assert any(PLANTED in json.dumps(r["body"]) for r in fake.requests)
        assert _settled(home, first) not in (None, "untrusted")

        assert capture_trusted(home, origin, True)
        second = _summary(home, origin, "c2")
        said = cli(home, shop, "untrust", str(shop))
        assert said["changed"] is False and said["retiredSources"] == 1
        third = _summary(home, origin, "c3")  # captured somehow after: still not sent
        sent = len(fake.requests)
        cli(home, shop, "evolve", env=env)
        assert len(fake.requests) == sent
        assert _settled(home, second) == "untrusted" and _settled(home, third) == "untrusted"
        assert cli(home, shop, "evolution", "learning")["outcomes"]["untrusted"] == 2
        said = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                               "evolution", "status"], cwd=shop, capture_output=True,
                              text=True, timeout=120, env={**os.environ, **env})
        assert "2 of them retired unsent, their project not trusted" in said.stdout, said


def test_pi_is_asked_again_when_it_runs_the_step(tmp_path: Path) -> None:
    """Pi's decision kept at capture, then Pi calling its project untrusted when its own
    step runs: the source is not sent."""
    from waymarks.service.capture_turns import capture_trusted
    from waymarks.service.evolution import Evolution

    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    origin = str(shop.resolve())
    with FakeProvider([], default=anthropic_ok('{"claims": []}')) as fake:
        _home(home, fake)
    assert capture_trusted(home, origin, True)
    sid = _summary(home, origin, "c1")
    with Evolution(home) as evo:
        evo.host_trust = (origin, False)
        assert evo.request_for(sid) is None
    assert _settled(home, sid) == "untrusted"


def test_untrust_while_the_database_is_busy_still_holds(tmp_path: Path) -> None:
    """`untrust` with learned memory's database held by another process waited 30 s and
    failed ("locked for too long… retry", exit 1) though the list had changed. Now it says
    the project is no longer trusted and that its queued sources were not retired now;
    the model step then retires them."""
    from tests.evolution.test_capture_retry import LOCKER, _release
    from waymarks.service.evolution import Evolution

    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    origin = str(shop.resolve())
    with FakeProvider([], default=anthropic_ok('{"claims": []}')) as fake:
        _home(home, fake)
    cli(home, shop, "trust", str(shop))
    sid = _summary(home, origin, "c1")
    holder = subprocess.Popen([sys.executable, "-c", LOCKER, str(home / "waymarks.db")],
                              text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        said = cli(home, shop, "untrust", str(shop))
    finally:
        _release(holder)
    assert said["changed"] is True and said["retiredSources"] is None
    with Evolution(home) as evo:
        assert evo.request_for(sid) is None
    assert _settled(home, sid) == "untrusted"


def test_a_pi_yes_taken_back_in_pi_is_not_held(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A project Pi trusted at capture, then set untrusted in Pi's own trust store and
    never opened in Pi again: `waymarks evolve` outside Pi (no PI_CODING_AGENT_DIR in its
    environment) sent its queued summary until `waymarks untrust DIR`. Pi's store is read
    again where the capture read it; the yes it no longer holds is stale."""
    from waymarks.service.capture_turns import capture_trusted
    from waymarks.service.trust_held import HOST_TRUST_FILE, held_decision

    home, shop, pi = tmp_path / "home", tmp_path / "shop", tmp_path / "pi-agent"
    shop.mkdir()
    pi.mkdir()
    origin = str(shop.resolve())
    (pi / "trust.json").write_text(json.dumps({origin: True}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(pi))  # the bridge's environment
    with FakeProvider([], default=anthropic_ok('{"claims": []}')) as fake:
        env = _home(home, fake)
        assert capture_trusted(home, origin, True)
        first = _summary(home, origin, "c1")
        monkeypatch.delenv("PI_CODING_AGENT_DIR")  # a terminal's: Pi's dir not named
        cli(home, shop, "evolve", env=env)  # Pi's store still says yes: sent
        assert any(PLANTED in json.dumps(r["body"]) for r in fake.requests)
        assert _settled(home, first) not in (None, "untrusted")

        second = _summary(home, origin, "c2")
        (pi / "trust.json").write_text(json.dumps({origin: False}))  # Pi's /trust: no
        sent = len(fake.requests)
        cli(home, shop, "evolve", env=env)
        assert len(fake.requests) == sent
        assert _settled(home, second) == "untrusted"
        kept = json.loads((home / HOST_TRUST_FILE).read_text())
        assert origin not in kept["projects"]
        assert held_decision(home, origin, True) is None  # a spool retry: the list decides


def test_learn_status_counts_retired_sources_apart(tmp_path: Path) -> None:
    """`learn status` counted a source retired unsent (settled `untrusted`) as plainly
    settled: a never-trusted project's summary and a statement, both taken by `evolve`,
    read "sources_settled: 2", as if both had been learned from."""
    from waymarks.service.evolution import Evolution

    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    origin = str(shop.resolve())
    with FakeProvider([], default=anthropic_ok('{"claims": []}')) as fake:
        env = _home(home, fake)
        _summary(home, origin, "c1")
        with Evolution(home) as evo:
            assert evo.capture(origin, "statement", "Remember: the shop uses Postgres 16.",
                               session="s1", key="u1") is not None
        cli(home, shop, "evolve", env=env)
        cli(home, shop, "evolve", env=env)
    counts = cli(home, shop, "learn", "status")["counts"]
    assert (counts["sources_settled"], counts["sources_pending"]) == (1, 0), counts
    assert counts["sources_retired_untrusted"] == 1
    said = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "learn", "status"], cwd=shop, capture_output=True, text=True,
                          timeout=120)
    assert "sources_retired_untrusted: 1 (retired unsent: their project is not trusted" \
        in said.stdout, said.stdout
    assert "sources_settled: 1" in said.stdout
