"""Claude Code work observations (issue 19): ``PostToolUse`` / ``PostToolUseFailure`` record,
``Stop`` closes the turn.

- ``PostToolUse`` (a tool succeeded) and ``PostToolUseFailure`` (it failed: ``error``,
  ``is_interrupt``) append one bounded, redacted ``waymarks-tool-observation-v1`` record to
  the session's Waymarks ledger (the one ``UserPromptSubmit`` records the prompt in), as
  they happen: the tool's name, its ``tool_use_id``, the arguments a work observation
  reads (command, paths), and the head and tail of its response. Waymarks' own memory
  tools are not recorded. Nothing is recorded while learning is off. In a project the
  person does not trust (``waymarks trust``) the record keeps the call's ID and the tool's
  name alone (``withheld``): its arguments and output are the repository's, never learned
  there, and a person who never trusted the repository expects none of it kept; the
  record still lets ``Stop`` say the turn was not captured because of that.
- ``Stop`` reads the records since the person's last prompt, the final reply from the
  transcript's tail (an interruption drops it), and captures one work source
  (:mod:`waymarks.hosts.work_turns`).

What must stay true: a hook never blocks Claude Code (errors are logged as codes by the
caller), and what is stored is bounded and redacted before it is written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

TOOL_EVENTS: Final = ("PostToolUse", "PostToolUseFailure")
OBSERVATION_TYPE: Final = "waymarks-tool-observation-v1"
TRANSCRIPT_TAIL: Final = 256 * 1024
_INTERRUPTED: Final = "[Request interrupted by user"
#: the newest records a turn keeps: the prompt, two items each and the final reply fit
#: the scan window (``observations.MAX_SCAN``, 4,096; checked by a test)
MAX_RECORDS: Final = 2_047


def learning_on(home: Path, cwd: str) -> bool:
    """Learning is on for ``cwd`` (whether the hook is a subagent's is its caller's
    check: the hook's environment, not this process's, which may be the helper's)."""
    from waymarks.ledger.identity import canonical_project_path
    from waymarks.service.learning import learning_enabled

    return learning_enabled(home, canonical_project_path(cwd))


def observation(event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The bounded, redacted record of one tool event (``None``: nothing to keep)."""
    from waymarks.hosts.work_turns import observation_record

    if event == "PostToolUseFailure":
        error = payload.get("error")
        payload = {**payload, "tool_response": {
            "error": error if isinstance(error, str) and error else "failed",
            "is_error": True}}
    return observation_record(payload)


#: what a record of an untrusted project's tool call says in place of its content
WITHHELD: Final = "untrusted"


def project_trusted(home: Path, cwd: str) -> bool:
    """Whether the person trusts ``cwd``'s project (Waymarks' list: Claude Code has no
    trust decision of its own), as a work turn's capture decides."""
    from waymarks.ledger.identity import canonical_project_path
    from waymarks.service.capture_turns import capture_trusted

    return capture_trusted(home, canonical_project_path(cwd))


def withheld(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with nothing of the repository's: the call's ID and the tool's name."""
    return {"id": record["id"], "tool": record["tool"], "withheld": WITHHELD}


def is_withheld(record: object) -> bool:
    return isinstance(record, dict) and record.get("withheld") == WITHHELD


#: how much of a ledger's end is read for a tool call recorded already
RECORDED_TAIL_BYTES: Final = 1 << 20
RECORDED_TAIL_ENTRIES: Final = 1024


def recorded(session: Any, call_id: str) -> str | None:
    """The entry that records the tool call ``call_id`` (its ``tool_use_id``) near the
    ledger's end, or ``None``: a helper that stalled past the hook's wait records the call
    the hook's own process recorded meanwhile (and one killed after recording, the other
    way round)."""
    from waymarks.ledger.entries import recent_custom

    for found in recent_custom(session, OBSERVATION_TYPE, call_id.encode("utf-8"),
                               RECORDED_TAIL_BYTES, RECORDED_TAIL_ENTRIES):
        if isinstance(found.data, dict) and found.data.get("id") == call_id:
            return found.id
    return None


def close_turn(payload: dict[str, Any], home: Path, cwd: str, warm: Any = None,
               statements: int | None = None, *, observed: bool = True) -> dict[str, Any]:
    """At ``Stop`` (learning on): capture the turn's recorded observations as a work
    source. ``warm``: a session ledger a helper already holds (used when it is this one).
    ``observed=False``: the observations were all closed before (a repeated ``Stop``);
    only a statement turn without tools is noted. A session with no ledger yet recorded
    nothing: nothing is created."""
    session_id = str(payload["session_id"]).lower()
    from waymarks.ledger.discovery import ledger_of

    found = ledger_of(home, session_id, cwd)
    if found is None:
        return {"decision": "no_observation"}
    if warm is not None and warm.session_id == session_id:
        session = warm
        session.refresh()  # another process may have appended (a hook without the helper)
    else:
        from waymarks.ledger.session_file import SessionFile

        session = SessionFile.open(found)
    entries, limited = _turn_entries(session)
    from waymarks.hosts.work_turns import capture, from_claude_code

    if not observed and any(kind == "observation" for kind, _v in entries):
        return {"decision": "closed_before"}  # capturing it again would be a duplicate
    kept = [(kind, v) for kind, v in entries if not (kind == "observation" and is_withheld(v))]
    if len(kept) < len(entries) and not any(kind == "observation" for kind, _v in kept):
        # every tool call was an untrusted project's, none of its content kept: the
        # snapshot counts the calls (no arguments, no output) and says why, as it says of
        # a turn captured there and refused
        return capture(home, cwd, session.session_id, from_claude_code(entries, None, False),
                       host="claude-code", statements=statements, subagent=False,
                       withheld=True)
    entries = kept
    if not any(kind == "observation" for kind, _v in entries):
        if not entries:  # no prompt recorded either: nothing to say about this turn
            return {"decision": "no_observation"}
        from waymarks.core.evolution.cues import is_statement

        if not is_statement(str(entries[0][1])):
            # a question or a request that used no tool reached no capture: the snapshot
            # keeps the last turn that did (a repeated Stop never rewrites it either)
            return {"decision": "no_observation"}
        # a statement, no work: the snapshot says what the turn was (its intent; item 46)
        return capture(home, cwd, session.session_id, from_claude_code(entries, None, False),
                       host="claude-code", statements=statements, subagent=False)
    report, interrupted = _final_reply(payload.get("transcript_path"))

    items = from_claude_code(entries, report, interrupted)
    return capture(home, cwd, session.session_id, items, host="claude-code",
                   statements=statements, scan_limited=limited, subagent=False)


def _turn_entries(session: Any) -> tuple[list[tuple[str, Any]], bool]:
    """The person's last prompt and the newest observations recorded after it, in file
    order, and whether older ones were left out. The prompt is always kept: each record
    becomes two items (the call and its result) and the final reply one more, so at most
    :data:`MAX_RECORDS` records keep the whole turn inside the scan window."""
    from waymarks.ledger.entries import Custom, Message, bodies

    out: list[tuple[str, Any]] = []
    for body in bodies(session, ("message", "custom")):
        if isinstance(body, Message) and body.role == "user":
            out = [("user", body.text)]
        elif isinstance(body, Custom) and body.custom_type == OBSERVATION_TYPE and out:
            out.append(("observation", body.data))
    if len(out) <= 1 + MAX_RECORDS:
        return out, False
    return [out[0], *out[-MAX_RECORDS:]], True


def _final_reply(path: object) -> tuple[str | None, bool]:
    """The last assistant text of the transcript's tail, and whether the turn was
    interrupted after it (then no report)."""
    if not isinstance(path, str) or not os.path.isabs(path) or not os.path.isfile(path):
        return None, False
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        if size > TRANSCRIPT_TAIL:
            handle.seek(size - TRANSCRIPT_TAIL)
            handle.readline()
        data = handle.read(TRANSCRIPT_TAIL)
    from waymarks.core.text import well_formed

    report: str | None = None
    interrupted = False
    for line in data.split(b"\n"):
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict) or entry.get("isSidechain"):
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        texts = [b.get("text", "") for b in content if isinstance(b, dict)
                 and b.get("type") == "text" and isinstance(b.get("text"), str)] \
            if isinstance(content, list) else ([content] if isinstance(content, str) else [])
        if entry.get("type") == "assistant" and texts:
            report, interrupted = well_formed("\n".join(texts)), False
        elif entry.get("type") == "user" and any(_INTERRUPTED in t for t in texts):
            interrupted = True
    return (None if interrupted else report), interrupted
