"""Pi brings its own model; the home's configured ``[evolution]`` routes are its backups
(seed 004: the active model first, backups from *other* providers only), and
``waymarks evolution status`` in a home where only Pi provides a model says so instead of
"no route". The real bridge process with a scripted extension, a real loopback provider
for the backup, the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.hosts.test_pi_evolve import ANSWER, TOKEN, _captured, _cli, _setup
from waymarks.hosts.pi_model import PI_API, pi_route
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig

BACKUP_KEY = "sk-backup-" + "b" * 24


def test_pi_route_puts_pis_model_first_and_other_providers_after() -> None:
    mine = RouteConfig("openai", "openai", "gpt-x", "http://127.0.0.1:9/v1", "K")
    other = RouteConfig("ollama", "openai", "qwen", "http://127.0.0.1:8/v1")
    base = EvolutionConfig(primary=mine, fallback_models=("gpt-y",), backups=(other,),
                           calls_per_hour=7)
    routes = pi_route(base, "openai", "pi-model").routes()
    # Pi's provider is "openai": the configured openai routes would fail the same way
    assert [(r.provider, r.api, r.model) for r in routes] == [
        ("openai", PI_API, "pi-model"), ("ollama", "openai", "qwen")]
    routes = pi_route(base, "anthropic", "claude-x").routes()
    assert [(r.provider, r.model) for r in routes] == [
        ("anthropic", "claude-x"), ("openai", "gpt-x"), ("openai", "gpt-y"), ("ollama", "qwen")]
    assert pi_route(base, "anthropic", "claude-x").calls_per_hour == 7  # caps kept
    closed = EvolutionConfig(primary=mine, backups=(other,), cross_provider_fallback=False)
    assert [r.api for r in pi_route(closed, "anthropic", "c").routes()] == [PI_API]
    assert [r.api for r in pi_route(EvolutionConfig(), "anthropic", "c").routes()] == [PI_API]


@pytest.mark.slow
def test_a_configured_route_backs_pis_model_up_in_the_same_attempt(tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    with FakeProvider([openai_ok(ANSWER)]) as fake:
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "backupco"\napi = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "backup-m"\nkeyEnv = "EVO_BACKUP_KEY"\n',
            encoding="utf-8")
        bridge = _captured(home, a, tmp_path, {"EVO_BACKUP_KEY": BACKUP_KEY})
        try:
            evolve = bridge.send("evolve", {"provider": "piprov", "model": "pi-m"})
            ask = bridge.read()
            assert ask.get("method") == "complete", ask
            assert (ask["params"]["provider"], ask["params"]["model"]) == ("piprov", "pi-m")
            bridge.answer(ask["id"], {"error": "quota"})  # Pi's account is out of quota
            message = bridge.read()
            assert message["id"] == evolve, message
            result = message["result"]
        finally:
            bridge.close()
        requests = fake.requests
    assert (result["outcome"], result["reason"], result["provider"], result["model"]) == (
        "settled", "applied", "backupco", "backup-m"), result
    assert result["calls"] == 2
    [request] = requests
    assert request["headers"]["authorization"] == f"Bearer {BACKUP_KEY}"
    assert TOKEN not in json.dumps(request["body"])  # sanitized, as for Pi's own model
    status = _cli(home, a, "evolution", "status")
    outcomes = [(c["provider"], c["outcome"]) for c in reversed(status["recentCalls"])]
    assert outcomes == [("piprov", "quota"), ("backupco", "ok")]
    assert [c["provider"] for c in status["cooldowns"]] == ["piprov"]  # 1 h, whole provider
    assert status["hostRoute"] == {"host": "pi", "provider": "piprov", "model": "pi-m"}
    assert BACKUP_KEY not in json.dumps(status)


@pytest.mark.slow
def test_status_in_a_home_where_only_pi_provides_a_model_says_so(tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    before = _cli(home, a, "evolution", "status")
    assert "no model route" in before["blocked"] and before["hostRoute"] is None
    bridge = _captured(home, a, tmp_path)
    try:
        evolve = bridge.send("evolve", {"provider": "anthropic", "model": "claude-pi"})
        ask = bridge.read()
        bridge.answer(ask["id"], {"text": ANSWER, "provider": "anthropic",
                                  "model": "claude-pi", "stopReason": "stop"})
        assert bridge.read()["id"] == evolve
    finally:
        bridge.close()
    status = _cli(home, a, "evolution", "status")
    # `learn on` alone names no route: the claude-code default, not available here
    assert status["blocked"] is None
    assert [(r["api"], r["available"]) for r in status["routes"]] in (
        [], [("claude-code", False)], [("claude-code", True)])
    assert status["hostRoute"] == {"host": "pi", "provider": "anthropic", "model": "claude-pi"}
    assert status["counts"]["settled"] == 1
    text = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "evolution", "status"], cwd=a, capture_output=True, text=True,
                          timeout=120)
    assert text.returncode == 0, text.stderr
    assert "pi's active model (anthropic/claude-pi)" in text.stdout
    assert "Not running" not in text.stdout and "no model route" not in text.stdout
    note = home / "evolution" / "host-route.json"
    assert oct(note.stat().st_mode & 0o777) == "0o600"
