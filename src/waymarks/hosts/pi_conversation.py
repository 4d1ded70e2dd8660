"""A provider request that sends the bridge only what is new in its conversation (issue 15).

Pi sends the whole conversation with every model request, and the extension passed it all
to the bridge's ``sanitize``: at 25 MB a session, decoding the line alone cost 0.4-0.9 s of
each request. The bridge now holds the conversation list of the last payload it read, under
a token it answers with (``held``); the extension keeps, with that token, the JSON text of
each message it sent, and a later request names how many of them open its own list
unchanged (``base``, found by comparing the texts) and sends the rest.

Wire (``sanitize`` params, beside ``payload`` and ``provider``)::

    "conversation": {"key": "messages", "base": N, "held": TOKEN | null},
    "tail": [the messages after the first N]

``key`` names the payload's conversation list (``messages``, ``input``, ``contents``); in
``payload`` it holds ``[]``, the list being the first ``base`` messages held under ``held``
followed by ``tail``. ``base`` 0 (``held`` null) sends the whole list. An answer carries the
new ``held``; when the bridge holds no such list (it started again, it read another
request since, it holds fewer messages), the answer is ``{"resync": true, "why": …}`` and
nothing else: the extension sends the whole list. An answer's ``same`` (when present)
says its checked list opens with that many messages of the one answered under the token
the request named, which it leaves out: the extension puts back those it was given then.

What must stay true: the payload sanitized is the very one a whole request decodes to (the
held messages are what earlier lines decoded to, never changed: the sanitizer does not
modify its input), so the answer is byte for byte a whole request's (``same`` counts only
checked messages that encode as those answered before did: the very objects, unchanged
since, or equal in types, key order and values); a request that cannot
be joined is never sanitized from a guess (``resync``); the list held is the last one read,
whatever the outcome of its sanitization (an answer lost to a timeout ends the bridge).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Final

from waymarks.hosts.pi_requests import BridgeError

#: the payload keys that may hold a conversation list (Chat Completions, Anthropic and
#: Bedrock ``messages``; Responses ``input``; Gemini ``contents``)
CONVERSATION_KEYS: Final = frozenset({"messages", "input", "contents"})


class Resync(Exception):
    """The request names a held list the bridge does not hold: send the whole list."""


@dataclass
class HeldConversation:
    """The conversation list of the last payload read, and its token."""

    token: str | None = None
    key: str | None = None
    messages: list[Any] = field(default_factory=list)
    #: the checked list answered for ``messages`` (None: withheld, or not answered yet)
    answered: list[Any] | None = None
    #: the one answered under the token the last request named
    before: list[Any] | None = None

    def payload(self, params: dict[str, Any]) -> Any:
        """The whole payload ``params`` stands for: its ``payload`` as it is without a
        ``conversation``, else with the held list's first ``base`` messages and ``tail``
        in its ``key``'s place (:class:`Resync` when they are not held). Held from then on."""
        payload, wire = params.get("payload"), params.get("conversation")
        if wire is None:
            return payload
        whole, key, base, token, tail = _checked(payload, wire, params.get("tail"))
        if base and (token != self.token or key != self.key or base > len(self.messages)):
            raise Resync("the bridge holds another conversation (it started again, or read "
                         "another request since): send it whole")
        messages = [*self.messages[:base], *tail] if base else tail
        self.before, self.answered = self.answered if base else None, None
        self.token, self.key, self.messages = secrets.token_hex(8), key, messages
        return {**whole, key: messages}

    def answer(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result`` (the ``sanitize`` answer for the list joined last) as sent: its
        ``held`` token, and without the first ``same`` checked messages when they are those
        answered under the token the request named (the extension has them: encoded, sent
        and parsed again, they cost a 25 MB request most of what was left)."""
        payload, key = result.get("payload"), self.key
        out = payload.get(key) if isinstance(payload, dict) and key is not None else None
        if not isinstance(payload, dict) or not isinstance(out, list):
            return {**result, "held": self.token}
        self.answered, before = out, self.before or []
        same, most = 0, min(len(before), len(out))
        while same < most and _same(out[same], before[same]):
            same += 1
        if not same:
            return {**result, "held": self.token}
        return {**result, "payload": {**payload, key: out[same:]}, "same": same,
                "held": self.token}


def _same(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` encode to the same JSON: the same object (never changed), or
    the same types, keys in the same order and values (a message the history guard
    rewrote is a new object each time). ``==`` alone takes ``1``, ``1.0`` and ``true`` for
    one value, and a dict's keys in any order."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _checked(payload: Any, wire: Any, tail: Any
             ) -> tuple[dict[str, Any], str, int, str | None, list[Any]]:
    """``conversation`` and ``tail`` as a request must send them, else why not."""
    if not isinstance(wire, dict) or wire.get("key") not in CONVERSATION_KEYS:
        raise BridgeError("invalid_argument", "conversation must be {key, base, held}, its "
                          f"key one of {', '.join(sorted(CONVERSATION_KEYS))}")
    base, token = wire.get("base"), wire.get("held")
    if type(base) is not int or base < 0 or (base and not isinstance(token, str)):
        raise BridgeError("invalid_argument", "conversation base must be how many held "
                          "messages open the list (0 sends it whole), with the held token "
                          "an earlier answer gave")
    if not isinstance(tail, list):
        raise BridgeError("invalid_argument", "tail must be the list of messages after the "
                          "held ones")
    if not isinstance(payload, dict) or payload.get(wire["key"]) != []:
        raise BridgeError("invalid_argument", f"the payload's {wire['key']} must be [] when "
                          "its messages are sent as conversation and tail")
    return payload, wire["key"], base, token if base else None, tail


@dataclass
class SentConversation:
    """The extension's half of the wire, in Python (benchmarks and tests drive a bridge with
    it; the extension's ``checkPayload`` does the same): the JSON texts of the messages last
    sent, under the token the bridge answered with."""

    token: str | None = None
    key: str | None = None
    texts: list[str] = field(default_factory=list)
    out: list[Any] | None = None  # the checked list answered under ``token``
    named: list[Any] | None = None  # the one answered under the token the last line named

    def line(self, request_id: int, params: dict[str, Any], key: str, texts: list[str], *,
             whole: bool = False) -> str:
        """A ``sanitize`` request line for ``params`` whose ``payload``'s ``key`` list is
        ``texts`` (one JSON text a message): the messages after those held unchanged."""
        base = 0
        if not whole and self.token is not None and self.key == key:
            most = min(len(self.texts), len(texts))
            while base < most and self.texts[base] == texts[base]:
                base += 1
        self.named = self.out if base else None
        wire = {"id": request_id, "method": "sanitize", "params": {
            **params, "payload": {**params["payload"], key: []},
            "conversation": {"key": key, "base": base, "held": self.token if base else None}}}
        return f'{json.dumps(wire)[:-2]}, "tail": [{", ".join(texts[base:])}]}}}}'

    def answered(self, result: dict[str, Any], key: str, texts: list[str]
                 ) -> dict[str, Any]:
        """``result`` whole (the ``same`` messages it left out put back), keeping what the
        bridge now holds when it says (a ``resync`` holds nothing new)."""
        payload, same = result.get("payload"), result.get("same", 0)
        if same and isinstance(payload, dict):
            if self.named is None or len(self.named) < same:
                raise ValueError("the bridge left out messages it was not answered")
            payload = {**payload, key: [*self.named[:same], *payload[key]]}
            result = {**{k: v for k, v in result.items() if k != "same"}, "payload": payload}
        if isinstance(result.get("held"), str):
            self.token, self.key, self.texts = result["held"], key, texts
            self.out = payload.get(key) if isinstance(payload, dict) else None
        return result
