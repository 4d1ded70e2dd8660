"""What a Pi bridge request carries and what its answers look like (see
:mod:`waymarks.hosts.pi_bridge`).

Each parameter the extension sends is checked here and turned into the value a method
uses; one that is not what it must be is a :class:`BridgeError` whose message says what
to send instead. Nothing here touches the service: these are the wire's shapes only.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from waymarks.core.arguments import tokenize
from waymarks.core.provider_ids import provider_id_problem
from waymarks.core.text import escaped

#: the person's earlier turns a plan may carry (the extension reads them from Pi's context
#: messages of the active branch; the recall planner keeps 6 slots of 2,048 bytes, and
#: topic-less turns share one, so a few more are accepted)
MAX_PLAN_HISTORY: Final = 24
MAX_PLAN_HISTORY_BYTES: Final = 2048


#: the ``id`` a request line opens with (``JSON.stringify`` keeps the extension's key order)
LEADING_ID: Final = re.compile(r'\s*\{\s*"id"\s*:\s*(-?[0-9]{1,15}|"[A-Za-z0-9_.:-]{1,64}")\s*,')


def leading_id(line: str) -> int | str | None:
    """The id of a request that cannot be decoded, when its line opens with one (so the
    extension's waiting call is answered rather than timing out); ``None`` otherwise."""
    found = LEADING_ID.match(line)
    if found is None:
        return None
    value = json.loads(found.group(1))
    return value if isinstance(value, (int, str)) else None


def plan_history(value: object) -> list[str]:
    """The ``history`` of a plan request: a list of strings (oldest first), the last
    ``MAX_PLAN_HISTORY`` kept, each cut to ``MAX_PLAN_HISTORY_BYTES``; absent is none."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise BridgeError("invalid_argument", "plan history must be a list of strings "
                          "(the earlier user turns, oldest first)")
    return [t.encode("utf-8", "ignore")[:MAX_PLAN_HISTORY_BYTES].decode("utf-8", "ignore")
            for t in value[-MAX_PLAN_HISTORY:]]


class BridgeError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


REMEMBER_HELP: Final = (
    "/remember [TEXT]: a visible curation turn in this conversation: the model proposes "
    "what to keep in your personal memory (TEXT, if given, is offered as a candidate) and "
    "each save asks you first; the command itself saves nothing. Put `--` before TEXT "
    "that starts with `-`.")


def asks_help(text: str) -> bool:
    """Whether ``text`` holds ``-h``/``--help`` before any ``--`` (the ``/context`` rule);
    text that does not split by those rules (an apostrophe) is text."""
    from waymarks.core.arguments import ArgumentError

    try:
        tokens = tokenize(text)
    except ArgumentError:
        return False
    return any(t.lower() in ("-h", "--help") for t in before_dashes(tokens))


def context_answer(text: str, data: Any, exit_code: int) -> dict[str, Any]:
    """A ``/context`` answer for Pi's screen (or its terminal, without a UI): controls and
    format characters in it (an echoed argument's ESC, a direction override) are shown
    as escapes, never act; its own line breaks and tabs stay."""
    return {"text": escaped(text, keep="\n\t"), "data": data, "exitCode": exit_code}


def provider_param(value: object, fallback: str | None) -> str | None:
    """A request's ``provider`` (Pi's active model's); absent or empty is ``fallback``. One
    no provider ID may be (:func:`~waymarks.core.provider_ids.provider_id_problem`: a
    control, bidi or zero-width character, from a provider of Pi's ``models.json``) is
    Pi's model as an unknown one (:data:`~waymarks.service.planning.PI_UNKNOWN_PROVIDER`,
    remote unless ``[privacy]`` names it otherwise), and said
    by :func:`provider_note`: it was refused by every plan and payload of the bridge
    (a control character) until Pi's model changed, or taken (a bidi override)."""
    if value is None or value == "":
        return fallback
    if not isinstance(value, str):
        raise BridgeError("invalid_argument", "provider must be the provider's ID, as text "
                          "(e.g. anthropic)")
    if provider_id_problem(value) is not None:
        from waymarks.service.planning import PI_UNKNOWN_PROVIDER

        return PI_UNKNOWN_PROVIDER
    return value


def provider_note(value: object) -> str | None:
    """What the person is told of a provider Pi named that :func:`provider_param` took as
    an unknown model (``None`` for any other)."""
    if not isinstance(value, str) or (problem := provider_id_problem(value)) is None:
        return None
    return (f"Pi's model's provider ID '{escaped(value[:64])}' {problem}; it is taken as "
            "Pi's unknown model (pi-model: remote, sent what remoteDefaultAllowed allows, "
            "unless [privacy] names pi-model): rename that provider in Pi's models.json, or "
            "pick another model")


def entries_param(value: object) -> list[dict[str, Any]]:
    """Session ``entries`` Pi sent (absent is none). One that is no entry (a hand-edited
    line Pi loaded: an ``id`` that is not text) is read as a file's invalid line is:
    skipped and counted (``health``), never a refusal of the whole list, which left the
    session without a bridge on every later ``pi -c``."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise BridgeError("invalid_argument", "entries must be a list of Pi's session "
                          "entries")
    return [e if isinstance(e, dict) and isinstance(e.get("id"), str) else {"notAnEntry": True}
            for e in value]


def leaf_param(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise BridgeError("invalid_argument", "leafId must be an entry's id, as text")
    return value


def before_dashes(tokens: list[str]) -> list[str]:
    """The tokens before ``--`` (after it, everything is text)."""
    return tokens[: tokens.index("--")] if "--" in tokens else tokens


