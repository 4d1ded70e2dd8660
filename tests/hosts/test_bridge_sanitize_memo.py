"""A ``sanitize`` request costs what is new in it: Pi sends every earlier turn again with
each request, and a long session's request took seconds when all of it was scanned again
(near 100 MB, past the extension's 5 s per call: requests withheld)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.test_bridge import Host, converse
from waymarks.planner import sanitize as sanitize_module


def test_earlier_turns_are_not_scanned_again(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    real = sanitize_module.might_contain_secret

    def counting(text: str) -> bool:
        checked.append(text)
        return real(text)

    monkeypatch.setattr(sanitize_module, "might_contain_secret", counting)
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2
    turns: list[dict[str, Any]] = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"turn {n} of the session"}
        for n in range(40)]
    turns[7]["content"] = f"turn 7 export OPENAI_API_KEY={key}"
    requests: list[dict[str, Any]] = [{"id": 1, "method": "initialize"}]
    for n in range(3):
        grown = turns + [{"role": "user", "content": f"new turn {m}"} for m in range(n + 1)]
        requests.append({"id": n + 2, "method": "sanitize", "params": {
            "payload": {"model": "gpt-4.1", "messages": grown}, "provider": "openai"}})
    requests.append({"id": 9, "method": "shutdown"})
    out = converse(tmp_path, requests, Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    for n in range(3):
        sent = json.dumps(results[n + 2]["payload"])
        assert key not in sent and "turn 7 export" in sent and f"new turn {n}" in sent
    # each earlier turn scanned in the first request only (the one holding a key twice there:
    # the quick check, then the walk that redacts it), the turn each request added once
    assert [checked.count(turn["content"]) for turn in turns] == [1] * 7 + [2] + [1] * 32
    assert [checked.count(f"new turn {n}") for n in range(3)] == [1, 1, 1]
