"""Historical retrieval: earlier turns of this session that compaction took out of the
live context, found with the recall engine (planner priority 85).

A Pi session records compaction as an entry whose ``firstKeptEntryId`` says where the
live context starts again; message entries on the active branch before that point were
replaced by a summary. The ones the request is about are offered back, each rendered as
quoted data (never as instructions), at most ``MAX_TURNS`` of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from waymarks.ledger.entries import Compaction, Message, bodies, messages
from waymarks.recall.analysis import analyze
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats

if TYPE_CHECKING:
    from waymarks.core.egress import Egress
    from waymarks.ledger.log import SessionLog
    from waymarks.planner.select import TextInput
    from waymarks.service.app import Waymarks

MAX_TURNS: Final = 3


class CompactedTurns:
    """A planner text source over the turns compaction removed from this session."""

    def candidates(self, app: Waymarks, prompt: str,
                   egress: Egress | None = None) -> Sequence[TextInput]:
        """The best ``MAX_TURNS`` turns the request is about that ``egress``'s destination
        may receive (with those it may not met on the way:
        :func:`~waymarks.planner.select.first_admitted`)."""
        session = app.current_session()
        if session is None:
            return ()
        branch = session.branch_set()
        if not any(entry_id in branch for entry_id in session.compactions):
            return ()  # nothing on this branch was compacted: no need to read message bodies
        turns = removed_turns(session)
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
        from waymarks.planner.render import TextBlock  # only here: recall never plans
        from waymarks.planner.select import TextInput, first_admitted

        return first_admitted((
            # conversation is not an item: defaultClassification does not apply to it
            TextInput(TextBlock("turn", s.candidate.id, s.candidate.text, s.candidate.kind,
                                classification="normal"),
                      f"earlier turn removed by compaction; recall matched {len(s.matched)} "
                      "features")
            for s in result.eligible), egress, MAX_TURNS)


COMPACTED_TURNS: Final = CompactedTurns()


def removed_turns(session: SessionLog) -> list[tuple[str, str, str]]:
    """(entry ID, role, text) of the message entries compaction removed from the branch."""
    branch = session.branch_ids()
    wanted = set(branch)
    found: dict[str, Message | Compaction] = {}
    for body in bodies(session, ("message", "compaction")):
        if body.id in wanted and isinstance(body, Message | Compaction):
            found[body.id] = body
    position = {entry_id: n for n, entry_id in enumerate(branch)}
    cut = None
    for entry_id in reversed(branch):
        entry = found.get(entry_id)
        if isinstance(entry, Compaction):
            cut = position.get(entry.first_kept or "", position[entry_id])
            break
    if cut is None:
        return []
    return [(m.id, m.role, m.text) for entry_id in branch[:cut]
            if isinstance(m := found.get(entry_id), Message)
            and m.role in ("user", "assistant") and m.text.strip()]


def latest_user_entry(session: SessionLog) -> str | None:
    """The ID of the newest user message on the active branch, if any (file order along
    one branch is tree order: a child is always appended after its parent)."""
    branch = session.branch_set()
    latest = None
    for message in messages(session):
        if message.role == "user" and message.id in branch:
            latest = message.id
    return latest
