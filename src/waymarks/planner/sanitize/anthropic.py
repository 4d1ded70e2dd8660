"""Anthropic Messages: the content blocks only this shape has.

The ``messages`` list is walked as in ``chat`` and ``system`` as a prompt
(``Walker.prompt``); what differs is the blocks inside content, handled here through
``BLOCKS`` (part type -> handler, consulted by ``Walker.part``):

- ``tool_use`` (and ``server_tool_use``, ``mcp_tool_use``): every string of ``input`` is
  text;
- ``tool_result`` (and ``mcp_tool_result``): ``content`` is message content;
- ``thinking``: text whose ``signature`` covers the exact bytes, so a block that would have
  to change is dropped whole (and counted once, as one removed block);
- ``document``: a ``text`` source's ``data`` is text, a ``content`` source is content, a
  ``base64`` source of a text media type (``text/plain``, ``text/csv``, JSON, YAML…) is
  text once decoded (encoded again when something in it changed; one that does not
  decode is withheld); other sources are opaque;
- ``image``, ``redacted_thinking``: opaque (kept whole at their message's level).

Every one of them marks the walk as Anthropic (``Walker.anthropic``): a payload with
``messages`` and no ``system`` is Chat Completions unless one of these blocks appears.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from waymarks.core.privacy import Classification
from waymarks.planner.sanitize.walker import Handlers, Walker, keep, text_media


def tool_use(walker: Walker, part: Mapping[str, Any], base: Classification) -> Any:
    walker.anthropic = True
    return walker.fields(part, base, _TOOL_USE_FIELDS)


def tool_result(walker: Walker, part: Mapping[str, Any], base: Classification) -> Any:
    walker.anthropic = True
    return walker.fields(part, base, _CONTENT_FIELDS)


def thinking(walker: Walker, part: Mapping[str, Any], base: Classification) -> Any:
    walker.anthropic = True
    saved = (walker.removed, walker.redacted, walker.markers)
    value = part.get("thinking")
    out = walker.text(value, base)
    if out is value:
        return walker.fields(part, base, _THINKING_FIELDS)
    walker.removed, walker.redacted, walker.markers = saved
    walker.removed += 1
    return None


def document(walker: Walker, part: Mapping[str, Any], base: Classification) -> Any:
    walker.anthropic = True
    source = part.get("source")
    if not isinstance(source, Mapping):
        return walker.opaque(part, base)
    kind, raw = source.get("type"), source.get("data")
    if kind == "content" and isinstance(source.get("content"), list | str):
        new_source = walker.fields(source, base, _CONTENT_FIELDS)
    elif type(raw) is str and (kind == "text" or (
            kind == "base64" and text_media(source.get("media_type")))):
        data = walker.text(raw, base) if kind == "text" else walker.encoded_text(raw, base)
        if data is None:
            return None
        new_source = walker.fields(source, base, _KEEP_DATA)
        if data is not raw:
            new_source = {**new_source, "data": data}
    else:
        return walker.opaque(part, base)
    rest = walker.fields(part, base, _KEEP_SOURCE)
    if new_source is source:
        return rest
    return {**rest, "source": new_source}


def opaque(walker: Walker, part: Mapping[str, Any], base: Classification) -> Any:
    walker.anthropic = True
    return walker.opaque(part, base)


_TOOL_USE_FIELDS: Final[Handlers] = {"input": Walker.tool_input}
_CONTENT_FIELDS: Final[Handlers] = {"content": Walker.message_content}
_THINKING_FIELDS: Final[Handlers] = {"thinking": keep, "signature": keep}
_KEEP_DATA: Final[Handlers] = {"data": keep}
_KEEP_SOURCE: Final[Handlers] = {"source": keep}

#: part type -> handler, for ``Walker.blocks``
BLOCKS: Final[Handlers] = {
    "tool_use": tool_use, "server_tool_use": tool_use, "mcp_tool_use": tool_use,
    "tool_result": tool_result, "mcp_tool_result": tool_result,
    "thinking": thinking, "document": document,
    "image": opaque, "redacted_thinking": opaque,
}
