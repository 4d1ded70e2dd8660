"""What ``context_persistence`` lets reach a provider: previews now, and history later.

Previews: a find result may show a short preview of an item in its text, and only when
the destination provider may receive the item's effective classification; the text is
what the destination's :class:`~waymarks.core.egress.Egress` lets through (markers
removed, prohibited spans withheld, credentials redacted for remote providers), with
whitespace collapsed, cut to ``PREVIEW_CHARS`` and quoted as JSON so it cannot break out
of its line.

History: when a conversation is re-sent, earlier ``context_persistence`` calls and results
are rewritten by :func:`guard_history` so that stored text does not travel again:

- in arguments, ``content``, ``query``, ``key``, ``reason`` and any unknown field become
  the omission sentinel (unknown fields are folded into one ``omitted`` field, since a
  field *name* can carry text too); ``id`` and ``targetRevision`` are kept only when they
  match their grammar; enumerations and numbers only when valid;
- a result is rebuilt from its metadata (grammar-checked), and its text is re-rendered
  from that metadata, so previews and anything else in the text are gone.

The sentinel is output-only: :func:`waymarks.tool.contract.parse_request` refuses any call
that carries it, so a model cannot replay a redacted call. Calls and results after the
last user message (the turn in progress, found by :mod:`waymarks.tool.egress_turn`) are
left alone, but for a call naming a classification the destination may not receive
(:meth:`Fit.arguments`: the model may change within a turn).

Supported shapes: Pi agent messages (``toolCall`` parts, ``toolResult`` messages), OpenAI
Chat Completions (``tool_calls``, ``role: tool``), Mistral as Pi hands it to its payload
hook (``toolCalls``, ``toolCallId``), OpenAI Responses (``function_call`` and
``function_call_output`` items), Anthropic Messages (``tool_use``, ``tool_result`` parts),
Bedrock Converse (``toolUse``, ``toolResult`` parts) and Gemini (``functionCall``,
``functionResponse`` parts: :mod:`waymarks.tool.egress_gemini`).

Payloads: :func:`outgoing_payload` is the one function a host calls on a provider payload
before it leaves (Pi's ``before_provider_request``, ``waymarks privacy sanitize``): the
history guard, then :func:`waymarks.planner.sanitize.sanitize` (markers, prohibited
spans, credentials). Pure: no I/O.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

from waymarks.core.egress import Egress, quote
from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import LEVELS, PrivacyConfigError, ProviderPolicy, allowance_json
from waymarks.planner.sanitize import Memo as Memo  # (re-exported: the Pi bridge keeps one)
from waymarks.planner.sanitize import SanitizeOutcome, sanitize
from waymarks.tool import egress_gemini as gemini
from waymarks.tool.contract import (
    ACTIONS,
    CLASSIFICATIONS,
    ITEM_ID,
    MAX_RESULTS,
    OMITTED,
    RESULT_CONTRACT,
    RESULT_CONTRACTS,
    REVISION,
    SOURCE_REF,
)
from waymarks.tool.egress_carried import first_json_line as _first_json_line
from waymarks.tool.egress_carried import over, over_calls
from waymarks.tool.egress_turn import persons_last

TOOL_NAME: Final = "context_persistence"
PREVIEW_CHARS: Final = 80
#: what a confirmation dialog shows the person of a stored text: every level (local-only
#: text is never quoted there at all), credentials still redacted
ON_SCREEN: Final = Egress("confirmation-dialog", frozenset(LEVELS), redacts=True)
_SPACE: Final = lazy(r"\s+")


def preview(text: str, egress: Egress, explicit: str | None = None,
            limit: int = PREVIEW_CHARS) -> str:
    """A short single-line quotation of ``text`` as ``egress`` lets it through ("" when
    nothing of it may be sent)."""
    shown = egress.text(text, explicit)
    if shown is None:
        return ""
    flat = _SPACE.sub(" ", shown).strip().replace(OMITTED, "[omitted]")
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return quote(flat)


# -- arguments and results --------------------------------------------------------------

_ENUMS: Final = {"scope": ("session", "branch", "project"), "classification": CLASSIFICATIONS}
_TEXT_FIELDS: Final = ("content", "query", "key", "reason")


def guard_arguments(arguments: object) -> dict[str, Any]:
    """A copy of tool-call arguments safe to re-send (see the module docstring)."""
    if not isinstance(arguments, dict):
        return {"omitted": OMITTED}
    out: dict[str, Any] = {}
    unknown = False
    for name, value in arguments.items():
        if name == "action":
            out[name] = value if isinstance(value, str) and value in ACTIONS else OMITTED
        elif name in _TEXT_FIELDS:
            out[name] = OMITTED
        elif name == "id":
            valid = isinstance(value, str) and (ITEM_ID.fullmatch(value)
                                                or SOURCE_REF.fullmatch(value))
            out[name] = value if valid else OMITTED
        elif name == "targetRevision":
            valid = isinstance(value, str) and REVISION.fullmatch(value)
            out[name] = value if valid else OMITTED
        elif name in _ENUMS:
            out[name] = value if value in _ENUMS[name] else OMITTED
        elif name == "activeOnly":
            out[name] = value if isinstance(value, bool) else OMITTED
        elif name == "maxResults":
            out[name] = value if type(value) is int and 1 <= value <= MAX_RESULTS else OMITTED
        else:
            unknown = True
    if unknown:
        out["omitted"] = OMITTED
    return out


_OUTCOMES: Final = ("ok", "committed", "rejected", "cancelled", "unavailable",
                    "committed_projection_pending", "indeterminate")
_CODE: Final = lazy(r"[a-z][a-z-]{0,40}")
_ITEM_FIELDS: Final = {
    "id": lambda v: isinstance(v, str) and bool(ITEM_ID.fullmatch(v) or SOURCE_REF.fullmatch(v)),
    "revision": lambda v: isinstance(v, str) and bool(REVISION.fullmatch(v)),
    "kind": lambda v: v in ("pin", "memory", "source"),
    "scope": lambda v: v in ("session", "branch", "project"),
    "status": lambda v: v in ("active", "superseded", "deleted", "invalid", "expired",
                              "available", "missing"),
    "classification": lambda v: v in CLASSIFICATIONS,
    "applies": lambda v: isinstance(v, bool), "excluded": lambda v: isinstance(v, bool),
    "active": lambda v: isinstance(v, bool),
    "createdAt": lambda v: type(v) is int, "contributed": lambda v: type(v) is int,
    "heldBack": lambda v: type(v) is int,
    "supersededBy": lambda v: isinstance(v, str) and bool(ITEM_ID.fullmatch(v)),
}


def guard_details(details: object) -> dict[str, Any]:
    """Metadata of a result, each value checked against what the tool ever puts there.

    A result written under the legacy identifier (``waymarks-context-persistence-result-v1``,
    in session files of earlier releases) is read like a current one and re-sent under
    the current identifier; one naming another contract is not ours to trust: only its
    absence of content survives."""
    contract = details.get("contract") if isinstance(details, dict) else None
    if not isinstance(details, dict) or (contract is not None
                                         and contract not in RESULT_CONTRACTS):
        return {"contract": RESULT_CONTRACT, "outcome": "unavailable", "omitted": OMITTED}
    out: dict[str, Any] = {"contract": RESULT_CONTRACT}
    action = details.get("action")
    out["action"] = action if isinstance(action, str) and action in ACTIONS else OMITTED
    outcome = details.get("outcome")
    out["outcome"] = outcome if outcome in _OUTCOMES else OMITTED
    for name in ("errorCode", "persistenceClass"):
        value = details.get(name)
        if isinstance(value, str) and _CODE.fullmatch(value):
            out[name] = value
    for name in ("id", "revision"):
        value = details.get(name)
        if value is not None and _ITEM_FIELDS[name](value):
            out[name] = value
    if isinstance(details.get("truncated"), bool):
        out["truncated"] = details["truncated"]
    items = details.get("items")
    if isinstance(items, list):
        out["items"] = [{k: v for k, v in item.items() if k in _ITEM_FIELDS and _ITEM_FIELDS[k](v)}
                        for item in items if isinstance(item, dict)]
    conflicts = details.get("conflicts")
    if isinstance(conflicts, list):
        out["conflicts"] = [c for c in conflicts if isinstance(c, str) and ITEM_ID.fullmatch(c)]
    return out


def result_text(details: dict[str, Any]) -> str:
    """A result's text without previews: its metadata as one JSON line, then the
    readable rendering (what a guarded result is re-rendered as)."""
    return json.dumps(details, separators=(",", ":")) + "\n" + render_text(details)


def render_text(details: dict[str, Any]) -> str:
    """The deterministic text of a result, from its metadata alone; a value that is not
    printable on one line is quoted (IDs reach here as the egress showed them, and no
    value may start a line of its own whatever put it in the metadata)."""
    head = (f"context_persistence {_value(details.get('action'))}: "
            f"{_value(details.get('outcome'))}")
    if details.get("errorCode"):
        head += f" ({_value(details['errorCode'])})"
    lines = [head]
    if details.get("id"):
        lines.append(f"id {_value(details['id'])}" + (
            f" revision {_value(details['revision'])}" if details.get("revision") else ""))
    if details.get("conflicts"):
        lines.append("conflicts with " + ", ".join(_value(c) for c in details["conflicts"]))
    for item in details.get("items", ()):
        lines.append(" ".join(f"{k}={_value(item[k])}" for k in sorted(item)))
    if details.get("truncated"):
        lines.append("more items exist; raise maxResults or narrow the query")
    if details.get("stale"):  # (a full disk: what the command line says, without a path)
        lines.append(f"may be stale ({_value(details['stale'])}): read as it was last "
                     "written, without memory recorded since or not yet indexed; nothing "
                     "can be written until space is freed")
    if details.get("passedOver"):
        lines.append(f"passed over {_value(details['passedOver'])} newer session file(s) "
                     "cut short: what is shown comes from an older session "
                     "(`waymarks health` names them)")
    return "\n".join(lines)


def _value(value: object) -> str:
    """A metadata value on a result's text line: as it is when printable (enumerations,
    numbers, plain IDs, an ID the egress quoted), else quoted (a raw line break, control
    or directional override never reaches the model)."""
    text = str(value)
    return text if text.isprintable() else quote(text)


# -- whole conversations ----------------------------------------------------------------

def outgoing_payload(payload: object, provider: str, policy: ProviderPolicy, *,
                     history: bool = False, memo: Memo | None = None) -> SanitizeOutcome:
    """A provider payload as it may leave: earlier tool traffic guarded, results rendered
    for another destination withheld, then sanitized (fails closed: see
    :func:`waymarks.planner.sanitize.sanitize`). With ``history``, as text that stays in
    the conversation for whichever model comes next (:meth:`ProviderPolicy.for_history`:
    a compaction's input, whose summary is sent with every later request). ``memo``:
    earlier requests' messages as sanitized (:class:`waymarks.planner.sanitize.Memo`), so a
    request costs what is new in it."""
    sent = policy
    if history:
        try:
            sent = policy.for_history()
        except PrivacyConfigError as exc:
            return SanitizeOutcome(None, True, str(exc), provider, "remote", None)
    return sanitize(guard_payload(payload, Fit(provider, sent, rendered=policy)), provider,
                    sent, memo)


def guard_payload(payload: object, fit: Fit | None = None) -> object:
    """A copy of a provider payload with :func:`guard_history` applied to its
    ``messages`` (Chat Completions, Anthropic) and ``input`` (Responses), and its Gemini
    ``contents`` guarded alike (``egress_gemini``); with ``fit``, also
    :func:`withhold_misfits`."""
    if not isinstance(payload, dict):
        return payload
    out = dict(payload)
    for name in ("messages", "input"):
        if isinstance(payload.get(name), list):
            out[name] = guard_history(payload[name])
            if fit is not None:
                out[name] = withhold_misfits(
                    out[name], fit.reading(over_calls(payload[name], fit.allowed)))
    if isinstance(payload.get("contents"), list):  # Gemini
        out["contents"] = gemini.guarded(payload["contents"], TOOL_NAME, guard_arguments,
                                         lambda output: result_text(_details_from_text(output)))
        if fit is not None:
            read = fit.reading(gemini.answered(payload["contents"], TOOL_NAME,
                                               lambda output: over(output, fit.allowed)))
            out["contents"] = gemini.fitting(out["contents"], GUARDED,
                                             lambda tool, output: _fitted(tool, output, read),
                                             TOOL_NAME, gemini.in_order(read.arguments))
    return out


# -- results rendered for one destination -------------------------------------------------

#: tools whose results quote stored text as rendered for one destination (the model that
#: asked): markers gone, local-only text kept for a local model. The sanitizer cannot tell
#: such text apart any more, so a result re-sent after a model switch goes only where its
#: destination's rendering fits (MCP names and Pi's)
RENDERING_TOOLS: Final = frozenset({"memory_recall", "recall_memory", "recall_memory_entry",
                                    "personal_memory_entry", "learned_memory"})
#: the field of such a result naming the provider it was rendered for
RENDERED_FOR: Final = "renderedFor"
#: and the fields saying what that rendering let through (:func:`rendered_stamp`): the
#: settings may change since (the provider taken out of ``localProviders``, a level taken
#: from it), and the result still holds what it was rendered with
RENDERED_LEVELS: Final = "renderedLevels"
RENDERED_REDACTED: Final = "renderedRedacted"
MISFIT: Final = json.dumps({"outcome": "omitted", "note": (
    "this earlier result was rendered for another model, so it is not repeated here; "
    "call the tool again for what this model may see")})


class Fit:
    """Whether a result rendered for one provider may go to ``provider``: nothing it may
    hold is beyond what ``provider`` may receive (levels, and credentials unredacted)."""

    def __init__(self, provider: str, policy: ProviderPolicy,
                 rendered: ProviderPolicy | None = None) -> None:
        self.allowed = policy.allowed(provider)
        self.redacts = policy.redacts(provider)
        self.policy = rendered or policy  # what a stamp's provider was rendered under
        self.over: frozenset[str] = frozenset()  # calls whose results say they carried more

    def reading(self, over: frozenset[str]) -> Fit:
        """This fit, knowing the calls whose results say they carried a level beyond it
        (:func:`waymarks.tool.egress_carried.over_calls`)."""
        read = copy.copy(self)
        read.over = over
        return read

    def __call__(self, content: Any) -> bool:
        first = _first_json_line(content) if content is not None else {}
        stamp = first.get(RENDERED_FOR)
        if not isinstance(stamp, str):
            return False  # not ours to trust, or from before results were stamped
        levels, redacted = first.get(RENDERED_LEVELS), first.get(RENDERED_REDACTED)
        if levels is None and redacted is None:  # stamped before results said what they
            levels, redacted = self.policy.allowed(stamp), self.policy.redacts(stamp)  # hold
        elif not (isinstance(levels, list) and all(level in LEVELS for level in levels)
                  and isinstance(redacted, bool)):
            return False  # a stamp that cannot be read: it may hold anything
        return frozenset(levels) <= self.allowed and (redacted or not self.redacts)

    def arguments(self, arguments: object, call: object = None) -> dict[str, Any] | None:
        """A ``context_persistence`` call's arguments guarded when they name a
        classification the destination may not receive, or when the result of ``call``
        (its ID) says they carried one (:meth:`reading`: an item's level, which a call
        need not name) (``None``: they go as they are). The turn in progress included: a
        model may change between a turn's requests. Read as JSON text (Chat
        Completions', Responses') or as an object."""
        if isinstance(arguments, str | bytes):
            arguments = _json_object(arguments)
        if call is not None and str(call) in self.over:
            return guard_arguments(arguments)
        if not isinstance(arguments, dict) or "classification" not in arguments:
            return None
        level = arguments["classification"]
        return None if isinstance(level, str) and level in self.allowed \
            else guard_arguments(arguments)


def rendered_stamp(egress: Egress) -> dict[str, Any]:
    """The fields a result rendered through ``egress`` carries (:class:`Fit` reads them):
    its provider, the levels it may hold and whether credentials in it were redacted."""
    return {RENDERED_FOR: egress.provider, RENDERED_LEVELS: allowance_json(egress.allowed),
            RENDERED_REDACTED: egress.redacts}


def withhold_misfits(messages: list[Any], fit: Fit) -> list[Any]:
    """A copy of ``messages`` whose results of :data:`RENDERING_TOOLS` that do not
    ``fit`` the destination say so instead, and whose ``context_persistence`` results that
    do not are rendered again from their metadata alone (their previews were rendered for
    another model). The turn in progress included: a model may change between a turn's
    requests."""
    calls: dict[str, str] = {}  # call ID -> tool name, for the tools guarded here
    out = []
    for message in messages:
        if isinstance(message, dict):
            message = _fitting_message(message, calls, fit)
        out.append(message)
    return out


def _fitting_message(message: dict[str, Any], calls: dict[str, str], fit: Fit) -> Any:
    """``message`` as :func:`withhold_misfits` sends it: the same object when nothing in it
    changes (copying every message of a long session cost a request a second)."""
    changed: dict[str, Any] = {}
    kind, role = message.get("type"), message.get("role")
    if kind == "function_call" and message.get("name") in GUARDED:  # Responses
        calls[str(message.get("call_id"))] = str(message.get("name"))
        if message.get("name") == TOOL_NAME \
                and (args := fit.arguments(message.get("arguments"), message.get("call_id"))):
            changed["arguments"] = json.dumps(args)
    elif kind == "function_call_output" and str(message.get("call_id")) in calls:
        changed["output"] = _fitted(calls[str(message.get("call_id"))],
                                    message.get("output"), fit) or message["output"]
    elif role == "toolResult" and message.get("toolName") in GUARDED:  # Pi
        text = _fitted(str(message.get("toolName")), message.get("content"), fit)
        if text is not None:
            changed["content"] = [{"type": "text", "text": text}]
            changed["details"] = _first_json_line(text)
    elif role == "tool" and _result_of(message) in calls:  # OpenAI chat, Mistral
        changed["content"] = _fitted(calls[_result_of(message)], message.get("content"),
                                     fit) or message.get("content")
    for name in _CALL_LISTS if role == "assistant" else ():
        for call in message.get(name) or ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and function.get("name") in GUARDED:
                calls[str(call.get("id"))] = str(function.get("name"))
        listed = message.get(name)
        if isinstance(listed, list) and any(_unfit_call(c, fit) for c in listed):
            changed[name] = [_openai_call(c) if _unfit_call(c, fit) else c for c in listed]
    content = changed.get("content", message.get("content"))
    if isinstance(content, list) and role in ("assistant", "user"):
        parts = [_fitting_part(part, calls, fit) for part in content]
        if "content" in changed or any(
                new is not old for new, old in zip(parts, content, strict=True)):
            changed["content"] = parts
    return {**message, **changed} if changed else message


def _unfit_call(call: Any, fit: Fit) -> bool:
    """Whether ``call`` (Chat Completions, Mistral) is a ``context_persistence`` call whose
    arguments do not :meth:`Fit.arguments` the destination."""
    function = call.get("function") if isinstance(call, dict) else None
    return isinstance(function, dict) and function.get("name") == TOOL_NAME \
        and fit.arguments(function.get("arguments"), call.get("id")) is not None


#: the tools whose results :func:`withhold_misfits` checks
GUARDED: Final = RENDERING_TOOLS | {TOOL_NAME}


def _fitted(tool: str, content: Any, fit: Fit) -> str | None:
    """What a result of ``tool`` holding ``content`` becomes for the destination: ``None``
    when it fits as it is; else the note to call again, or for ``context_persistence``
    its metadata rendered again (that is all it holds but previews)."""
    if fit(content):
        return None
    return result_text(_details_from_text(content)) if tool == TOOL_NAME else MISFIT


def _fitting_part(part: Any, calls: dict[str, str], fit: Fit) -> Any:
    """An Anthropic ``tool_use`` / ``tool_result`` or Bedrock ``toolUse`` / ``toolResult``
    part (Pi's ``toolCall`` names its results by their message's ``toolName``)."""
    if not isinstance(part, dict) or _not_a_call(part):
        return part
    if part.get("type") == "toolCall" and part.get("name") == TOOL_NAME:  # Pi
        if (args := fit.arguments(part.get("arguments"), part.get("id"))) is not None:
            return {**part, "arguments": args}
    elif part.get("type") == "tool_use" and part.get("name") in GUARDED:
        calls[str(part.get("id"))] = str(part.get("name"))
        if part.get("name") == TOOL_NAME \
                and (args := fit.arguments(part.get("input"), part.get("id"))):
            return {**part, "input": args}
    elif part.get("type") == "tool_result" and str(part.get("tool_use_id")) in calls:
        text = _fitted(calls[str(part.get("tool_use_id"))], part.get("content"), fit)
        if text is not None:
            return {**part, "content": [{"type": "text", "text": text}]}
    elif (use := _converse(part, "toolUse")) is not None \
            and use.get("name") in GUARDED:  # Bedrock Converse
        calls[str(use.get("toolUseId"))] = str(use.get("name"))
        if use.get("name") == TOOL_NAME \
                and (args := fit.arguments(use.get("input"), use.get("toolUseId"))):
            return {**part, "toolUse": {**use, "input": args}}
    elif (done := _converse(part, "toolResult")) is not None \
            and str(done.get("toolUseId")) in calls:
        text = _fitted(calls[str(done.get("toolUseId"))], done.get("content"), fit)
        if text is not None:
            return {**part, "toolResult": {**done, "content": [{"text": text}]}}
    return part


#: the part types the guard reads beyond their type (Pi, Anthropic); Bedrock Converse's
#: parts have none, but a ``toolUse`` or ``toolResult`` key
_CALL_PARTS: Final = frozenset({"toolCall", "tool_use", "tool_result"})


def _not_a_call(part: dict[str, Any]) -> bool:
    """Whether no branch of :func:`_parts` or :func:`_fitting_part` can take ``part``
    (text, images, thinking: most of a conversation), told by its type and keys alone."""
    kind = part.get("type")
    return not (isinstance(kind, str) and kind in _CALL_PARTS) \
        and "toolUse" not in part and "toolResult" not in part


def guard_history(messages: list[Any]) -> list[Any]:
    """A copy of ``messages`` with earlier ``context_persistence`` traffic rewritten."""
    last_user = persons_last(messages)
    ours: set[str] = set()
    out = []
    for n, message in enumerate(messages):
        if n >= last_user or not isinstance(message, dict):
            out.append(message)
            continue
        out.append(_guard_message(message, ours))
    return out


def _guard_message(message: dict[str, Any], ours: set[str]) -> dict[str, Any]:
    """``message`` with its ``context_persistence`` traffic rewritten: the same object
    when it has none (copying every message of a long session cost a request a second)."""
    changed: dict[str, Any] = {}
    role = message.get("role")
    kind = message.get("type")
    if kind == "function_call" and message.get("name") == TOOL_NAME:  # Responses
        ours.add(str(message.get("call_id")))
        changed["arguments"] = json.dumps(guard_arguments(_json_object(message.get("arguments"))))
    elif kind == "function_call_output" and str(message.get("call_id")) in ours:
        changed["output"] = result_text(_details_from_text(message.get("output")))
    elif role == "assistant":
        for name in _CALL_LISTS:  # OpenAI chat; Mistral's (camelCase) before the wire
            for call in message.get(name) or ():
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and function.get("name") == TOOL_NAME:
                    ours.add(str(call.get("id")))
            if message.get(name):
                calls = [_openai_call(c) for c in message[name]]
                if any(new is not old for new, old in zip(calls, message[name], strict=True)):
                    changed[name] = calls
        _changed_content(message, ours, changed)
    elif role == "toolResult" and message.get("toolName") == TOOL_NAME:  # Pi
        details = guard_details(message.get("details"))
        changed["details"] = details
        changed["content"] = [{"type": "text", "text": result_text(details)}]
    elif role == "tool" and _result_of(message) in ours:  # OpenAI chat, Mistral
        changed["content"] = result_text(_details_from_text(message.get("content")))
    elif role == "user":
        _changed_content(message, ours, changed)
    return {**message, **changed} if changed else message


def _changed_content(message: dict[str, Any], ours: set[str], changed: dict[str, Any]) -> None:
    """``message``'s content into ``changed`` when :func:`_parts` rewrote some of it (a
    message with no ``content`` went on with ``"content": null``, as it always has)."""
    content = message.get("content")
    parts = _parts(content, ours)
    if parts is not content or "content" not in message:
        changed["content"] = parts


def _parts(content: Any, ours: set[str]) -> Any:
    """``content`` with ``context_persistence`` calls and results rewritten: the same list
    when it holds none."""
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        if not isinstance(part, dict) or _not_a_call(part):
            out.append(part)
        elif part.get("type") == "toolCall" and part.get("name") == TOOL_NAME:  # Pi
            out.append({**part, "arguments": guard_arguments(part.get("arguments"))})
        elif part.get("type") == "tool_use" and part.get("name") == TOOL_NAME:  # Anthropic
            ours.add(str(part.get("id")))
            out.append({**part, "input": guard_arguments(part.get("input"))})
        elif part.get("type") == "tool_result" and str(part.get("tool_use_id")) in ours:
            text = result_text(_details_from_text(part.get("content")))
            out.append({**part, "content": [{"type": "text", "text": text}]})
        elif (use := _converse(part, "toolUse")) is not None and use.get("name") == TOOL_NAME:
            ours.add(str(use.get("toolUseId")))  # Bedrock Converse
            out.append({**part, "toolUse": {**use, "input": guard_arguments(use.get("input"))}})
        elif (done := _converse(part, "toolResult")) is not None \
                and str(done.get("toolUseId")) in ours:
            text = result_text(_details_from_text(done.get("content")))
            out.append({**part, "toolResult": {**done, "content": [{"text": text}]}})
        else:
            out.append(part)
    return content if all(new is old for new, old in zip(out, content, strict=True)) else out


#: where an assistant message lists its tool calls: Chat Completions, and Mistral's
#: payload as Pi hands it to its payload hook (camelCase, before the wire)
_CALL_LISTS: Final = ("tool_calls", "toolCalls")


def _result_of(message: dict[str, Any]) -> str:
    """The call a Chat Completions (or Mistral) tool message answers."""
    return str(message.get("tool_call_id", message.get("toolCallId")))


def _converse(part: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A Bedrock Converse ``toolUse`` / ``toolResult`` part's body (``None``: not one)."""
    body = part.get(name)
    return body if isinstance(body, dict) else None


def _openai_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or function.get("name") != TOOL_NAME:
        return call
    guarded = json.dumps(guard_arguments(_json_object(function.get("arguments"))))
    return {**call, "function": {**function, "arguments": guarded}}


def _json_object(text: object) -> object:
    """Tool-call arguments sent as a JSON string, decoded (``None`` when they are not)."""
    try:
        return json.loads(text or "{}") if isinstance(text, str | bytes) or text is None \
            else None
    except ValueError:
        return None


def _details_from_text(content: Any) -> dict[str, Any]:
    """Results sent as text carry their metadata as a JSON object on the first line."""
    return guard_details(_first_json_line(content) or None)
