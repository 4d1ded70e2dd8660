"""Work-turn capture for both hosts (issue 19): the hosts' own shapes of a turn turned into
:mod:`waymarks.core.evolution.observations` items, and the capture call.

- **Pi** (``agent_end``): the extension sends the run's messages from the last user message
  on (``workTurn`` in ``pi_extension/messages.ts``: roles, texts, tool calls with their string
  arguments, results with ``toolCallId`` and ``isError``, the final ``stopReason``): that
  message and the newest 4,095 after it, with an ``omitted`` entry when a longer turn
  lost its oldest ones (its request is never lost).
- **Claude Code**: ``PostToolUse`` records one bounded observation per tool call in the
  session's Waymarks ledger (``waymarks-tool-observation-v1``) as it happens; ``Stop``
  reads the ones recorded since the person's last prompt and closes the turn.

What must stay true:
- nothing is captured while learning is off, in a subagent, or without a session;
- capture never calls a model and never raises into the host: the result is a
  content-free decision (codes and counts);
- a turn is keyed by its tool-call IDs, so the same turn delivered twice is one source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from waymarks.core.evolution.observations import (
    AssistantText,
    ToolCall,
    ToolResult,
    TurnItem,
    UserText,
)
from waymarks.core.privacy import LEVELS, Classification, highest

#: what PostToolUse keeps of a tool's response before the capture's own bounds apply
RECORD_OUTPUT_BYTES: Final = 24_576
RECORD_ARG_BYTES: Final = 8_192
#: the messages of a Pi turn looked at: the person's request and the newest after it
#: (``observations.MAX_SCAN``; the extension sends at most as many, with an ``omitted``
#: entry when it left older ones out)
MAX_TURN_MESSAGES: Final = 4_096
_ARG_KEYS: Final = ("command", "file_path", "path", "pattern", "notebook_path")
_WARM: dict[Path, Any] = {}


def turn_key(items: Sequence[TurnItem]) -> str:
    ids = [i.call_id for i in items if isinstance(i, ToolCall)]
    return hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()[:32]


def from_pi(messages: object) -> list[TurnItem]:
    """Items from the extension's ``workTurn`` list (anything malformed is skipped)."""
    return pi_turn(messages)[0]


def pi_turn(messages: object) -> tuple[list[TurnItem], bool]:
    """Items from the extension's ``workTurn`` list, and whether older messages of the
    turn were left out (by the extension, which says so with an ``omitted`` entry, or
    here). The person's last message is always kept, then the newest
    :data:`MAX_TURN_MESSAGES` ``- 1`` after it: a turn longer than the bound keeps its
    request and loses its oldest operations (as Claude Code's does)."""
    out: list[TurnItem] = []
    if not isinstance(messages, list):
        return out, False
    start = next((at for at in range(len(messages) - 1, -1, -1)
                  if isinstance(messages[at], dict) and messages[at].get("role") == "user"),
                 None)
    rest = messages[(-1 if start is None else start) + 1:]
    after = [m for m in rest if not (isinstance(m, dict) and m.get("role") == "omitted")]
    room = MAX_TURN_MESSAGES - (start is not None)
    limited = len(after) > room or len(after) < len(rest)  # cut here, or by the extension
    kept = [*([messages[start]] if start is not None else []), *after[-room:]]
    for m in kept:
        if not isinstance(m, dict):
            continue
        role, text = m.get("role"), m.get("text")
        text = text if isinstance(text, str) else ""
        if role == "user":
            out.append(UserText(text))
        elif role == "toolResult" and isinstance(m.get("id"), str):
            out.append(ToolResult(m["id"], text, bool(m.get("isError"))))
        elif role == "assistant":
            for call in m.get("calls") or []:
                if isinstance(call, dict) and isinstance(call.get("name"), str):
                    args = call.get("args")
                    out.append(ToolCall(str(call.get("id") or ""), call["name"],
                                        args if isinstance(args, dict) else {}))
            stop = m.get("stop")
            out.append(AssistantText(text, stop if isinstance(stop, str) else "stop"))
    return out, limited


