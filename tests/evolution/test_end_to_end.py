"""The consolidation half end to end on real processes: a Claude Code ``Stop`` hook captures
a statement in directory A, the step is driven the way the job queue drives it (with a
scripted model client standing in for the queue's adapters), and a ``UserPromptSubmit``
hook in directory B, a new session, injects the learned claim in its provisional block
after the pinned block; an exact-ID forget removes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.core.model_port import ModelClient, ModelReply, ModelRequest, Route
from waymarks.service.evolution import Evolution

TOKEN = "ghp_" + "e" * 36


class ScriptedModel:
    """A model client that records each request and answers from a script."""

    def __init__(self, answer: dict[str, object]) -> None:
        self.answer = answer
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        self.requests.append(request)
        return ModelReply(json.dumps(self.answer), route.provider, route.model, 10, 10)


def _hook(home: Path, cwd: Path, event: str, payload: dict[str, object]) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": ""})
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "hook",
         "claude-code", event], input=json.dumps({**payload, "hook_event_name": event}),
        env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _cli(home: Path, cwd: Path, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.slow
def test_stop_capture_consolidation_and_the_next_sessions_prompt(tmp_path: Path) -> None:
    home, a, b = tmp_path / "home", tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _cli(home, a, "learn", "on")
    _cli(home, b, "trust", str(b))
    _cli(home, b, "pin", "--scope", "project", "--", "Always run the linters before committing")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(x) for x in [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content":
            f"From now on, deploy with Kamal; the registry token is {TOKEN}. "
            "[ds4:local-only]Staging box is zeta-9.[/ds4:local-only]"}},
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Understood."}]}},
    ]) + "\n")
    session_a = "1a1a1a1a-1a1a-4a1a-8a1a-1a1a1a1a1a1a"
    _hook(home, a, "Stop", {"session_id": session_a, "cwd": str(a),
                            "transcript_path": str(transcript)})

    model: ModelClient = ScriptedModel({"claims": [{
        "kind": "decision", "content": "Deployments use Kamal",
        "searchTerms": ["deploy", "deployment tool", "kamal"]}]})
    with Evolution(home) as evo:  # what the queue does for each unsettled source
        [ref] = evo.unsettled(10)
        request = evo.request_for(ref.source_id)
        assert request is not None
        reply = model.complete(request, Route("fake", "fake-model"), timeout_s=120)
        assert evo.apply(ref.source_id, reply, "2030-01-01T00:00:00.000Z").code == "applied"
        [claim] = evo.claims(["provisional"])
    sent = model.requests[0]  # type: ignore[attr-defined]
    assert TOKEN not in sent.prompt and "zeta-9" not in sent.prompt
    assert "Kamal" in sent.prompt and sent.classification == "normal"
    assert len(sent.prompt.encode()) <= 40_000

    session_b = "2b2b2b2b-2b2b-4b2b-8b2b-2b2b2b2b2b2b"
    _hook(home, b, "SessionStart", {"session_id": session_b, "cwd": str(b),
                                    "source": "startup"})
    out = _hook(home, b, "UserPromptSubmit", {"session_id": session_b, "cwd": str(b),
                                              "prompt": "Which deployment tool do we use?"})
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "PROVISIONAL" in context and "Deployments use Kamal" in context
    assert context.index("PINNED CONTEXT") < context.index("LEARNED MEMORY")
    assert f"Learned ID: {claim.id}" in context and f"Origin: {json.dumps(str(a))}" in context
    assert "Evidence: user_statement/model" in context

    assert _cli(home, b, "learn", "forget", claim.id)["outcome"] == "forgotten"
    out = _hook(home, b, "UserPromptSubmit", {"session_id": session_b, "cwd": str(b),
                                              "prompt": "Which deployment tool do we use?"})
    assert "Deployments use Kamal" not in out


@pytest.mark.slow
def test_both_halves_through_the_cli_a_loopback_anthropic_model_and_the_next_prompt(
        tmp_path: Path) -> None:
    """The whole loop on real processes with nothing scripted in-process: the Stop hook
    captures, ``waymarks evolve`` (the queue, the real step, the Anthropic adapter) calls a
    loopback Anthropic-compatible server, and the next session's prompt hook in another
    directory injects the learned claim. The request the model received is sanitized."""
    from tests.evolution.fake_provider import FakeProvider, anthropic_ok, learning_home

    home, a, b = tmp_path / "home", tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(x) for x in [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content":
            f"I prefer pnpm over npm for every package; our token is {TOKEN}. "
            "[ds4:local-only]Build host is omega-4.[/ds4:local-only]"}},
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Noted: I will use npm from now on."}]}},
    ]) + "\n")
    answer = json.dumps({"claims": [{"kind": "preference", "content":
                                     "The person prefers pnpm over npm",
                                     "searchTerms": ["pnpm", "package manager"]}]})
    key = "sk-ant-e2e-" + "k" * 24
    with FakeProvider([anthropic_ok(answer)]) as fake:
        learning_home(home, fake.origin, "EVO_E2E_KEY")
        _hook(home, a, "Stop", {"session_id": "3c3c3c3c-3c3c-4c3c-8c3c-3c3c3c3c3c3c",
                                "cwd": str(a), "transcript_path": str(transcript)})
        assert fake.requests == []  # capture never calls a model
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json",
             "evolve"], cwd=a, capture_output=True, text=True, timeout=120,
            env={**os.environ, "EVO_E2E_KEY": key})
        assert done.returncode == 0, done.stdout + done.stderr
        attempt = json.loads(done.stdout)
        assert (attempt["outcome"], attempt["model"]) == ("settled", "claude-test")
    [request] = fake.requests
    assert request["path"] == "/v1/messages" and request["headers"]["x-api-key"] == key
    sent = json.dumps(request["body"])
    assert "pnpm" in sent and TOKEN not in sent and "omega-4" not in sent
    assert "I will use npm" not in sent  # assistant text is never evidence of a preference
    assert key not in done.stdout + done.stderr

    learned = _cli(home, b, "learn", "list")
    text = json.dumps(learned)
    assert "The person prefers pnpm over npm" in text and "provisional" in text

    session_b = "4d4d4d4d-4d4d-4d4d-8d4d-4d4d4d4d4d4d"
    _hook(home, b, "SessionStart", {"session_id": session_b, "cwd": str(b),
                                    "source": "startup"})
    out = _hook(home, b, "UserPromptSubmit", {"session_id": session_b, "cwd": str(b),
                                              "prompt": "Which package manager should I use?"})
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "LEARNED MEMORY" in context and "PROVISIONAL" in context
    assert "The person prefers pnpm over npm" in context
    assert f"Origin: {json.dumps(str(a))}" in context
