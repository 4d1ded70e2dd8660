"""What stays in Pi's conversation goes to whichever model comes next (the REAL Pi).

Pi's summary requests (compaction, a branch summary) do not pass ``before_provider_request``,
where the bridge checks every other payload: a credential and a local-only recall result
reached a remote model in the compaction request. And ``/notes promote`` started its turn
rendered for the active local model; after a switch, the remote one got the local-only
lesson with every later request. Both are now rendered for the conversation's later
models as well (:meth:`ProviderPolicy.for_history`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text, reply_tools
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

SECRET = "heron-crimson-42"
KEY = "sk-ant-api03-" + "Q7xZ" * 20 + "AA"
COMPACTION = "context summarization"


def pi_home(root: Path, base_url: str) -> PiHome:
    home = PiHome(root, install("pi16"), base_url)
    model = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "test-key",
             "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False}}
    (home.agent / "models.json").write_text(json.dumps({"providers": {
        "fake": {**model, "models": [{"id": "fake-model"}]},
        "fakelocal": {**model, "models": [{"id": "local-model"}]}}}))
    (home.agent / "settings.json").write_text(json.dumps({"compaction": {
        "keepRecentTokens": 1}}))
    (home.waymarks_home / "config.toml").write_text(
        '[privacy]\nlocalProviders = ["fakelocal"]\n')
    return home


def continued(home: PiHome) -> PiRpc:
    argv = home.argv
    home.argv = lambda *a, **k: argv("-c", *a, **k)  # type: ignore[method-assign]
    try:
        return PiRpc(home)
    finally:
        home.argv = argv  # type: ignore[method-assign]


def command(pi: PiRpc, sent: dict[str, Any], timeout: float = 90) -> dict[str, Any]:
    ident = f"c{time.monotonic_ns()}"
    pi.send({"id": ident, **sent})
    return pi._until(timeout, lambda e: e.get("type") == "response" and e.get("id") == ident)[-1]


def to_remote(fake: FakeOpenAI) -> list[str]:
    return [json.dumps(b) for b in fake.bodies if b.get("model") == "fake-model"]


def test_a_compaction_request_is_checked_like_every_other(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        home = pi_home(tmp_path, fake.base_url)
        assert home.run("-p", f"deploy with ANTHROPIC_API_KEY={KEY} please").returncode == 0
        assert home.run("-c", "-p", "/context memory add --classification local-only "
                        f"--key vault -- The vault unlock phrase is {SECRET}").returncode == 0
        fake.script += [reply_tools(("memory_recall", {"query": "vault unlock phrase"})),
                        reply_text("noted"), reply_text("fine")]
        pi = continued(home)
        try:
            assert command(pi, {"type": "set_model", "provider": "fakelocal",
                                "modelId": "local-model"})["success"]
            pi.prompt("what is the vault phrase?")
            pi.prompt("thanks, next question")
            assert command(pi, {"type": "set_model", "provider": "fake",
                                "modelId": "fake-model"})["success"]
            assert command(pi, {"type": "compact"})["success"]
        finally:
            pi.close()
        local = [json.dumps(b) for b in fake.bodies if b.get("model") == "local-model"]
        assert any(SECRET in body for body in local)  # the local model had it
        summaries = "\n".join(body for body in to_remote(fake) if COMPACTION in body)
        assert "[REDACTED:anthropic-key]" in summaries
        assert "rendered for another model" in summaries
        assert not any(SECRET in body or KEY in body for body in to_remote(fake))


def test_a_promotion_rendered_for_a_local_model_stays_out_of_a_remote_ones_requests(
        tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        home = pi_home(tmp_path, fake.base_url)
        assert home.run("-p", "hello").returncode == 0
        assert home.run("-c", "-p", "/notes add -- Lesson: always rotate keys."
                        ).returncode == 0
        assert home.run("-c", "-p", "/notes add -- Lesson: [ds4:local-only]The root "
                        f"password hint is {SECRET}[/ds4:local-only]").returncode == 0
        pi = continued(home)
        try:
            assert command(pi, {"type": "set_model", "provider": "fakelocal",
                                "modelId": "local-model"})["success"]
            pi.send({"id": "n1", "type": "prompt", "message": "/notes promote"})
            pi._until(60, lambda e: e.get("type") == "agent_end")
            assert command(pi, {"type": "set_model", "provider": "fake",
                                "modelId": "fake-model"})["success"]
            pi.prompt("ok, continue")
        finally:
            pi.close()
        remote = to_remote(fake)
        assert remote and any("always rotate keys" in body for body in remote)
        assert not any(SECRET in body for body in remote)
