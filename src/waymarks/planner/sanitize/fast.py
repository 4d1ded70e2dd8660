"""The fast path: recognise a message or Responses item that sanitizing would not change.

Most of a coding-agent session is plain prose and code: no ``ds4:`` marker, nothing that
looks like a credential. Such a unit is kept as it is, after a check that builds nothing.
Used only when the ``normal`` level is allowed (otherwise every text is withheld anyway).

What must stay true: ``quick``/``clean`` are *conservative*. True only when the full walk
would return the value unchanged and count nothing; anything unusual (a number where
text belongs, a part that is not an object, a key with a colon) answers False and is
left to the full walk, which judges it. ``suspect`` is the credential check of the run
(None when the provider gets no redaction): any string it flags is not clean, except
the value of a structural key (``walker.STRUCTURAL``) outside tool input, which the full
walk never redacts.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from waymarks.planner.sanitize.memo import SAME, Key, Memo, Stored
from waymarks.planner.sanitize.walker import (
    BASE,
    HINT,
    STRUCTURAL,
    Handler,
    Malformed,
    Suspect,
    Walker,
    text_data_uri,
    text_media,
)

#: keys whose strings are text (a superset of the text slots); below the deep ones every
#: string is text
_TEXT_KEYS: Final = frozenset({"content", "text", "refusal", "output", "thinking", "data"})
_DEEP_TEXT_KEYS: Final = frozenset({"arguments", "input", "args", "response"})
_ANY_TEXT_KEYS: Final = _TEXT_KEYS | _DEEP_TEXT_KEYS
_SCALARS: Final = frozenset({int, float, bool})
#: keys naming a blob's media type (Anthropic's, Gemini's): base64 text is decoded
_MEDIA_TYPE_KEYS: Final = frozenset({"media_type", "mimeType", "mime_type"})
_PLAIN_TEXT_TYPES: Final = frozenset({"text", "input_text", "output_text"})
#: _ESCAPES: tool-call ``arguments`` are JSON, read decoded by the full walk. The credential
#: pre-test on the raw string says no less than on the decoded one, except where an escape
#: stands for what the pre-test looks for: a tab before a flag (``mysql\t-pS3cret``), a
#: ``\uXXXX`` (a letter, an invisible character), an escaped slash (a webhook's
#: ``hooks.slack.com\/services``), a backspace or form feed. ``\"``, ``\\``, ``\n`` and
#: ``\r`` are read as they are (its literals allow for them): those arguments stay here.
_ESCAPES: Final = ("\\t", "\\u", "\\/", "\\b", "\\f")


def quick(unit: dict[Any, Any], suspect: Suspect | None) -> bool:
    """``clean`` for a message or item, with the most common shapes checked inline:
    ``{role, content}`` / ``{type: message, role, content}`` whose content is a string
    or a list of plain text parts."""
    size = len(unit)
    role = unit.get("role")
    if (size == 2 or (size == 3 and unit.get("type") == "message")) \
            and type(role) is str and HINT not in role:
        content = unit.get("content")
        if type(content) is str:
            return not (":" in content and HINT in content) \
                and not (suspect is not None and suspect(content))
        if type(content) is list:
            for part in content:
                if type(part) is not dict:
                    return clean(unit, 0, suspect)
                kind = part.get("type")
                text = part.get("text")
                parts = len(part)
                if type(kind) is not str or kind not in _PLAIN_TEXT_TYPES \
                        or type(text) is not str \
                        or not (parts == 2 or (parts == 3 and part.get("annotations") == [])):
                    return clean(unit, 0, suspect)
                if (":" in text and HINT in text) \
                        or (suspect is not None and suspect(text)):
                    return False
            return True
    return clean(unit, 0, suspect)


def clean(value: Any, text: int, suspect: Suspect | None) -> bool:
    """True when ``value`` holds no marker and, in text-bearing fields, nothing to
    redact: sanitizing it would change nothing. Conservative: False sends it down the
    full path. JSON types only; strings are tested inline (the hot path).

    ``text``: 0 strings here are not text; 1 strings here and in lists here are text;
    2 every string below is text (tool input and arguments)."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or ":" in key or (suspect is not None and suspect(key)):
                return False  # (a key is redacted as any string is: the full walk)
            kind = type(item)
            if kind is str:
                if ":" in item and HINT in item:
                    return False
                if (key in _MEDIA_TYPE_KEYS and text_media(item)) or text_data_uri(item):
                    return False  # base64 text: decoded by the full walk
                if suspect is not None and (
                        ((text == 2 or key not in STRUCTURAL) and suspect(item))
                        or (key == "arguments" and "\\" in item
                            and any(e in item for e in _ESCAPES))):
                    return False  # (see _ESCAPES)
            elif kind is list:  # inline: lists of parts are the common case
                child = 2 if text == 2 or key in _DEEP_TEXT_KEYS else \
                    1 if key in _TEXT_KEYS else 0
                for element in item:
                    if type(element) is str:
                        if not clean_string(element, child, suspect):
                            return False
                    elif child != 2 and type(element) is not dict:
                        return False  # parts are objects: let the full path judge
                    elif not clean(element, 2 if child == 2 else 0, suspect):
                        return False
            elif kind is dict:
                if not clean(item, 2 if text == 2 or key in _DEEP_TEXT_KEYS else 0, suspect):
                    return False
            elif (item is not None or key == "text") and (
                    (text != 2 and key in _ANY_TEXT_KEYS) or kind not in _SCALARS):
                return False  # a number where text belongs: let the full path judge
        return True
    if kind is list:
        for item in value:
            if type(item) is str:
                if not clean_string(item, text, suspect):
                    return False
            elif not clean(item, text if text == 2 else 0, suspect):
                return False
        return True
    if kind is str:
        return clean_string(value, text, suspect)
    return value is None or kind is int or kind is float or kind is bool


