"""The real Pi 1.6 (npm) with the extension and the real bridge: a provider request sends
the bridge only the messages after those it holds (and is answered without those it
answered before unchanged), and a compaction, which rewrites the
conversation after the system prompt, sends all of that again; the model receives every
request sanitized and whole (a loopback fake provider; the bridge's input recorded by a wrapper)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text
from tests.hosts.pi_harness import WAYMARKS_BIN, PiHome, PiRpc, install
from tests.hosts.test_pi_conversation import Driver, whole

pytestmark = pytest.mark.slow

KEY = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2


def provider_requests(wire: Path) -> list[dict[str, Any]]:
    """The ``sanitize`` requests for provider payloads the bridge was sent (not history)."""
    lines = [json.loads(line) for line in wire.read_text().splitlines() if line.strip()]
    return [m["params"] for m in lines if m.get("method") == "sanitize"
            and not m["params"].get("history")]


def test_later_requests_send_their_tail_and_a_compaction_resends_what_it_rewrote(
        tmp_path: Path) -> None:
    wire = tmp_path / "wire.jsonl"
    recording = tmp_path / "recording-waymarks"
    answers = tmp_path / "answers.jsonl"
    recording.write_text(f"#!/bin/sh\ntee -a '{wire}' | '{WAYMARKS_BIN}' \"$@\" "
                         f"| tee -a '{answers}'\n")
    recording.chmod(0o755)
    with FakeOpenAI([reply_text(f"reply {n}") for n in range(6)]) as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"WAYMARKS_BIN": str(recording)})
        (pi.agent / "settings.json").write_text(json.dumps({"compaction": {
            "keepRecentTokens": 1}}))  # (the first turns are summarized)
        rpc = PiRpc(pi)
        try:
            rpc.prompt("fix the failing test")
            rpc.prompt(f"deploy with OPENAI_API_KEY={KEY}")
            rpc.prompt("and the port?")
            rpc.send({"id": "c", "type": "compact"})
            done = rpc._until(90, lambda e: e.get("type") == "response" and e.get("id") == "c")
            assert done[-1].get("success") is True, done[-1]
            rpc.prompt("what next?")
        finally:
            rpc.close()
    sent = provider_requests(wire)
    conversations = [p["conversation"] for p in sent]
    # the system prompt and the first turn, then the reply and the next turn each time
    assert [c["base"] for c in conversations[:3]] == [0, 2, 4]
    assert [len(p["tail"]) for p in sent[:3]] == [2, 2, 2]
    # after the compaction the system prompt is all that opens the list as held: the
    # summary and the turns it kept follow it
    assert conversations[3]["base"] == 1
    assert "was compacted into" in json.dumps(sent[3]["tail"])
    # each request reached the model whole, sanitized: as many messages as held and sent
    chats = [b for b in fake.bodies if "a coding assistant running inside pi" in str(
        b["messages"][0].get("content"))]  # (not the compaction's summary requests)
    assert len(chats) == 4
    for body, params in zip(chats, sent, strict=True):
        assert len(body["messages"]) == params["conversation"]["base"] + len(params["tail"])
        assert KEY not in json.dumps(body)
    assert "[REDACTED" in json.dumps(chats[2]["messages"][3])
    assert "what next?" in json.dumps(chats[3]["messages"][-1])
    # the answers left out what they had answered before, unchanged
    said = [json.loads(line) for line in answers.read_text().splitlines()]
    ids = {json.loads(line)["id"] for line in wire.read_text().splitlines()
           if '"conversation"' in line}
    assert [a["result"].get("same") for a in said if a.get("id") in ids] == [None, 2, 4, 1]
    # and each is byte for byte what a bridge sent the whole payload answers (the messages
    # left out of an answer put back by the extension, in Pi's own process)
    driver, held = Driver(tmp_path / "whole"), []
    try:
        for body, params in zip(chats, sent, strict=True):
            held = [*held[:params["conversation"]["base"]], *params["tail"]]
            checked = whole(driver, held, params["provider"])["result"]["payload"]
            assert json.dumps(body["messages"]) == json.dumps(checked["messages"])
    finally:
        driver.close()