def capture(home: Path, origin_cwd: str, session: str, items: Sequence[TurnItem], *,
            host: str, subagent: bool, warm: bool = True, statements: int | None = None,
            scan_limited: bool = False, host_trust: bool | None = None,
            withheld: bool = False) -> dict[str, Any]:
    """Capture the work turn ``items`` (learning on, not a subagent, a project the person
    trusts); a content-free decision. ``scan_limited``: the host already left the turn's
    older items out. ``host_trust``: the host's decision on the project (Pi's; ``None``:
    Waymarks' trust list decides). ``withheld``: the host kept nothing of the turn's tool
    calls, its project untrusted when they ran (the decision is ``untrusted``).
    ``subagent``: the turn is a subagent's (the host's process environment, or for Claude
    Code the hook's: a helper's own is whichever hook started it)."""
    if subagent:
        return {"decision": "subagent"}
    from waymarks.ledger.identity import canonical_project_path
    from waymarks.service.learning import learning_enabled

    origin = canonical_project_path(origin_cwd)
    if not learning_enabled(home, origin):
        return {"decision": "learning_off"}
    from waymarks.service.capture_turns import capture_trusted

    # tool output is the repository's text, and learned memory is recalled in every
    # project: an untrusted one's work turn reaches no model (its person's words still do)
    trusted = capture_trusted(home, origin, host_trust) and not withheld
    if not trusted or not any(isinstance(i, ToolCall) for i in items):
        # no work to capture, but the snapshot says what this turn was (item 46)
        from datetime import UTC, datetime

        from waymarks.service.evolution_observe import note_turn
        from waymarks.service.ports import iso

        return note_turn(home, items, at=iso(datetime.now(UTC)), host=host,
                         statements=statements, scan_limited=scan_limited,
                         untrusted=not trusted, withheld=withheld)
    from waymarks.service.capture_spool import CAPTURE_BUSY_MS
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution import warm as warm_evolution
    from waymarks.service.evolution_observe import capture_work

    # capture's short wait for the learned ledger's lock and the database (the 30 s
    # default stalled the helper, and each hook waited for it): a busy one raises
    # (``SessionBusy``), and the turn, left unmarked, is closed by the next ``Stop``
    if warm:
        evo = warm_evolution(_WARM, home, busy_timeout_ms=CAPTURE_BUSY_MS)
        try:
            return capture_work(evo, origin, session, turn_key(items), items,
                                cwd=origin_cwd, host=host, statements=statements,
                                scan_limited=scan_limited)
        except Exception:
            if _WARM.get(home) is evo:  # a state that failed is not reused
                _WARM.pop(home).close()
            raise
    with Evolution(home, busy_timeout_ms=CAPTURE_BUSY_MS) as fresh:
        return capture_work(fresh, origin, session, turn_key(items), items, cwd=origin_cwd,
                            host=host, statements=statements, scan_limited=scan_limited)


# -- Claude Code -------------------------------------------------------------------------


