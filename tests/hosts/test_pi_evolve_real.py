"""Memory evolution end to end in the real Pi 1.6 (from npm): a conversation in directory A
states a preference (``agent_end`` captures it), the extension's timer sends ``evolve``, and
Pi's own model registry makes the consolidation call to the loopback fake model with Pi's
active model (Waymarks holds no key); a fresh Pi process in directory B gets the learned
claim in its context (the plan's LEARNED block)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

TOKEN = "ghp_" + "r" * 36
ANSWER = json.dumps({"claims": [{"kind": "preference", "content":
                                 "The person prefers pnpm over npm",
                                 "searchTerms": ["pnpm", "package manager"]}]})


def _learned(home: Path, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", "learn", "list"], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_pi_learns_with_its_own_model_and_b_gets_the_claim(tmp_path: Path) -> None:
    with FakeOpenAI([reply_text("Noted."), reply_text(ANSWER), reply_text("Use pnpm.")]) \
            as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"WAYMARKS_EVOLVE_INTERVAL_MS": "300",
                               "PI_SUBAGENT_AGENT_ID": ""})
        # a provider that caches Anthropic-style: chat turns carry cache markers, and the
        # consolidation call must not (item 53: cacheRetention "none", its own session)
        models = json.loads((pi.agent / "models.json").read_text())
        models["providers"]["fake"]["compat"]["cacheControlFormat"] = "anthropic"
        (pi.agent / "models.json").write_text(json.dumps(models))
        _learning_on(pi)

        rpc = PiRpc(pi)
        try:
            rpc.prompt(f"I prefer pnpm over npm for every package; the token is {TOKEN}. "
                       "[ds4:local-only]Build host is omega-4.[/ds4:local-only]")
            deadline = time.monotonic() + 90
            while "prefers pnpm" not in _learned(pi.waymarks_home, pi.project):
                assert time.monotonic() < deadline, (len(fake.bodies), fake.bodies[-1:])
                time.sleep(0.5)
        finally:
            rpc.close()

        # the first request was the turn itself; the next one mentioning pnpm is the call
        consolidation = [b for b in fake.bodies[1:] if "pnpm" in json.dumps(b)]
        assert consolidation, [json.dumps(b)[:200] for b in fake.bodies]
        sent = json.dumps(consolidation[0])
        messages = consolidation[0]["messages"]
        assert messages[0]["role"] == "system" and "memory claims" in messages[0]["content"]
        assert "WAYMARKS" not in sent  # the call is not a chat turn: no plan injected
        assert consolidation[0]["model"] == "fake-model"
        assert TOKEN not in sent and "omega-4" not in sent and "test-key" not in sent
        assert "Noted." not in sent  # assistant text is never evidence
        assert "cache_control" in json.dumps(fake.bodies[0])  # the chat turn is cached
        assert "cache_control" not in sent  # the consolidation call is not

        b = tmp_path / "b"
        b.mkdir()
        pi.project = b
        done = pi.run("-p", "Which package manager should I use?")
        assert done.returncode == 0, done.stderr
        last = json.dumps(fake.bodies[-1], ensure_ascii=False)
        assert "LEARNED MEMORY" in last and "The person prefers pnpm over npm" in last


def _learning_on(pi: PiHome) -> None:
    on = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home",
                         str(pi.waymarks_home), "learn", "on"], cwd=pi.project,
                        capture_output=True, text=True, timeout=120)
    assert on.returncode == 0, on.stdout + on.stderr


def _learn_once(pi: PiHome) -> object:
    """Learning on, one statement in a real Pi, and the recorded consolidation calls once
    every one has finished (a call is listed from its reservation on)."""
    _learning_on(pi)
    rpc = PiRpc(pi)
    try:
        rpc.prompt("I prefer pnpm over npm for every package.")
        deadline = time.monotonic() + 60
        while True:
            calls = _status(pi.waymarks_home, pi.project)["recentCalls"]
            if calls and all(c["outcome"] != "reserved" for c in calls):
                return calls
            assert time.monotonic() < deadline, "no attempt was recorded"
            time.sleep(0.5)
    finally:
        rpc.close()


def _status(home: Path, cwd: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", "evolution", "status"], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def test_pi_073_has_no_completion_api_so_the_call_is_unavailable(tmp_path: Path) -> None:
    """Pi 0.73's model registry cannot complete: the attempt ends ``unavailable`` (a code,
    recorded as such), no consolidation request reaches the model, nothing is learned."""
    with FakeOpenAI([reply_text("Noted.")]) as fake:
        pi = PiHome(tmp_path, install("pi073"), fake.base_url,
                    extra_env={"WAYMARKS_EVOLVE_INTERVAL_MS": "300",
                               "PI_SUBAGENT_AGENT_ID": ""})
        # a provider that caches Anthropic-style: chat turns carry cache markers, and the
        # consolidation call must not (item 53: cacheRetention "none", its own session)
        models = json.loads((pi.agent / "models.json").read_text())
        models["providers"]["fake"]["compat"]["cacheControlFormat"] = "anthropic"
        (pi.agent / "models.json").write_text(json.dumps(models))
        calls = _learn_once(pi)
        assert isinstance(calls, list)
        assert {c["outcome"] for c in calls} == {"unavailable"}, calls
        assert {c["model"] for c in calls} == {"fake-model"}, calls
        assert len(fake.bodies) == 1  # only the turn itself
        assert "prefers pnpm" not in _learned(pi.waymarks_home, pi.project)


def test_a_truncated_reply_from_pis_model_is_invalid_output(tmp_path: Path) -> None:
    """Seed 004: the model's reply was cut off (``finish_reason`` ``length``, Pi's
    ``stopReason`` ``length``): its claims were written; it is ``invalid_output`` now."""
    with FakeOpenAI([reply_text("Noted."), reply_text(ANSWER, finish="length")]) as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"WAYMARKS_EVOLVE_INTERVAL_MS": "300",
                               "PI_SUBAGENT_AGENT_ID": ""})
        calls = _learn_once(pi)
        assert isinstance(calls, list)
        assert [c["outcome"] for c in calls][-1:] == ["invalid_output"], calls
        assert any("memory claims" in json.dumps(b) for b in fake.bodies[1:])  # it was asked
        assert "prefers pnpm" not in _learned(pi.waymarks_home, pi.project)
