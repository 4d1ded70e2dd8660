"""Google Gemini (``generateContent``): ``contents``, ``systemInstruction`` and ``config``.

A request is ``{contents, systemInstruction?, tools?, ...}`` on the wire, and
``{model, contents, config: {systemInstruction?, tools?, ...}}`` as Google's SDK takes it
(what Pi hands its payload hook). ``contents`` is a list of ``{role, parts}``, one unit
each (``Walker.unit``); the SDK also takes a plain string there. A part is an object with
one of these keys (Gemini's parts have no ``type``; snake_case as the REST API accepts it):

- ``text``: text. A ``thought`` part that carries a ``thoughtSignature`` is dropped whole
  when its text would have to change, as Anthropic's signed ``thinking`` is: the
  signature was made over the exact text. A part's ``thoughtSignature`` (any part may
  carry one) is kept as it is, as a structural value; there only (``walker.STRUCTURAL``
  is every shape's: a credential under that key elsewhere is redacted);
- ``functionCall``: every string of ``args`` is text (tool-call input);
- ``functionResponse``: every string of ``response`` is text, its ``parts`` are parts;
- ``inlineData``: a text media type's base64 ``data`` is read decoded (``encoded_text``),
  any other blob (an image) is kept as it is at its unit's level, as base64 media is;
- anything else (``fileData``, ``executableCode``, ``codeExecutionResult``): opaque,
  every string in it redacted and checked for markers (``Walker.opaque``).

``systemInstruction`` (a string, a ``{parts}`` object or a list of parts) is one unit.
Everything else (``tools`` and their declarations, ``generationConfig``, safety settings)
is walked as any value is (``Walker.generic``): kept, its strings redacted for a remote
provider. What must stay true, as for the other shapes: no content is removed (a part
list left empty gets one ``WITHHELD`` text part), and a content the fast path finds clean
is kept as the same object.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from waymarks.core.privacy import WITHHELD, Classification
from waymarks.planner.sanitize.fast import units
from waymarks.planner.sanitize.walker import Handlers, Malformed, Walker, keep, text_media


def contents(walker: Walker, value: object) -> Any:
    """The ``contents`` list (or the SDK's plain string) as the provider may see it."""
    if type(value) is str:
        return walker.unit(Walker.prompt, value)
    if not isinstance(value, list):
        raise Malformed("contents is not a list")
    return units(walker, value, content_unit, "contents")


def content_unit(walker: Walker, content: Mapping[str, Any], base: Classification) -> Any:
    return walker.fields(content, base, _CONTENT_FIELDS)


def system_instruction(walker: Walker, value: Any, base: Classification) -> Any:
    """``systemInstruction``: one unit, whichever form it takes."""
    return walker.unit(_instruction, value)


def config(walker: Walker, value: Any, base: Classification) -> Any:
    """The SDK's ``config``: its ``systemInstruction`` as above, the rest as any value."""
    if not isinstance(value, Mapping):
        return walker.generic(value, base)
    return walker.fields(value, base, CONFIG_FIELDS)


def _instruction(walker: Walker, value: Any, base: Classification) -> Any:
    if isinstance(value, Mapping):
        return content_unit(walker, value, base)
    if isinstance(value, list):
        return parts(walker, value, base)
    return walker.prompt(value, base)


def parts(walker: Walker, value: Any, base: Classification) -> Any:
    """A ``parts`` list: a withheld part is dropped; one left empty holds one
    ``WITHHELD`` text part."""
    if not isinstance(value, list):
        raise Malformed("parts is not a list")
    kept = [new for part in value if (new := _part(walker, part, base)) is not None]
    if len(kept) == len(value) and all(n is o for n, o in zip(kept, value, strict=True)):
        return value
    return kept or [{"text": WITHHELD}]


def _part(walker: Walker, part: Any, base: Classification) -> Any:
    """One part; None to drop it."""
    if type(part) is str:  # (the SDK takes a string as a text part)
        return walker.text(part, base)
    if not isinstance(part, Mapping):
        raise Malformed("a part is not an object")
    if "text" in part:
        return _text(walker, part, base)
    for key, handle in _PART_KINDS.items():
        if key in part:
            return handle(walker, part, base, key)
    return walker.opaque(part, base)


def _text(walker: Walker, part: Mapping[str, Any], base: Classification) -> Any:
    value = part["text"]
    saved = (walker.removed, walker.redacted, walker.markers)
    out = walker.text(value, base)
    if out is not value and part.get("thought") is True and (
            "thoughtSignature" in part or "thought_signature" in part):
        walker.removed, walker.redacted, walker.markers = saved
        walker.removed += 1  # (signed over the exact text: dropped whole)
        return None
    if out is None:
        return None
    rest = walker.fields(part, base, _KEEP_TEXT)
    if out is value:
        return rest
    return {**rest, "text": out}


def _call(walker: Walker, part: Mapping[str, Any], base: Classification, key: str) -> Any:
    return _inside(walker, part, base, key, _CALL_FIELDS)


def _response(walker: Walker, part: Mapping[str, Any], base: Classification,
              key: str) -> Any:
    return _inside(walker, part, base, key, _RESPONSE_FIELDS)


def _inside(walker: Walker, part: Mapping[str, Any], base: Classification, key: str,
            handlers: Handlers) -> Any:
    """``part`` with the object under ``key`` walked by ``handlers``."""
    inner = part[key]
    new = walker.fields(inner, base, handlers) if isinstance(inner, Mapping) \
        else walker.generic(inner, base)
    rest = walker.fields(part, base, {key: keep, **_SIGNED})
    return rest if new is inner else {**rest, key: new}


def _inline(walker: Walker, part: Mapping[str, Any], base: Classification, key: str) -> Any:
    """``inlineData``: text read decoded, any other blob kept at its unit's level."""
    blob = part[key]
    if not isinstance(blob, Mapping):
        return walker.opaque(part, base)
    data = blob.get("data")
    if type(data) is str and text_media(blob.get("mimeType", blob.get("mime_type"))):
        shown = walker.encoded_text(data, base)
        if shown is None:
            return None
    else:
        walker.slots += 1
        if base not in walker.allowed:
            walker.removed += 1
            return None
        shown = data
    new = walker.fields(blob, base, _KEEP_DATA)
    if shown is not data:
        new = {**new, "data": shown}
    rest = walker.fields(part, base, {key: keep, **_SIGNED})
    return rest if new is blob else {**rest, key: new}


#: a part's signature: kept as it is, unless it holds markers (``Walker.structural``)
_SIGNED: Final[Handlers] = {"thoughtSignature": Walker.structural}
_KEEP_TEXT: Final[Handlers] = {"text": keep, **_SIGNED}
_KEEP_DATA: Final[Handlers] = {"data": keep}
_CONTENT_FIELDS: Final[Handlers] = {"parts": parts}
_CALL_FIELDS: Final[Handlers] = {"args": Walker.tool_input}
_RESPONSE_FIELDS: Final[Handlers] = {"response": Walker.tool_input, "parts": parts}
#: the part's key -> its handler (camelCase as the SDK writes it, snake_case as REST takes it)
_PART_KINDS: Final = {
    "functionCall": _call, "function_call": _call,
    "functionResponse": _response, "function_response": _response,
    "inlineData": _inline, "inline_data": _inline,
}
#: the SDK ``config``'s fields handled here (the rest: ``Walker.generic``)
CONFIG_FIELDS: Final[Handlers] = {
    "systemInstruction": system_instruction, "system_instruction": system_instruction}
