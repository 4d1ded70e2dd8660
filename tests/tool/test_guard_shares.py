"""The history guard copies only what it rewrites.

Pi sends every earlier turn again with each request, and the guard ran over all of them:
it copied every message (and every content list) of a long session twice, whether it held
any ``context_persistence`` or rendered result or not, about a second a request at 100k
turns, before the sanitizer began. A message it does not rewrite is passed on as the same
object; one it rewrites is a new object and the input is left as it was.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from waymarks.core.privacy import ProviderPolicy
from waymarks.tool.egress import TOOL_NAME, Fit, guard_payload

POLICY = ProviderPolicy(local_providers=frozenset({"ollama"}))
STAMPED = json.dumps({"outcome": "ok", "action": "find", "renderedFor": "ollama"})


def plain_turns() -> list[Any]:
    return [
        {"role": "user", "content": "fix the tests"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "running them"},
            {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "pytest"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "2 passed"}]},
        {"role": "assistant", "tool_calls": [{"id": "t2", "type": "function", "function": {
            "name": "bash", "arguments": "{}"}}], "content": None},
        {"role": "tool", "tool_call_id": "t2", "content": "ok"},
        {"type": "function_call", "call_id": "t3", "name": "bash", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "t3", "output": "ok"},
        {"role": "toolResult", "toolName": "bash", "content": [{"type": "text", "text": "ok"}]},
    ]


def test_messages_it_does_not_rewrite_are_passed_on_as_they_are() -> None:
    for key in ("messages", "input"):
        turns = [*plain_turns(), {"role": "user", "content": "and now the docs"}]
        out = guard_payload({key: turns}, Fit("openai", POLICY, rendered=POLICY))
        assert isinstance(out, dict)
        assert all(new is old for new, old in zip(out[key], turns, strict=True))


def test_what_it_rewrites_is_a_new_object_and_the_input_is_kept() -> None:
    turns = [*plain_turns(),
             {"role": "assistant", "content": [{"type": "tool_use", "id": "c1",
                                                "name": TOOL_NAME,
                                                "input": {"action": "find", "query": "db"}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                           "content": f"{STAMPED}\npreview: the db plan"}]},
             {"role": "user", "content": "and now the docs"}]
    sent = copy.deepcopy(turns)
    out = guard_payload({"messages": turns}, Fit("openai", POLICY, rendered=POLICY))
    assert isinstance(out, dict)
    assert turns == sent  # the input untouched
    guarded = out["messages"]
    assert all(new is old for new, old in zip(guarded[:8], turns, strict=False))
    assert guarded[8] is not turns[8] and guarded[9] is not turns[9]
    assert "the db plan" not in json.dumps(guarded)
    assert guarded[10] is turns[10]  # the turn in progress
