"""Historical retrieval: earlier turns of this session that compaction took out of the
live context, found with the recall engine (planner priority 85).

A Pi session records compaction as an entry whose ``firstKeptEntryId`` says where the
live context starts again; message entries on the active branch before that point were
replaced by a summary. The ones the request is about are offered back, each rendered as
quoted data (never as instructions), at most ``MAX_TURNS`` of them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from waymarks.planner.render import TextBlock
from waymarks.planner.select import TextInput
from waymarks.recall.analysis import analyze
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

MAX_TURNS: Final = 3


class CompactedTurns:
    """A planner text source over the turns compaction removed from this session."""

    def candidates(self, app: Waymarks, prompt: str) -> Sequence[TextInput]:
        session = app.current_session()
        if session is None:
            return ()
        branch = session.branch_set()
        if not any(entry_id in branch for entry_id in session.compactions):
            return ()  # nothing on this branch was compacted: no need to read message bodies
        turns = removed_turns(session.read_all(), session.branch_ids())
        if not turns:
            return ()
        analysed = [(entry_id, role, text, analyze(text)) for entry_id, role, text in turns]
        df = Counter(f for *_, a in analysed for f in set(a.features))
        stats = Stats(len(analysed), df)
        candidates = [
            Candidate(id=entry_id, kind=role, status="active", origin="this session",
                      created_at=index, text=text, body=frozenset(a.features),
                      quoted=frozenset(a.quoted), body_count=len(a.features))
            for index, (entry_id, role, text, a) in enumerate(analysed)
        ]
        result = evaluate(direct_plan(prompt), candidates, stats)
        return [
            # conversation is not an item: defaultClassification does not apply to it
            TextInput(TextBlock("turn", s.candidate.id, s.candidate.text, s.candidate.kind,
                                classification="normal"),
                      f"earlier turn removed by compaction; recall matched {len(s.matched)} "
                      "features")
            for s in result.eligible[:MAX_TURNS]
        ]


COMPACTED_TURNS: Final = CompactedTurns()


def removed_turns(data: bytes, branch: Sequence[str]) -> list[tuple[str, str, str]]:
    """(entry ID, role, text) of the message entries compaction removed from the branch."""
    entries: dict[str, dict[str, Any]] = {}
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(entry, dict) and entry.get("type") in ("message", "compaction"):
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                entries.setdefault(entry_id, entry)
    position = {entry_id: n for n, entry_id in enumerate(branch)}
    cut = None
    for entry_id in reversed(branch):
        entry = entries.get(entry_id)
        if entry is not None and entry.get("type") == "compaction":
            cut = position.get(str(entry.get("firstKeptEntryId")), position[entry_id])
            break
    if cut is None:
        return []
    out = []
    for entry_id in branch[:cut]:
        entry = entries.get(entry_id)
        if entry is None or entry.get("type") != "message":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        text = _text_of(message.get("content"))
        if text.strip():
            out.append((entry_id, str(message["role"]), text))
    return out


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part["text"] for part in content
                         if isinstance(part, dict) and part.get("type") == "text"
                         and isinstance(part.get("text"), str))
    return ""


def latest_user_entry(data: bytes, branch: Sequence[str]) -> str | None:
    """The ID of the newest user message on ``branch`` (entry IDs root to leaf), if any."""
    users: set[str] = set()
    for line in data.splitlines():
        if b'"user"' not in line:  # cheap filter: only candidate lines are parsed
            continue
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue
        if (isinstance(entry, dict) and entry.get("type") == "message"
                and isinstance(entry.get("message"), dict)
                and entry["message"].get("role") == "user" and isinstance(entry.get("id"), str)):
            users.add(entry["id"])
    return next((entry_id for entry_id in reversed(branch) if entry_id in users), None)
