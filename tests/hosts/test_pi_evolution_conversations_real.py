"""EVOLUTION item 83 in the real Pi 1.6 (from npm), driven over RPC with the loopback fake
OpenAI model, no approval dialog anywhere:

- two conversations in directory A (two Pi processes, two sessions) state a preference and
  settle a fact; each is consolidated automatically by the extension's timer with Pi's own
  model (the requests are checked: sanitized, bounded, no credentials, no local-only text,
  no assistant text);
- a fresh Pi process in directory B recalls the preference with its provenance (origin A,
  evidence, source), through a bilingual alias too; a follow-up without the subject's words
  keeps it (Pi passes the conversation's history); a topic switch drops it;
- an exact-ID forget in that Pi (``/context evolution forget ID``) removes that claim and
  only it: the preference is not injected again, the fact still is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text
from tests.hosts.pi_harness import PiHome, PiRpc, install
from waymarks.core.evolution.request import MAX_SOURCE_BYTES

pytestmark = pytest.mark.slow

TOKEN = "ghp_" + "q" * 36
PREFERENCE = "The person prefers pnpm over npm for every package"
FACT = "The project's CI runs on Buildkite, not GitHub Actions"
ANSWER_1 = json.dumps({"claims": [{"kind": "preference", "content": PREFERENCE,
                                   "searchTerms": ["pnpm", "package manager", "包管理器"]}]})
ANSWER_2 = json.dumps({"claims": [{"kind": "fact", "content": FACT,
                                   "searchTerms": ["buildkite", "continuous integration"]}]})


def _cli(home: Path, cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _learned(home: Path, cwd: Path) -> dict[str, str]:
    """content -> ID of the provisional learned claims."""
    return {c["content"]: c["id"] for c in _cli(home, cwd, "learn", "list")["claims"]
            if c["state"] == "provisional"}


def _conversation(pi: PiHome, fake: FakeOpenAI, prompt: str, claim: str) -> dict[str, Any]:
    """One Pi process, one turn; waits (bounded) until the timer's consolidation learned
    ``claim``; returns the consolidation request the fake model received."""
    before = len(fake.bodies)
    rpc = PiRpc(pi)
    try:
        rpc.prompt(prompt)
        deadline = time.monotonic() + 120
        while claim not in _learned(pi.waymarks_home, pi.project):
            assert time.monotonic() < deadline, [json.dumps(b)[:160] for b in fake.bodies]
            time.sleep(0.5)
    finally:
        rpc.close()
    calls = [b for b in fake.bodies[before:] if str(b["messages"][0]["content"]).startswith(
        "You maintain a small store of durable, provisional memory claims")]
    assert len(calls) == 1, [json.dumps(b)[:160] for b in fake.bodies[before:]]
    return calls[0]


def _injected(body: dict[str, Any]) -> str:
    """The text of every message the model was sent (decoded, in order)."""
    parts = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(p.get("text", "")) for p in content if isinstance(p, dict)]
    return "\n".join(parts)


def test_two_conversations_then_recall_follow_up_switch_and_forget(tmp_path: Path) -> None:
    with FakeOpenAI([reply_text("Noted."), reply_text(ANSWER_1),
                     reply_text("Understood."), reply_text(ANSWER_2)]) as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"WAYMARKS_EVOLVE_INTERVAL_MS": "300",
                               "PI_SUBAGENT_AGENT_ID": "",
                               # a fresh bridge's first plan on a loaded CI machine can
                               # pass the 5 s default, and Pi then goes on without memory
                               "WAYMARKS_BRIDGE_TIMEOUT_MS": "30000"})
        a = pi.project
        _cli(pi.waymarks_home, a, "learn", "on")

        first = _conversation(pi, fake, "I prefer pnpm over npm for every package; the "
                              f"token is {TOKEN}. [ds4:local-only]Build host is omega-4."
                              "[/ds4:local-only]", PREFERENCE)
        second = _conversation(pi, fake, "Remember: our CI runs on Buildkite, not GitHub "
                               "Actions.", FACT)
        for call, said in ((first, "pnpm"), (second, "Buildkite")):
            sent = json.dumps(call)
            assert call["model"] == "fake-model" and said in sent
            assert TOKEN not in sent and "omega-4" not in sent and "test-key" not in sent
            assert "Noted." not in sent and "Understood." not in sent  # no assistant text
            assert "WAYMARKS" not in sent  # a consolidation call is not a planned turn
            assert len(call["messages"][1]["content"].encode()) <= MAX_SOURCE_BYTES + 8192
        assert "pnpm" not in json.dumps(second["messages"][1])  # one source per call
        assert len(pi.session_files()) == 2  # two conversations, two sessions in A
        ids = _learned(pi.waymarks_home, a)
        assert set(ids) == {PREFERENCE, FACT}

        b = tmp_path / "b"
        b.mkdir()
        pi.project = b
        rpc = PiRpc(pi)
        try:
            rpc.prompt("Which package manager should I use for this repository?")
            body = _injected(fake.bodies[-1])
            assert "LEARNED MEMORY" in body and PREFERENCE in body, (rpc.notices, body[-600:])
            assert f"Learned ID: {ids[PREFERENCE]}" in body
            assert f'Origin: "{os.path.realpath(a)}"' in body  # provenance: learned in A
            assert "Evidence: user_statement/model" in body
            assert FACT not in body  # another topic: not injected

            rpc.prompt("And what about it?")  # a follow-up: no subject words of its own
            assert PREFERENCE in _injected(fake.bodies[-1])

            rpc.prompt("How do I rotate the TLS certificate on the staging server?")
            assert PREFERENCE not in _injected(fake.bodies[-1])  # topic switch

            rpc.prompt("这个仓库用哪个包管理器？")  # the bilingual alias
            assert PREFERENCE in _injected(fake.bodies[-1])

            rpc.prompt("Which continuous integration service runs our builds?")
            assert FACT in _injected(fake.bodies[-1])

            rpc.prompt(f"/context evolution forget {ids[PREFERENCE]}")
            assert rpc.asked == []  # no approval dialog
            rpc.prompt("Which package manager should I use for this repository?")
            assert PREFERENCE not in _injected(fake.bodies[-1])
            rpc.prompt("Which continuous integration service runs our builds?")
            assert FACT in _injected(fake.bodies[-1])  # only the named claim was forgotten
        finally:
            rpc.close()
        left = _learned(pi.waymarks_home, b)
        assert set(left) == {FACT}
