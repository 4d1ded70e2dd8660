"""The last check before a payload leaves for a model provider.

``sanitize(payload, provider, policy)`` takes a request body in one of three shapes —
OpenAI Chat Completions (``messages``), OpenAI Responses (``input``/``instructions``) and
Anthropic Messages (``system`` + ``messages``) — and returns a copy that the provider may
receive:

- every text-bearing field is classified with the markers of ``waymarks.core.privacy``;
  prohibited spans become ``WITHHELD``, a text with nothing allowed left is withheld as a
  whole, allowed text loses its marker tags;
- for a remote provider, credential-like values in those fields are redacted
  (``waymarks.core.secrets``);
- everything else is kept as it is. Strings outside the text-bearing fields (tool
  schemas, metadata, IDs) are only checked for markers, and handled the same way when
  they hold one; they are not redacted.

Text-bearing fields: message ``content`` (a string, or the ``text``/``refusal`` of its
parts), ``refusal``, tool-call ``arguments``/``input``, tool results (``tool_result``
content, ``function_call_output``/``custom_tool_call_output`` output), ``thinking``,
reasoning ``summary``/``content`` text, text ``document`` sources, ``system`` and
``instructions``. Images, files and audio carry the level of their message.

Structure is never broken: no message or item is removed, so roles keep alternating and
every tool call keeps its result. A withheld string becomes ``WITHHELD`` (tool-call
``arguments`` become ``"{}"``); a withheld part is dropped, and a part list left empty
gets one ``WITHHELD`` text part. A ``thinking`` block that would have to change is dropped,
since its signature covers the exact text.

A message (a Responses item, the ``system`` prompt) is one unit for markers: when its
markers do not pair up within one string, or a leading marker is left open while the
message has more parts, the whole message takes the highest level of its markers.
Markers never reach across messages.

Fails closed: a payload that is not an object, has no known shape or is malformed (a
marker in an object key counts as malformed), and any internal error, give
``withheld=True`` and no payload. Reasons name the problem, never content. The input is
never modified; the result is a new top-level object that shares unchanged sub-objects
with the input (copy it before mutating either).

Speed: messages and items that need nothing (no ``ds4:``, nothing that looks like a
credential) are recognised by a check that builds nothing, and kept as they are.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from waymarks.core.privacy import (
    DEFAULT_POLICY,
    WITHHELD,
    Classification,
    Destination,
    ProviderPolicy,
    filter_marked,
    has_markers,
    highest,
    parse_marked,
)
from waymarks.core.secrets import might_contain_secret, redact

Shape = Literal["chat", "responses", "anthropic"]

_HINT: Final = "4:"  # every marker holds "ds4:"; see waymarks.core.privacy
_BASE: Final[Classification] = "normal"
_EMPTY_ARGUMENTS: Final = "{}"

#: part type -> the key holding its text
_TEXT_PARTS: Final = {
    "text": "text", "input_text": "text", "output_text": "text", "summary_text": "text",
    "reasoning_text": "text", "refusal": "refusal",
}
#: keys whose strings the fast path checks for credentials (a superset of the text slots);
#: below the deep ones every string is text
_TEXT_KEYS: Final = frozenset({"content", "text", "refusal", "output", "thinking", "data"})
_DEEP_TEXT_KEYS: Final = frozenset({"arguments", "input"})
_ANY_TEXT_KEYS: Final = _TEXT_KEYS | _DEEP_TEXT_KEYS
_SCALARS: Final = frozenset({int, float, bool})
_PLAIN_TEXT_TYPES: Final = frozenset({"text", "input_text", "output_text"})
_TOOL_INPUT_PARTS: Final = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_TOOL_RESULT_PARTS: Final = frozenset({"tool_result", "mcp_tool_result"})
_ANTHROPIC_ONLY: Final = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "image",
    "server_tool_use", "mcp_tool_use", "mcp_tool_result",
})
#: Responses item type -> its text-bearing fields
_ITEM_TEXT_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "function_call": ("arguments",),
    "custom_tool_call": ("input",),
    "function_call_output": ("output",),
    "custom_tool_call_output": ("output",),
    "local_shell_call_output": ("output",),
    "mcp_call": ("arguments", "output"),
}


@dataclass(frozen=True, slots=True)
class SanitizeOutcome:
    """What may be sent: ``payload`` (None when ``withheld``) and what was done to it."""

    payload: dict[str, Any] | None
    withheld: bool
    #: why it was withheld; None otherwise. Never holds payload content.
    reason: str | None
    provider: str
    destination: Destination
    shape: Shape | None
    #: prohibited spans, texts and parts withheld or dropped
    removed_blocks: int = 0
    #: credential-like values redacted
    redacted_values: int = 0
    #: marker tags removed
    stripped_markers: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.removed_blocks or self.redacted_values or self.stripped_markers)


class _Malformed(Exception):
    """The payload does not have the structure its shape requires."""


class _Run:
    """One sanitization: the provider's allowance, counters and the current unit's marker
    state (see ``unit``)."""

    __slots__ = ("allowed", "anthropic", "assistant_item", "level", "markers",
                 "message_fields", "redact", "redacted", "removed", "slots", "split",
                 "user_item")

    def __init__(self, allowed: frozenset[Classification], redact_secrets: bool) -> None:
        self.allowed = allowed
        self.redact = redact_secrets
        self.removed = 0
        self.redacted = 0
        self.markers = 0
        self.anthropic = False
        # marker state of the current unit
        self.level: Classification = _BASE
        self.split = False
        self.slots = 0
        self.message_fields: dict[str, Callable[[Any, Classification], Any]] = {
            "content": self.message_content, "refusal": self.optional_text,
            "tool_calls": self.tool_calls, "function_call": self.function_call,
        }
        self.user_item: dict[str, Callable[[Any, Classification], Any]] = {
            "content": self.input_content}
        self.assistant_item: dict[str, Callable[[Any, Classification], Any]] = {
            "content": self.output_content}

    # --- strings -----------------------------------------------------------------------

    def text(self, value: object, base: Classification, redact_secrets: bool = True
             ) -> str | None:
        """A text-bearing string as the provider may see it; None when withheld whole."""
        if type(value) is not str:
            raise _Malformed("a text field is not a string")
        self.slots += 1
        if _HINT in value:
            marked = parse_marked(value, base)
            if marked.markers:
                self.level = highest(self.level, marked.level)
                if not marked.balanced or marked.open_tail:
                    self.split = True
                filtered = filter_marked(marked, self.allowed)
                self.markers += filtered.markers
                self.removed += filtered.dropped
                if filtered.text is None:
                    return None
                return self._redact(filtered.text) if redact_secrets else filtered.text
        if base not in self.allowed:
            self.removed += 1
            return None
        return self._redact(value) if redact_secrets else value

    def _redact(self, value: str) -> str:
        if self.redact and might_contain_secret(value):
            value, count = redact(value)
            self.redacted += count
        return value

    def text_or(self, value: object, base: Classification, replacement: str) -> str:
        out = self.text(value, base)
        return replacement if out is None else out

    def generic(self, value: Any, base: Classification) -> Any:
        """Any other value: kept, except strings holding markers (and their containers)."""
        if type(value) is str:
            if _HINT in value and has_markers(value):
                return self.text_or(value, base, WITHHELD)
            return value
        if isinstance(value, Mapping):
            out: dict[Any, Any] | None = None
            for key, item in value.items():
                _check_key(key)
                new = self.generic(item, base)
                if new is not item or out is not None or type(value) is not dict:
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out
        if isinstance(value, list | tuple):
            items: list[Any] | None = None
            for index, item in enumerate(value):
                new = self.generic(item, base)
                if new is not item:
                    if items is None:
                        items = list(value)
                    items[index] = new
            if items is None:
                return value
            return items if isinstance(value, list) else type(value)(items)
        return value

    def fields(self, obj: Mapping[str, Any], base: Classification,
               handlers: Mapping[str, Callable[[Any, Classification], Any]]) -> Any:
        """``obj`` with ``handlers`` applied to their keys and ``generic`` to the rest."""
        out: dict[str, Any] | None = None
        for key, value in obj.items():
            _check_key(key)
            if key == "type" or key == "role":
                new = value if type(value) is str and _HINT not in value \
                    else self.generic(value, base)
            else:
                handler = handlers.get(key)
                new = handler(value, base) if handler is not None else self.generic(value, base)
            if new is not value:
                if out is None:
                    out = dict(obj)
                out[key] = new
        return obj if out is None else out

    # --- fast path: values that need nothing (used only when "normal" is allowed) -----

    def quick(self, unit: dict[Any, Any]) -> bool:
        """``clean`` for a message or item, with the most common shapes checked inline:
        ``{role, content}`` / ``{type: message, role, content}`` whose content is a string
        or a list of plain text parts."""
        size = len(unit)
        role = unit.get("role")
        if (size == 2 or (size == 3 and unit.get("type") == "message")) \
                and type(role) is str and _HINT not in role:
            content = unit.get("content")
            redact_secrets = self.redact
            if type(content) is str:
                return not (":" in content and _HINT in content) \
                    and not (redact_secrets and might_contain_secret(content))
            if type(content) is list:
                for part in content:
                    if type(part) is not dict:
                        return self.clean(unit, 0)
                    kind = part.get("type")
                    text = part.get("text")
                    parts = len(part)
                    if type(kind) is not str or kind not in _PLAIN_TEXT_TYPES \
                            or type(text) is not str \
                            or not (parts == 2 or (parts == 3 and part.get("annotations") == [])):
                        return self.clean(unit, 0)
                    if (":" in text and _HINT in text) \
                            or (redact_secrets and might_contain_secret(text)):
                        return False
                return True
        return self.clean(unit, 0)

    def clean(self, value: Any, text: int) -> bool:
        """True when ``value`` holds no marker and, in text-bearing fields, nothing to
        redact: sanitizing it would change nothing. Conservative: False sends it down the
        full path. JSON types only; strings are tested inline (the hot path).

        ``text``: 0 strings here are not text; 1 strings here and in lists here are text;
        2 every string below is text (tool input and arguments)."""
        kind = type(value)
        if kind is dict:
            redact_secrets = self.redact
            for key, item in value.items():
                if type(key) is not str or ":" in key:
                    return False
                kind = type(item)
                if kind is str:
                    if ":" in item and _HINT in item:
                        return False
                    if redact_secrets and (text or key in _ANY_TEXT_KEYS) \
                            and might_contain_secret(item):
                        return False
                elif kind is list:  # inline: lists of parts are the common case
                    child = 2 if text == 2 or key in _DEEP_TEXT_KEYS else \
                        1 if key in _TEXT_KEYS else 0
                    for element in item:
                        if type(element) is str:
                            if not self.clean_string(element, child):
                                return False
                        elif child != 2 and type(element) is not dict:
                            return False  # parts are objects: let the full path judge
                        elif not self.clean(element, 2 if child == 2 else 0):
                            return False
                elif kind is dict:
                    if not self.clean(item, 2 if text == 2 or key in _DEEP_TEXT_KEYS else 0):
                        return False
                elif (item is not None or key == "text") and (
                        (text != 2 and key in _ANY_TEXT_KEYS) or kind not in _SCALARS):
                    return False  # a number where text belongs: let the full path judge
            return True
        if kind is list:
            for item in value:
                if type(item) is str:
                    if not self.clean_string(item, text):
                        return False
                elif not self.clean(item, text if text == 2 else 0):
                    return False
            return True
        if kind is str:
            return self.clean_string(value, text)
        return value is None or kind is int or kind is float or kind is bool

    def clean_string(self, value: str, text: int) -> bool:
        if ":" in value and _HINT in value:
            return False
        return not (text and self.redact and might_contain_secret(value))

    # --- units -------------------------------------------------------------------------

    def unit(self, handle: Callable[[Any, Classification], Any], value: Any) -> Any:
        """Handle one message/item/system prompt; if its markers do not pair up within
        one string (or a leading marker is left open) and it has more than one part,
        handle it again with the highest of its markers as the level of everything."""
        saved = (self.removed, self.redacted, self.markers)
        self.level, self.split, self.slots = _BASE, False, 0
        out = handle(value, _BASE)
        if self.split and self.slots > 1 and self.level != _BASE:
            level = self.level
            self.removed, self.redacted, self.markers = saved
            out = handle(value, level)
        return out

    def payload(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(payload)
        for key, value in payload.items():
            _check_key(key)
            if key == "messages":
                new = self.messages(value)
            elif key == "system":
                new = self.unit(self.system, value)
            elif key == "instructions" or key == "input":
                new = self.unit(self.system, value) if not isinstance(value, list) \
                    else self.items(value)
            else:
                new = self.generic(value, _BASE)
            if new is not value:
                out[key] = new
        return out

    def messages(self, messages: object) -> Any:
        if not isinstance(messages, list):
            raise _Malformed("messages is not a list")
        out: list[Any] | None = None
        plain = _BASE in self.allowed
        for index, message in enumerate(messages):
            if plain and type(message) is dict and self.quick(message):
                continue
            if not isinstance(message, Mapping):
                raise _Malformed(f"messages[{index}] is not an object")
            new = self.unit(self.message, message)
            if new is not message:
                if out is None:
                    out = list(messages)
                out[index] = new
        return messages if out is None else out

    def items(self, items: list[Any]) -> Any:
        out: list[Any] | None = None
        plain = _BASE in self.allowed
        for index, item in enumerate(items):
            if plain and type(item) is dict and self.quick(item):
                continue
            if not isinstance(item, Mapping):
                raise _Malformed(f"input[{index}] is not an object")
            new = self.unit(self.item, item)
            if new is not item:
                if out is None:
                    out = list(items)
                out[index] = new
        return items if out is None else out

    def system(self, value: Any, base: Classification) -> Any:
        """A ``system``/``instructions``/``input`` value: a string or a list of parts."""
        if value is None:
            return value
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, list):
            return self.parts(value, base, "text")
        raise _Malformed("system/instructions/input must be a string, a list or null")

    # --- messages (Chat Completions and Anthropic Messages) ----------------------------

    def message(self, message: Mapping[str, Any], base: Classification) -> Any:
        return self.fields(message, base, self.message_fields)

    def message_content(self, value: Any, base: Classification) -> Any:
        return self.content(value, base, "text")

    def input_content(self, value: Any, base: Classification) -> Any:
        return self.content(value, base, "input_text")

    def output_content(self, value: Any, base: Classification) -> Any:
        return self.content(value, base, "output_text")

    def content(self, value: Any, base: Classification, text_type: str) -> Any:
        if value is None:
            return value
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, list):
            return self.parts(value, base, text_type)
        raise _Malformed("content must be a string, a list of parts or null")

    def optional_text(self, value: Any, base: Classification) -> Any:
        return value if value is None else self.text_or(value, base, WITHHELD)

    def tool_calls(self, value: Any, base: Classification) -> Any:
        if not isinstance(value, list):
            return self.generic(value, base)
        out: list[Any] | None = None
        for index, call in enumerate(value):
            if not isinstance(call, Mapping):
                raise _Malformed("tool_calls holds a non-object")
            new = self.fields(call, base, {"function": self.function_call,
                                           "custom": self.custom_call})
            if new is not call:
                if out is None:
                    out = list(value)
                out[index] = new
        return value if out is None else out

    def function_call(self, value: Any, base: Classification) -> Any:
        if not isinstance(value, Mapping):
            return self.generic(value, base)
        return self.fields(value, base, {"arguments": self.arguments})

    def custom_call(self, value: Any, base: Classification) -> Any:
        if not isinstance(value, Mapping):
            return self.generic(value, base)
        return self.fields(value, base, {"input": self.optional_text})

    def arguments(self, value: Any, base: Classification) -> Any:
        return self.text_or(value, base, _EMPTY_ARGUMENTS) if type(value) is str \
            else self.tool_input(value, base)

    def tool_input(self, value: Any, base: Classification) -> Any:
        """Tool-call input given as an object: every string in it is text."""
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, Mapping):
            out: dict[Any, Any] | None = None
            for key, item in value.items():
                _check_key(key)
                new = self.tool_input(item, base)
                if new is not item or (out is None and type(value) is not dict):
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out
        if isinstance(value, list | tuple):
            items = [self.tool_input(item, base) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return items
        return value

    # --- content parts -----------------------------------------------------------------

    def parts(self, parts: list[Any], base: Classification, text_type: str) -> Any:
        kept: list[Any] = []
        changed = False
        for part in parts:
            new = self.part(part, base, text_type)
            if new is not part:
                changed = True
            if new is not None:
                kept.append(new)
        if not changed:
            return parts
        if parts and not kept:
            kept.append(_placeholder_part(parts[0], text_type))
        return kept

    def part(self, part: Any, base: Classification, text_type: str) -> Any:
        """One content part/block; None to drop it."""
        if type(part) is str:
            return self.text(part, base)
        if not isinstance(part, Mapping):
            raise _Malformed("a content part is not an object")
        kind = part.get("type")
        if type(kind) is not str:
            kind = None
        key = _TEXT_PARTS.get(kind) if kind is not None else None
        if key is not None:
            out = self.text(part.get(key), base)
            if out is None:
                return None
            rest = self.fields(part, base, _KEEP_TEXT if key == "text" else _KEEP_REFUSAL)
            if out is part[key]:
                return rest
            if rest is part:
                rest = dict(part)
            rest[key] = out
            return rest
        if kind in _ANTHROPIC_ONLY:
            self.anthropic = True
        if kind == "thinking":
            return self.thinking(part, base)
        if kind in _TOOL_INPUT_PARTS:
            return self.fields(part, base, {"input": self.tool_input})
        if kind in _TOOL_RESULT_PARTS:
            return self.fields(part, base, {"content": self.message_content})
        if kind == "document":
            return self.document(part, base)
        return self.opaque(part, base)

    def opaque(self, part: Any, base: Classification) -> Any:
        """Images, files, audio and unknown parts: kept whole at their unit's level."""
        self.slots += 1
        if base not in self.allowed:
            self.removed += 1
            return None
        return self.generic(part, base)

    def thinking(self, part: Mapping[str, Any], base: Classification) -> Any:
        saved = (self.removed, self.redacted, self.markers)
        value = part.get("thinking")
        out = self.text(value, base)
        if out is value:
            return self.fields(part, base, {"thinking": _keep, "signature": _keep})
        self.removed, self.redacted, self.markers = saved
        self.removed += 1
        return None

    def document(self, part: Mapping[str, Any], base: Classification) -> Any:
        source = part.get("source")
        if not isinstance(source, Mapping):
            return self.opaque(part, base)
        kind = source.get("type")
        if kind == "text" and type(source.get("data")) is str:
            data = self.text(source["data"], base)
            if data is None:
                return None
            new_source = self.fields(source, base, {"data": _keep})
            if data is not source["data"]:
                new_source = {**new_source, "data": data}
        elif kind == "content" and isinstance(source.get("content"), list | str):
            new_source = self.fields(source, base, {"content": self.message_content})
        else:
            return self.opaque(part, base)
        rest = self.fields(part, base, {"source": _keep})
        if new_source is source:
            return rest
        return {**rest, "source": new_source}

    # --- Responses items ---------------------------------------------------------------

    def item(self, item: Mapping[str, Any], base: Classification) -> Any:
        kind = item.get("type")
        if kind == "message" or (kind is None and "role" in item):
            return self.fields(item, base, self.assistant_item
                               if item.get("role") == "assistant" else self.user_item)
        if kind == "reasoning":
            return self.fields(item, base, {"summary": self.reasoning_parts,
                                            "content": self.reasoning_parts,
                                            "encrypted_content": _keep})
        text_fields = _ITEM_TEXT_FIELDS.get(kind) if type(kind) is str else None
        if text_fields:
            handlers: dict[str, Callable[[Any, Classification], Any]] = {}
            for name in text_fields:
                handlers[name] = self.arguments if name == "arguments" else self.output
            return self.fields(item, base, handlers)
        return self.fields(item, base, {})

    def output(self, value: Any, base: Classification) -> Any:
        if type(value) is str:
            return self.text_or(value, base, WITHHELD)
        if isinstance(value, list):
            return self.parts(value, base, "input_text")
        return self.generic(value, base)

    def reasoning_parts(self, value: Any, base: Classification) -> Any:
        if not isinstance(value, list):
            return self.generic(value, base)
        kept = [new for part in value
                if (new := self.part(part, base, "summary_text")) is not None]
        if len(kept) == len(value) and all(n is o for n, o in zip(kept, value, strict=True)):
            return value
        return kept


