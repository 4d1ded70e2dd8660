"""A model switch within a turn: the turn in progress is left to the history guard's
care (its calls are the model's own), but a ``context_persistence`` call in it whose
classification the destination may not receive went to that destination as it was,
a local-only pin's content with it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.privacy.test_sanitize_gemini import gemini, model, user
from waymarks.core.privacy import ProviderPolicy
from waymarks.tool.egress import outgoing_payload

POLICY = ProviderPolicy(local_providers=frozenset({"ollama"}))
ARGS = {"action": "pin_add", "content": "Home is 12 Elm Street", "classification": "local-only"}
DONE = '{"outcome":"committed"}'


def _chat(args: dict[str, Any] = ARGS, done: str = DONE) -> dict[str, Any]:
    call = {"id": "c1", "type": "function",
            "function": {"name": "context_persistence", "arguments": json.dumps(args)}}
    return {"messages": [{"role": "user", "content": "pin my address"},
                         {"role": "assistant", "content": None, "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "c1", "content": done}]}


def _responses(args: dict[str, Any] = ARGS, done: str = DONE) -> dict[str, Any]:
    return {"input": [{"role": "user", "content": "pin my address"},
                      {"type": "function_call", "call_id": "c1", "name": "context_persistence",
                       "arguments": json.dumps(args)},
                      {"type": "function_call_output", "call_id": "c1", "output": done}]}


def _anthropic(args: dict[str, Any] = ARGS, done: str = DONE) -> dict[str, Any]:
    return {"messages": [
        {"role": "user", "content": "pin my address"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1",
                                           "name": "context_persistence", "input": args}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                      "content": done}]}]}


def _bedrock(args: dict[str, Any] = ARGS, done: str = DONE) -> dict[str, Any]:
    return {"messages": [
        {"role": "user", "content": [{"text": "pin my address"}]},
        {"role": "assistant", "content": [{"toolUse": {
            "toolUseId": "c1", "name": "context_persistence", "input": args}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "c1",
                                                     "content": [{"text": done}]}}]}]}


def _pi(args: dict[str, Any] = ARGS, done: str = DONE) -> dict[str, Any]:
    return {"messages": [
        {"role": "user", "content": "pin my address"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1",
                                           "name": "context_persistence", "arguments": args}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "context_persistence",
         "content": [{"type": "text", "text": done}],
         "details": json.loads(done.split("\n", 1)[0])}]}


def _gemini(args: dict[str, Any] = ARGS, done: str = DONE) -> dict[str, Any]:
    return gemini(user({"text": "pin my address"}),
                  model({"functionCall": {"name": "context_persistence", "args": args}}),
                  user({"functionResponse": {"name": "context_persistence",
                                             "response": {"output": done}}}))


SHAPES = [_chat, _responses, _anthropic, _bedrock, _pi, _gemini]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__.strip("_"))
def test_a_local_only_call_of_the_turn_in_progress_does_not_reach_a_remote_model(
        shape: Any) -> None:
    payload = shape()
    sent = outgoing_payload(payload, "google", POLICY).payload
    assert sent is not None and "Elm" not in json.dumps(sent)
    assert "pin_add" in json.dumps(sent)  # the call is still there, its text omitted
    assert payload == shape()  # the host's payload is not changed in place
    local = outgoing_payload(payload, "ollama", POLICY).payload
    assert "Elm" in json.dumps(local)  # the local model still sees its own call


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__.strip("_"))
def test_a_call_the_destination_may_receive_is_left_as_it_is(shape: Any) -> None:
    """A normal pin's call of the turn in progress goes on as it was: the model reads
    what it just did."""
    ARGS["classification"] = "normal"
    try:
        sent = outgoing_payload(shape(), "google", POLICY).payload
    finally:
        ARGS["classification"] = "local-only"
    assert "Elm" in json.dumps(sent)


@pytest.mark.parametrize("shape", [_chat, _responses], ids=["chat", "responses"])
def test_arguments_sent_as_an_object_are_read_too(shape: Any) -> None:
    """Chat Completions and Responses send a call's arguments as a JSON string; one that
    holds them as an object (a hand-written payload for ``waymarks privacy sanitize``, a
    host's own) was not decoded by the check, and went out as it was."""
    payload = shape()
    for message in payload.get("messages", payload.get("input")):
        for call in message.get("tool_calls") or ():
            call["function"]["arguments"] = dict(ARGS)
        if message.get("type") == "function_call":
            message["arguments"] = dict(ARGS)
    sent = outgoing_payload(payload, "google", POLICY).payload
    assert sent is not None and "Elm" not in json.dumps(sent)
    assert "Elm" in json.dumps(outgoing_payload(payload, "ollama", POLICY).payload)
