"""OpenAI Responses: the ``input`` list of items and the text-bearing fields of each.

``input`` (and ``instructions``) given as a string or a list of parts is a prompt
(``Walker.prompt``); given as a list of items it is walked here, one unit per item:

- ``message`` items (or items with a ``role`` and no ``type``): ``content`` is a string
  or parts; a placeholder part is ``output_text`` for the assistant, ``input_text``
  otherwise;
- ``reasoning``: the text of ``summary`` and ``content`` parts; ``encrypted_content`` is
  kept as it is;
- tool calls and their outputs (``_ITEM_FIELDS``): ``arguments`` as tool-call arguments,
  ``input`` and ``output`` as text (or parts);
- any other item: markers only (``Walker.generic``).

What must stay true: every item stays (each call keeps its output); an item the fast path
finds clean is kept as the same object.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from waymarks.core.privacy import WITHHELD, Classification
from waymarks.planner.sanitize.fast import units
from waymarks.planner.sanitize.walker import Handlers, Walker, keep


def items(walker: Walker, value: list[Any]) -> Any:
    """The ``input`` list of items as the provider may see it."""
    return units(walker, value, item_unit, "input")


def item_unit(walker: Walker, item: Mapping[str, Any], base: Classification) -> Any:
    kind = item.get("type")
    if kind == "message" or (kind is None and "role" in item):
        return walker.fields(item, base, _ASSISTANT_FIELDS
                             if item.get("role") == "assistant" else _USER_FIELDS)
    if kind == "reasoning":
        return walker.fields(item, base, _REASONING_FIELDS)
    handlers = _ITEM_FIELDS.get(kind) if type(kind) is str else None
    return walker.fields(item, base, handlers if handlers is not None else _NO_FIELDS)


def input_content(walker: Walker, value: Any, base: Classification) -> Any:
    return walker.content(value, base, "input_text")


def output_content(walker: Walker, value: Any, base: Classification) -> Any:
    return walker.content(value, base, "output_text")


def output(walker: Walker, value: Any, base: Classification) -> Any:
    """A tool call's ``input``/``output``: text, parts, or (anything else) markers only."""
    if type(value) is str:
        return walker.text_or(value, base, WITHHELD)
    if isinstance(value, list):
        return walker.parts(value, base, "input_text")
    return walker.generic(value, base)


def reasoning_parts(walker: Walker, value: Any, base: Classification) -> Any:
    if not isinstance(value, list):
        return walker.generic(value, base)
    kept = [new for part in value
            if (new := walker.part(part, base, "summary_text")) is not None]
    if len(kept) == len(value) and all(n is o for n, o in zip(kept, value, strict=True)):
        return value
    return kept


_USER_FIELDS: Final[Handlers] = {"content": input_content}
_ASSISTANT_FIELDS: Final[Handlers] = {"content": output_content}
_REASONING_FIELDS: Final[Handlers] = {
    "summary": reasoning_parts, "content": reasoning_parts, "encrypted_content": keep}
_NO_FIELDS: Final[Handlers] = {}
#: Responses item type -> the handlers of its text-bearing fields
_ITEM_FIELDS: Final[dict[str, Handlers]] = {
    "function_call": {"arguments": Walker.arguments},
    "custom_tool_call": {"input": output},
    "function_call_output": {"output": output},
    "custom_tool_call_output": {"output": output},
    "local_shell_call_output": {"output": output},
    "mcp_call": {"arguments": Walker.arguments, "output": output},
}
