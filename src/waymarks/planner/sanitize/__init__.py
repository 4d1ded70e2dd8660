"""The last check before a payload leaves for a model provider.

``sanitize(payload, provider, policy)`` takes a request body in one of four shapes —
OpenAI Chat Completions (``messages``), OpenAI Responses (``input``/``instructions``),
Anthropic Messages (``system`` + ``messages``) and Google Gemini (``contents``, with
``systemInstruction`` at the top or in the SDK's ``config``) — and returns a copy that
the provider may receive:

- every text-bearing field is classified with the markers of ``waymarks.core.privacy``;
  prohibited spans become ``WITHHELD``, a text with nothing allowed left is withheld as a
  whole, allowed text loses its marker tags;
- for a remote provider, credential-like values in those fields are redacted
  (``waymarks.core.secrets``);
- everything else is kept as it is, except that strings outside the text-bearing fields
  (tool schemas, metadata, ``prediction``, ``response_format``, ``user``, document
  titles) are handled as text when they hold a marker and, for a remote provider,
  redacted like text: any string may reach the model. The exceptions are the values of
  the structural keys in ``walker.STRUCTURAL`` (IDs, signatures, roles, types, the model,
  enum-like settings) and encoded blobs (``walker.ENCODED``: base64 media, redacted
  thinking), which are only checked for markers, so a signature or ID is never altered.

Text-bearing fields: message ``content`` (a string, or the ``text``/``refusal`` of its
parts), ``refusal``, tool-call ``arguments``/``input``, tool results (``tool_result``
content, ``function_call_output``/``custom_tool_call_output`` output), ``thinking``,
reasoning ``summary``/``content`` text, text ``document`` sources, ``system`` and
``instructions``; Gemini's ``text`` parts, ``functionCall`` args, ``functionResponse``
responses and text ``inlineData`` (see ``gemini``). Images, files and audio carry the
level of their message.

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

Where things are, by wire shape: ``walker`` (the state of one run and what every shape
shares: strings, objects, content parts, tool-call arguments, units), ``fast`` (the check
that builds nothing), ``memo`` (earlier runs' results by message, for a caller that sends
one growing conversation again), ``chat`` (the ``messages`` list, Chat Completions message fields),
``anthropic`` (the content blocks only Anthropic Messages has), ``responses`` (the
``input`` items), ``gemini`` (``contents`` and their parts). This module dispatches
the top-level keys and tells the shape apart.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from waymarks.core.privacy import DEFAULT_POLICY, Destination, ProviderPolicy, parse_marked
from waymarks.core.secrets import might_contain_secret
from waymarks.planner.sanitize import anthropic, chat, gemini, responses
from waymarks.planner.sanitize.memo import Memo
from waymarks.planner.sanitize.walker import BASE, STRUCTURAL, Malformed, Walker

__all__ = ["Memo", "SanitizeOutcome", "Shape", "sanitize"]

Shape = Literal["chat", "responses", "anthropic", "gemini"]


class SanitizeOutcome(msgspec.Struct, frozen=True):
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


def _payload(walker: Walker, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The top level: each key to the walk of its shape, ``generic`` for the rest (a
    credential in a top-level key is redacted, as in any object's)."""
    payload = walker.redacted_keys(payload)
    out = dict(payload)
    for key, value in payload.items():
        if key == "messages":
            new = chat.messages(walker, value)
        elif key == "system":
            new = walker.unit(Walker.prompt, value)
        elif key == "instructions" or key == "input":
            new = walker.unit(Walker.prompt, value) if not isinstance(value, list) \
                else responses.items(walker, value)
        elif key == "contents":
            new = gemini.contents(walker, value)
        elif key in gemini.CONFIG_FIELDS:
            new = gemini.system_instruction(walker, value, BASE)
        elif key == "config" and "contents" in payload:
            new = gemini.config(walker, value, BASE)
        elif key in STRUCTURAL:
            new = walker.structural(value, BASE)
        else:
            new = walker.generic(value, BASE)
        if new is not value:
            out[key] = new
    return out


def _shape(payload: Mapping[str, Any], anthropic: bool) -> Shape | None:
    if "messages" in payload:
        return "anthropic" if anthropic or "system" in payload else "chat"
    if "input" in payload or "instructions" in payload:
        return "responses"
    if "system" in payload:
        return "anthropic"
    if "contents" in payload:
        return "gemini"
    return None


def sanitize(payload: object, provider: str, policy: ProviderPolicy = DEFAULT_POLICY,
             memo: Memo | None = None) -> SanitizeOutcome:
    """``payload`` as ``provider`` may receive it, or withheld (never raises). ``memo``:
    earlier runs' results by message, reused under the same rules (``memo``)."""
    name = provider if isinstance(provider, str) else repr(type(provider).__name__)
    try:
        destination = policy.destination(provider)
        allowed = policy.allowed(provider)
        # looked up here at each call (see ``walker``): replaceable where they are named
        suspect = might_contain_secret if policy.redacts(provider) else None
    except Exception as exc:  # noqa: BLE001 - fail closed, whatever went wrong
        return SanitizeOutcome(None, True, f"provider policy failed ({type(exc).__name__})",
                               name, "remote", None)
    walker = Walker(allowed, parse_marked, suspect, anthropic.BLOCKS)
    walker.memo = memo
    if memo is not None:
        memo.begin()
    shape: Shape | None = None
    try:
        if not isinstance(payload, Mapping):
            return SanitizeOutcome(None, True, "the payload is not a JSON object", name,
                                   destination, None)
        shape = _shape(payload, False)
        if shape is None:
            return SanitizeOutcome(
                None, True, "unknown payload shape: expected messages (Chat Completions, "
                "Anthropic Messages), input/instructions (Responses) or contents (Gemini)",
                name, destination, None)
        out = _payload(walker, payload)
        shape = _shape(payload, walker.anthropic)
    except Malformed as exc:
        return SanitizeOutcome(None, True, f"malformed payload: {exc}", name, destination,
                               shape)
    except Exception as exc:  # noqa: BLE001 - fail closed: withhold, never pass through
        return SanitizeOutcome(None, True, f"sanitizer failed ({type(exc).__name__}); "
                               "payload withheld", name, destination, shape)
    return SanitizeOutcome(out, False, None, name, destination, shape,
                           walker.removed, walker.redacted, walker.markers)