def clean_string(value: str, text: int, suspect: Suspect | None) -> bool:
    """A string in a list: any of them may be redacted (``Walker.generic``)."""
    if ":" in value and (HINT in value or text_data_uri(value)):
        return False
    return not (suspect is not None and suspect(value))


def units(walker: Walker, value: list[Any], handle: Handler, name: str) -> list[Any]:
    """A list of messages or items as the provider may see it, each one unit
    (:meth:`Walker.unit`): those :func:`quick` finds clean are kept without a walk, and
    the list itself when no unit changed. With ``walker.memo``, a unit an earlier run
    walked under the same rules is taken from there (``memo``). ``name``: the list's, for
    errors."""
    out: list[Any] | None = None
    plain = BASE in walker.allowed
    memo: Memo | None = walker.memo
    rules = walker.rules(handle) if memo is not None else ()
    for index, unit in enumerate(value):
        key = memo.key(rules, unit) if memo is not None else None
        if memo is None or key is None:
            new = _walked(walker, handle, unit, plain, index, name)
        else:
            new = _remembered(walker, memo, key, handle, unit, plain, index, name)
        if new is not unit:
            if out is None:
                out = list(value)
            out[index] = new
    return value if out is None else out


def _walked(walker: Walker, handle: Handler, unit: Any, plain: bool, index: int,
            name: str) -> Any:
    if plain and type(unit) is dict and quick(unit, walker.suspect):
        return unit
    if not isinstance(unit, Mapping):
        raise Malformed(f"{name}[{index}] is not an object")
    return walker.unit(handle, unit)


def _remembered(walker: Walker, memo: Memo, key: Key, handle: Handler, unit: Any,
                plain: bool, index: int, name: str) -> Any:
    """``unit`` as an earlier run under the same rules left it, counts included; walked
    (and stored) when none did."""
    found = memo.get(key)
    if found is None:
        counts = (walker.removed, walker.redacted, walker.markers)
        anthropic, walker.anthropic = walker.anthropic, False
        new = _walked(walker, handle, unit, plain, index, name)
        found = Stored(SAME if new is unit else new, walker.removed - counts[0],
                       walker.redacted - counts[1], walker.markers - counts[2],
                       walker.anthropic, 0)
        walker.anthropic = anthropic or walker.anthropic
        memo.put(key, found)
        return new
    walker.removed += found.removed
    walker.redacted += found.redacted
    walker.markers += found.markers
    walker.anthropic = walker.anthropic or found.anthropic
    return unit if found.out is SAME else found.out
