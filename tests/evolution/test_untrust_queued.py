"""`waymarks untrust DIR` retires DIR's queued repository-derived sources (README, Learning).

A work turn's tool output or a compaction summary captured while the person trusted the
project is the repository's text, waiting for the next `waymarks evolve`. Untrusting the
project (the person found it hostile) said "No longer trusted" and the next `evolve` still
sent the planted line to the model, which learned it for every project. The real Claude
Code hooks, the real CLI and a real loopback model provider."""

from __future__ import annotations

import json
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
