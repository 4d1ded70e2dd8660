"""OpenAI Chat Completions: the ``messages`` list and the fields of a message.

A message is ``{role, content, refusal?, tool_calls?, function_call?, ...}``. Its
``content`` is a string, a list of parts or null; ``refusal`` is text; each tool call's
``function.arguments`` (a JSON string) and ``custom.input`` are text. Everything else in
a message goes through ``Walker.generic``.

Anthropic Messages uses the same ``messages`` list of ``{role, content}``; its content
blocks are handled by ``waymarks.planner.sanitize.anthropic`` through ``Walker.blocks``,
so one walk serves both, and the shape is told apart afterwards.

What must stay true: every message stays (roles keep alternating, every tool call keeps
its result); a message is one unit for markers (``Walker.unit``); a message the fast path
finds clean is kept as the same object.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from waymarks.core.privacy import Classification
from waymarks.planner.sanitize.fast import units
from waymarks.planner.sanitize.walker import Handlers, Malformed, Walker


def messages(walker: Walker, value: object) -> Any:
    """The ``messages`` list as the provider may see it."""
    if not isinstance(value, list):
        raise Malformed("messages is not a list")
    return units(walker, value, message_unit, "messages")


def message_unit(walker: Walker, message: Mapping[str, Any], base: Classification) -> Any:
    return walker.fields(message, base, _MESSAGE_FIELDS)


def tool_calls(walker: Walker, value: Any, base: Classification) -> Any:
    if not isinstance(value, list):
        return walker.generic(value, base)
    out: list[Any] | None = None
    for index, call in enumerate(value):
        if not isinstance(call, Mapping):
            raise Malformed("tool_calls holds a non-object")
        new = walker.fields(call, base, _CALL_FIELDS)
        if new is not call:
            if out is None:
                out = list(value)
            out[index] = new
    return value if out is None else out


def function_call(walker: Walker, value: Any, base: Classification) -> Any:
    if not isinstance(value, Mapping):
        return walker.generic(value, base)
    return walker.fields(value, base, _FUNCTION_FIELDS)


def custom_call(walker: Walker, value: Any, base: Classification) -> Any:
    if not isinstance(value, Mapping):
        return walker.generic(value, base)
    return walker.fields(value, base, _CUSTOM_FIELDS)


_MESSAGE_FIELDS: Final[Handlers] = {
    "content": Walker.message_content, "refusal": Walker.optional_text,
    "tool_calls": tool_calls, "function_call": function_call,
}
_CALL_FIELDS: Final[Handlers] = {"function": function_call, "custom": custom_call}
_FUNCTION_FIELDS: Final[Handlers] = {"arguments": Walker.arguments}
_CUSTOM_FIELDS: Final[Handlers] = {"input": Walker.optional_text}