def _keep(value: Any, base: Classification) -> Any:
    return value


def _check_key(key: object) -> None:
    if type(key) is str and _HINT in key and has_markers(key):
        raise _Malformed("an object key holds a classification marker")


_KEEP_TEXT: Final = {"text": _keep}
_KEEP_REFUSAL: Final = {"refusal": _keep}


def _placeholder_part(first: Any, text_type: str) -> dict[str, Any]:
    kind = first.get("type") if isinstance(first, Mapping) else None
    if kind not in ("text", "input_text", "output_text"):
        kind = text_type
    part: dict[str, Any] = {"type": kind, "text": WITHHELD}
    if kind == "output_text":
        part["annotations"] = []
    return part


def _shape(payload: Mapping[str, Any], anthropic: bool) -> Shape | None:
    if "messages" in payload:
        return "anthropic" if anthropic or "system" in payload else "chat"
    if "input" in payload or "instructions" in payload:
        return "responses"
    if "system" in payload:
        return "anthropic"
    return None


def sanitize(payload: object, provider: str,
             policy: ProviderPolicy = DEFAULT_POLICY) -> SanitizeOutcome:
    """``payload`` as ``provider`` may receive it, or withheld (never raises)."""
    name = provider if isinstance(provider, str) else repr(type(provider).__name__)
    try:
        destination = policy.destination(provider)
        allowed = policy.allowed(provider)
    except Exception as exc:  # noqa: BLE001 - fail closed, whatever went wrong
        return SanitizeOutcome(None, True, f"provider policy failed ({type(exc).__name__})",
                               name, "remote", None)
    run = _Run(allowed, policy.redacts(provider))
    shape: Shape | None = None
    try:
        if not isinstance(payload, Mapping):
            return SanitizeOutcome(None, True, "the payload is not a JSON object", name,
                                   destination, None)
        shape = _shape(payload, False)
        if shape is None:
            return SanitizeOutcome(
                None, True, "unknown payload shape: expected messages (Chat Completions, "
                "Anthropic Messages) or input/instructions (Responses)", name, destination,
                None)
        out = run.payload(payload)
        shape = _shape(payload, run.anthropic)
    except _Malformed as exc:
        return SanitizeOutcome(None, True, f"malformed payload: {exc}", name, destination,
                               shape)
    except Exception as exc:  # noqa: BLE001 - fail closed: withhold, never pass through
        return SanitizeOutcome(None, True, f"sanitizer failed ({type(exc).__name__}); "
                               "payload withheld", name, destination, shape)
    return SanitizeOutcome(out, False, None, name, destination, shape,
                           run.removed, run.redacted, run.markers)
