"""Natural-language feedback in the real Pi 1.6 (from npm): a learned claim is injected;
the person writes ``memory <id> is incorrect.``; the next turn's request to the model does
not carry the claim; ``waymarks evolution undo EVENT`` brings it back on the turn after."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.test_aging import days_ago, learn
from tests.hosts.fake_openai import FakeOpenAI, reply_text
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow
ASK = "Which package manager should I use?"
CLAIM = "The person prefers pnpm over npm"


def _cli(home: Path, cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def test_incorrect_in_pi_is_not_injected_next_turn_and_undo_restores(tmp_path: Path) -> None:
    with FakeOpenAI([reply_text("Use pnpm."), reply_text("Noted."), reply_text("Either."),
                     reply_text("Use pnpm.")]) as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"PI_SUBAGENT_AGENT_ID": ""})
        claim = learn(pi.waymarks_home, str(tmp_path / "elsewhere"), {
            "kind": "preference", "content": CLAIM,
            "searchTerms": ["pnpm", "package manager"]}, days_ago(1))
        rpc = PiRpc(pi)
        try:
            rpc.prompt(ASK)
            assert CLAIM in json.dumps(fake.bodies[-1], ensure_ascii=False)
            rpc.prompt(f"memory {claim} is incorrect.")
            rpc.prompt(ASK)
            assert CLAIM not in json.dumps(fake.bodies[-1], ensure_ascii=False)
            [event] = [e for e in _cli(pi.waymarks_home, pi.project, "evolution",
                                       "history")["events"] if e["reason"] == "incorrect"]
            assert event["actor"] == "person"
            _cli(pi.waymarks_home, pi.project, "evolution", "undo", str(event["event"]))
            rpc.prompt(ASK)
            assert CLAIM in json.dumps(fake.bodies[-1], ensure_ascii=False)
        finally:
            rpc.close()