def observation_record(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The bounded record of one ``PostToolUse`` hook input (``None``: nothing to keep:
    a memory tool, a subagent's call (``agent_id``), or no tool name or ID). A long output
    or argument is kept as its head and tail only, each cut at a word and redacted on its
    own before it is stored (:func:`_clip`). A lone surrogate (half an emoji, as JSON may
    escape one) is U+FFFD, as in a prompt: it failed the record, and in the helper
    closed every warm session."""
    from waymarks.core.evolution.operations import is_memory_tool
    from waymarks.core.text import well_formed

    name, call_id = payload.get("tool_name"), payload.get("tool_use_id")
    if not isinstance(name, str) or not isinstance(call_id, str) or not call_id:
        return None
    name, call_id = well_formed(name), well_formed(call_id)
    if is_memory_tool(name):
        return None
    agent = payload.get("agent_id")
    if isinstance(agent, str) and agent:  # a subagent's tool call: never the turn's evidence
        return None
    raw_args = payload.get("tool_input")
    clipped = {k: _clip(well_formed(v), RECORD_ARG_BYTES) for k, v in
               (raw_args.items() if isinstance(raw_args, dict) else ()) if k in _ARG_KEYS
               and isinstance(v, str)}
    output, is_error = _response_text(payload.get("tool_response"))
    shown, level = _clip(well_formed(output), RECORD_OUTPUT_BYTES)
    level = highest(level, *(lv for _text, lv in clipped.values()))
    record: dict[str, Any] = {"id": call_id[:128], "tool": name[:64],
                              "args": {k: text for k, (text, _lv) in clipped.items()},
                              "output": shown, "isError": is_error}
    if level != "normal":  # the markers are gone from the text: their level is kept here
        record["level"] = level
    return record


def _clip(text: str, limit: int) -> tuple[str, Classification]:
    """``text`` redacted, kept whole when it fits in ``limit`` bytes, else its head (a
    third) and tail cut at word boundaries (the partial word at each cut dropped) and
    each part redacted *on its own* before they are joined: a credential split by a cut
    is never stored as a fragment, and one part's redaction cannot reach into the other.
    With the level of the markers it held (removed from the text)."""
    from waymarks.core.evolution.observations import clean, clean_tail, cut_head

    data = text.encode("utf-8")
    if len(data) <= limit:
        return clean(text)
    head, head_level = clean(cut_head(data, limit // 3))
    tail, tail_level = clean_tail(data, (2 * limit) // 3)
    return head + "\n" + tail, highest(head_level, tail_level)


def _response_text(response: object) -> tuple[str, bool]:
    """A tool response as text, and whether it reports a failure (Bash: ``stderr`` and
    ``interrupted``; others: ``error``/``is_error``; a plain string is taken as is)."""
    if isinstance(response, str):
        return response, False
    if isinstance(response, list):
        return "\n".join(str(b.get("text", "")) for b in response
                         if isinstance(b, dict)), False
    if not isinstance(response, dict):
        return "", False
    parts = [str(response[k]) for k in ("stdout", "stderr", "output", "content", "result",
                                        "error", "message")
             if isinstance(response.get(k), str) and response[k]]
    failed = bool(response.get("is_error") or response.get("isError")
                  or response.get("interrupted") or response.get("error")
                  or (isinstance(response.get("exit_code"), int) and response["exit_code"])
                  or (isinstance(response.get("exitCode"), int) and response["exitCode"]))
    if response.get("success") is False:
        failed = True
    return "\n".join(parts), failed


def _record_level(record: dict[str, Any]) -> Classification:
    """The level an observation record keeps for the markers removed from it: ``normal``
    when it names none; one that is no level is taken as the strictest."""
    level = record.get("level", "normal")
    return level if isinstance(level, str) and level in LEVELS \
        else "local-only"


def from_claude_code(entries: Sequence[tuple[str, Any]], report: str | None,
                     interrupted: bool) -> list[TurnItem]:
    """Items from the session ledger's tail: ``("user", text)`` and ``("observation",
    record)`` in file order, then the final reply (``report``; none when interrupted)."""
    out: list[TurnItem] = []
    for kind, value in entries:
        if kind == "user" and isinstance(value, str):
            out.append(UserText(value))
        elif kind == "observation" and isinstance(value, dict):
            call_id = str(value.get("id", ""))
            args = value.get("args")
            out.append(ToolCall(call_id, str(value.get("tool", "")),
                                args if isinstance(args, dict) else {}))
            out.append(ToolResult(call_id, str(value.get("output", "")),
                                  bool(value.get("isError")), _record_level(value)))
    out.append(AssistantText(report or "", "aborted" if interrupted else "stop"))
    return out
