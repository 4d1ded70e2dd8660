"""Which ``context_persistence`` calls of a conversation carried text a destination may
not receive, read from their results: the history guard of :mod:`waymarks.tool.egress`
is pure and cannot look an item up, so a call naming no ``classification`` (a
``pin_supersede`` of a local-only pin, a ``memory_expire`` with an internal reason) said
nothing of its level, and its arguments went to whichever model came next in the turn.
The tool resolves the level when it runs the call and names it in the result
(``classification``, :func:`waymarks.tool.persistence_answers.carrying`), or refuses the call
for it (``local-only-refused``, ``provider-disallowed``); either is read here.

A result is found by the call it answers in every shape the guard reads (Chat
Completions' and Mistral's tool messages, Responses' ``function_call_output``, Pi's
``toolResult`` messages, Anthropic's ``tool_result`` and Bedrock Converse's
``toolResult`` parts); Gemini's results name no call, so a Gemini conversation's are
paired with its calls in order (``#0``, ``#1``, …: :func:`waymarks.tool.egress_gemini.answered`).
Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import Any, Final

from waymarks.tool.contract import CLASSIFICATIONS, RESULT_CONTRACT, RESULT_CONTRACTS

#: the refusals that say a call carried a level its own destination may not receive
LEVEL_REFUSALS: Final = frozenset({"local-only-refused", "provider-disallowed"})


def first_json_line(content: Any) -> dict[str, Any]:
    """The JSON object a result's text starts with (``{}`` when it does not)."""
    text = content if isinstance(content, str) else "\n".join(
        p.get("text", "") for p in content if isinstance(p, dict)
        and isinstance(p.get("text"), str)) if isinstance(content, list) else ""
    try:
        found = json.loads(text.split("\n", 1)[0])
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def over_calls(messages: list[Any], allowed: Collection[str]) -> frozenset[str]:
    """The IDs of the calls in ``messages`` whose results say they carried a level beyond
    ``allowed`` (or were refused for their level)."""
    return frozenset(call for call, content in _results(messages)
                     if over(content, allowed))


def over(content: Any, allowed: Collection[str]) -> bool:
    """Whether a result's ``content`` (its text, or Pi's details) says its call carried a
    level beyond ``allowed``, or was refused for its level."""
    details = content if isinstance(content, dict) else first_json_line(content)
    if details.get("contract", RESULT_CONTRACT) not in RESULT_CONTRACTS:
        return False  # (Pi's details may name none; they answer the call by its ID)
    # a refusal names no level: one past the caller's, local-only at most
    level = "local-only" if details.get("errorCode") in LEVEL_REFUSALS \
        else details.get("classification")
    return level in CLASSIFICATIONS and level not in allowed


def _results(messages: list[Any]) -> Iterator[tuple[str, Any]]:
    """(the call's ID, the result's content) of each tool result in ``messages``."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if message.get("type") == "function_call_output":  # Responses
            yield str(message.get("call_id")), message.get("output")
        elif role == "tool":  # Chat Completions, Mistral
            yield str(message.get("tool_call_id", message.get("toolCallId"))), \
                message.get("content")
        elif role == "toolResult":  # Pi: its details, else its text
            details = message.get("details")
            yield str(message.get("toolCallId")), \
                details if isinstance(details, dict) and details else message.get("content")
        elif role == "user" and isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") == "tool_result":  # Anthropic
                    yield str(part.get("tool_use_id")), part.get("content")
                elif isinstance(part, dict) and isinstance(done := part.get("toolResult"), dict):
                    yield str(done.get("toolUseId")), done.get("content")  # Bedrock Converse

