"""A result rendered for one model is judged by what that rendering let through, not by
what the settings say of its model now.

Pi sends every earlier tool result again with each request, and a recall result rendered
for a local model holds local-only text with its markers gone. The payload guard let such
a result go wherever the *current* settings said its model's rendering would fit: once the
person took that model out of ``localProviders`` (its endpoint was not on this machine
after all), the local-only text went to every remote model, that one included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hosts.test_bridge import Host, converse

SECRET = "The acquisition target is Zeta Corp, closing in March"


def sent(tmp_path: Path, result: dict[str, Any], provider: str) -> str:
    payload = {"messages": [
        {"role": "assistant", "content": [{"type": "toolCall", "id": "t1",
                                           "name": "memory_recall",
                                           "arguments": {"query": "acquisition target"}}]},
        {"role": "toolResult", "toolCallId": "t1", "toolName": "memory_recall",
         "content": [{"type": "text", "text": result["text"]}], "details": result["details"]},
        {"role": "user", "content": "thanks; what next?"}]}
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "sanitize", "params": {"payload": payload, "provider": provider}},
        {"id": 3, "method": "shutdown"}], Host())
    answer = {m["id"]: m["result"] for m in out if "result" in m}[2]
    assert answer["withheld"] is False
    return json.dumps(answer["payload"])


def test_a_result_for_a_model_made_remote_since_does_not_go_out(tmp_path: Path) -> None:
    config = tmp_path / "home" / "config.toml"
    config.parent.mkdir()
    config.write_text('[privacy]\nlocalProviders = ["ollama"]\n'
                      'remoteProviders = { openai = ["normal", "sensitive"] }\n')
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"provider": "ollama"}},
        {"id": 2, "method": "command", "params": {
            "text": f"memory add --classification local-only -- {SECRET}"}},
        {"id": 3, "method": "command", "params": {
            "text": "memory add --classification sensitive -- The board meets on Friday"}},
        {"id": 4, "method": "tool", "params": {
            "name": "memory_recall", "arguments": {"query": "acquisition target"},
            "sync": {"provider": "ollama"}}},
        {"id": 5, "method": "tool", "params": {
            "name": "memory_recall", "arguments": {"query": "board meets"},
            "sync": {"provider": "openai"}}},
        {"id": 6, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    local, sensitive = results[4], results[5]
    assert SECRET in local["text"] and "Friday" in sensitive["text"]
    assert SECRET in sent(tmp_path, local, "ollama")  # while it is local: as rendered
    # the person finds ollama's endpoint is not on this machine, and openai is narrowed
    config.write_text("")
    for provider in ("openai", "ollama", "anthropic"):
        assert SECRET not in sent(tmp_path, local, provider)
        assert "Friday" not in sent(tmp_path, sensitive, provider)
