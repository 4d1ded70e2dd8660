"""A huge prompt in Pi was planned whole (the bridge, as the extension calls it).

Recall reads a prompt's first 64 KiB, but the plan's other sources (named keys, the order
of memories, docs) read every word: a paste of 8 MB took the bridge past its 5 s timeout
(in the real Pi 1.6: "no pins or memory for this request (plan took longer than 5000 ms)",
the bridge killed and started again). Claude Code's hook plans what recall reads
(:func:`~waymarks.service.planning.prompt_read`) since a review; the bridge now does too,
and the rest of the prompt still takes the model's room."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hosts.test_bridge import Host, converse
from waymarks.recall.plan import MAX_PROMPT_BYTES
from waymarks.service import planning

PIN = "Always tag releases from main"


def _plan(tmp_path: Path, prompt: str, model_limit: int) -> dict[str, Any]:
    tmp_path.mkdir()
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": f"pin -- {PIN}"}},
        # (a claim with a given key: a plan looks the request's words up by key only
        # where one was given, a62703f7)
        {"id": 3, "method": "command", "params": {
            "text": "memory add --key release-tagging -- Releases are tagged vYYYY.MM.DD"}},
        {"id": 4, "method": "plan", "params": {"prompt": prompt, "modelLimit": model_limit,
                                               "fixed": {"systemTokens": 10}}},
        {"id": 5, "method": "shutdown"}], Host())
    assert out[1]["result"]["exitCode"] == 0, out[1]
    assert out[2]["result"]["exitCode"] == 0, out[2]
    return dict(out[3]["result"])


def test_a_huge_prompt_is_planned_from_what_recall_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    named_keys = planning.named_keys
    monkeypatch.setattr(planning, "named_keys",
                        lambda text: read.append(len(text.encode())) or named_keys(text))
    words = " ".join(f"w{n:07x}" for n in range(400_000))  # 3.2 MB, ~800k tokens
    prompt = f"how do we tag a release? {words}"
    plan = _plan(tmp_path / "a", prompt, 2_000_000)
    assert read and max(read) <= MAX_PROMPT_BYTES  # was the whole prompt
    assert any(PIN in m["content"] for m in plan["messages"]), plan
    # the rest of it still takes the model's room: past a 200k window nothing is added
    assert _plan(tmp_path / "b", prompt, 200_000)["messages"] == []
