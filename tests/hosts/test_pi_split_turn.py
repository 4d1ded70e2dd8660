"""A compaction in the middle of a long turn (the REAL Pi 1.6 from npm, a fake provider).

When a turn's own tool results fill the window, Pi compacts before the next request and
may cut inside the turn: the person's message is summarized with everything before it,
and the context keeps the summary and the turn's newest calls. The extension planned for
the last user message of the context, found none, and added nothing: the pins were left
out of every later request of that turn, without a word. It plans for the turn's user
message on the active branch, and injects after the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI, Reply, reply_text, reply_tools
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"
AGENT = "You are a coding assistant"  # Pi's system prompt; its summarizers have others
#: a bash call whose output is about 7,500 tokens: two of them pass the threshold below
BIG = "python3 -c \"print('word ' * 6000)\""


def summarizing(body: dict[str, Any]) -> bool:
    first = body["messages"][0]
    return not (first["role"] == "system" and str(first["content"]).startswith(AGENT))


class Script(list[Reply]):
    """The model's replies in order; a summarization request gets a summary instead."""

    def __init__(self, fake: FakeOpenAI, replies: list[Reply]) -> None:
        super().__init__(replies)
        self.fake = fake

    def pop(self, index: Any = 0) -> Reply:  # type: ignore[override]
        if summarizing(self.fake.bodies[-1]):
            return reply_text("## Goal\nRun the long job.\n## Progress\nRan it twice.")
        return super().pop(index)


def test_a_turn_split_by_a_compaction_keeps_its_pins(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        models = json.loads((pi.agent / "models.json").read_text())
        models["providers"]["fake"]["models"] = [
            {"id": "fake-model", "contextWindow": 40_000, "maxTokens": 2_000}]
        (pi.agent / "models.json").write_text(json.dumps(models))
        (pi.agent / "settings.json").write_text(json.dumps({"compaction": {
            "keepRecentTokens": 1, "reserveTokens": 30_000}}))  # compacts past 10k tokens
        rpc = PiRpc(pi)
        try:
            rpc.prompt("hello")
            rpc.prompt("/context pin -- Always run the linters")
            assert rpc.notices[-1].startswith("Pinned pin")
            fake.script = Script(fake, [reply_tools(("bash", {"command": BIG}))] * 3
                                 + [reply_text("finished")])
            rpc.prompt("run the long job", timeout=120)
        finally:
            rpc.close()
    turn = [b for b in fake.bodies if not summarizing(b)][1:]
    asked = {"role": "user", "content": [{"type": "text", "text": "run the long job"}]}
    split = [b for b in turn if asked not in b["messages"]]
    assert split, "no request of the turn lost its user message: nothing was tested"
    for body in turn:
        roles = [m["role"] for m in body["messages"]]
        pinned = [n for n, m in enumerate(body["messages"])
                  if PIN_BEGIN in json.dumps(m, ensure_ascii=False)]
        assert pinned, roles
        calls = [n for n, m in enumerate(body["messages"]) if m.get("tool_calls")]
        assert not calls or pinned[0] < calls[0], roles  # before the turn's own calls
    for body in split:
        first = json.dumps(body["messages"][1])
        assert "compacted" in first and "PINNED" not in first  # after the summary
        assert PIN_BEGIN in json.dumps(body["messages"][2], ensure_ascii=False)
