"""A verdict on a learned claim (EVOLUTION items 34-36), and the edit outcome every edit of
:mod:`waymarks.service.evolution_edits` reports.

Kept apart from the other edits so that the transcript capture (which
:mod:`waymarks.service.evolution` runs) can apply the feedback a Claude Code prompt gives
at ``Stop`` without an import cycle: nothing here imports the Evolution service at run
time (it is passed in).

What must stay true: a receipt is keyed by (source, claim) and never applied twice (not
after a restart, not after an undo); feedback cannot revive a forgotten or superseded
claim; ``incorrect`` quarantines the claim with its same-origin duplicates and retires
queued sources that repeat it; messages name IDs and codes, never content.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.evolution.aging import later
from waymarks.core.evolution.feedback import parse_feedback
from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    UTILITY_VERDICTS,
    VERDICTS,
    EvolutionRecord,
    FeedbackRecord,
    SettledRecord,
)
from waymarks.core.evolution.rows import ClaimRow
from waymarks.service.ports import iso

if TYPE_CHECKING:
    from waymarks.service.evolution import Evolution

#: what an edit may be refused for (fixed codes)
REFUSALS: Final = frozenset({"not_found", "bad_input", "not_active", "changed_since",
                             "duplicate", "forgotten", "not_applied"})


@dataclass(frozen=True, slots=True)
class EditOutcome:
    ok: bool
    code: str  # "done" or a refusal (:data:`REFUSALS`)
    message: str
    event: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "code": self.code, "message": self.message,
                "event": self.event, **self.data}


def _refuse(code: str, message: str) -> EditOutcome:
    return EditOutcome(False, code, message)


def dry_run(evo: Evolution, edit: Callable[[], EditOutcome]) -> EditOutcome:
    """The outcome ``edit`` (one of the edit use cases, on ``evo``) would have now, with
    every refusal and nothing appended: a caller that asks the person first refuses before
    the question. The edit itself checks again under the lock."""
    evo.dry_run = True
    try:
        return edit()
    finally:
        evo.dry_run = False


def _commit(evo: Evolution, records: Sequence[EvolutionRecord], message: str,
            **data: Any) -> EditOutcome:
    """Append ``records`` (the first is the edit) and check that its event applied; in a
    :func:`dry_run`, the edit passed every check: report that and append nothing."""
    if evo.dry_run:
        return EditOutcome(True, "done", message, None, data)
    first = evo.store.last_seq() + 1
    evo._append(records)  # the one append path (lock held by the caller)
    event = evo.store.event(first)
    if event is None or not event.applied:
        reason = event.reason if event is not None else "not_folded"
        return _refuse("not_applied", f"the edit was recorded but did not apply ({reason}); "
                       "nothing changed. See `waymarks evolution history`")
    return EditOutcome(True, "done", message, first, data)


#: what an edit of a claim the learned-memory tables lost says (the ledger is canonical)
REBUILD_FIRST: Final = ("run `waymarks rebuild-index` first (it folds the evolution ledger"
                        " again), then retry; nothing changed")


def replaced_by(evo: Evolution, claim: ClaimRow, *command: str) -> str:
    """What the refusal of an edit of a superseded ``claim`` adds: the newest claim of its
    chain of replacements still in effect, by its ID, and ``command`` (``{id}`` standing for
    it) aimed at that one; nothing when the chain ends forgotten or cannot be read (said
    only "is superseded", the person had to list the claims to find the correction). Its
    text is not named: the learned-memory tool gives this message to the model, and
    ``waymarks evolution show ID`` shows it in a terminal."""
    from waymarks.core.egress import made_id
    from waymarks.core.text import shell_command
    from waymarks.store.integrity import DECODE_ERRORS

    newest, seen = claim, set[str]()
    while newest.state == "superseded" and newest.superseded_by and newest.id not in seen:
        seen.add(newest.id)
        try:
            following = evo.store.view.claim(newest.superseded_by)
        except DECODE_ERRORS:
            return ""
        if following is None:
            return ""
        newest = following
    if newest is claim or newest.state in ("superseded", "forgotten") or not made_id(
            newest.id) or newest.id in command:  # (a conflict with its own correction)
        return ""
    words = ["waymarks", "evolution", *(word.replace("{id}", newest.id) for word in command)]
    return (f"; it was replaced by {newest.id}: use `{shell_command(words)}` (`waymarks "
            f"evolution show {newest.id}` shows it)")


def _live(evo: Evolution, cid: str) -> ClaimRow | EditOutcome:
    from waymarks.store.integrity import DECODE_ERRORS

    try:
        claim = evo.store.view.claim(cid)
    except DECODE_ERRORS:  # a damaged row: readers leave it out, an edit cannot
        return _refuse("bad_state", f"the learned claim {cid} cannot be read from waymarks.db"
                       f" (a damaged row); {REBUILD_FIRST}")
    if claim is None:
        from waymarks.service.evolution_legacy_ids import lookup

        if _in_ledger(evo, cid):  # the tables are damaged or behind the canonical ledger
            return _refuse("bad_state", f"the learned claim {cid} is in the evolution ledger"
                           f" but missing from waymarks.db (damaged or behind); {REBUILD_FIRST}")
        legacy = lookup(evo, cid)  # a pi-memory-evolution ID: say what it became
        if legacy is not None:
            return EditOutcome(False, "not_found", legacy.message() + "; nothing changed",
                               None, legacy.to_json())
        from waymarks.service.item_refs import no_claim

        return _refuse("not_found", no_claim(cid))
    return claim


def _in_ledger(evo: Evolution, cid: str) -> bool:
    """Whether the evolution ledger names a claim ``cid`` (an import batch's inner records
    too): its entries read by the one ledger reader and decoder, only on this error path;
    an unreadable ledger names none."""
    from waymarks.core.evolution.model import decode_record
    from waymarks.core.evolution.touched import claims_named
    from waymarks.ledger.entries import custom_entries
    from waymarks.service.learning import has_ledger
    from waymarks.service.outcomes import ServiceError

    if not has_ledger(evo.home):
        return False  # nothing learned yet (and a refusal creates no ledger)
    try:
        for entry in custom_entries(evo.ledger, EVOLUTION_CUSTOM_TYPE):
            record = decode_record(entry.data)
            if record is not None and cid in claims_named(record):
                return True
    except (ServiceError, OSError):  # LedgerDamaged among them (no import cycle)
        return False
    return False


def _retire_repeats(evo: Evolution, origin: str, content: str, code: str,
                    keep: str | None = None) -> list[EvolutionRecord]:
    """Settle the queued sources of ``origin`` whose text repeats ``content``: their model
    pass would only propose it again (EVOLUTION item 73)."""
    at = iso(evo.clock.now())
    return [SettledRecord(SCHEMA_VERSION, s.source_id, code, at)
            for s in evo.store.unsettled(1_000_000)
            if s.origin == origin and s.source_id != keep and content in s.text]


def worded_twins(evo: Evolution, claim: ClaimRow, states: Sequence[str]) -> list[str]:
    """The IDs of the claims of ``claim``'s origin in ``states`` that say its text with
    another case, spacing or closing punctuation (the fold takes the exact duplicates
    along with a forget or an ``incorrect``; these get a record of their own, so a ledger
    written before replays as it did): left out, "the CI runs on GitHub Actions." stayed
    injected once "The CI runs on GitHub Actions" was forgotten or marked incorrect."""
    return [twin.id for twin in evo.store.view.worded(claim.origin, claim.content, states)
            if twin.content != claim.content]


def twins_said(ids: Sequence[str]) -> str:
    """What an edit's message adds for the duplicates :func:`worded_twins` found."""
    return (f", and {', '.join(ids)} saying it with another case or closing mark (each "
            "its own event)" if ids else "")


def feedback(evo: Evolution, cid: str, verdict: str, source: str | None = None) -> EditOutcome:
    """Record a verdict. ``source`` keys the receipt (a message's ID for natural feedback;
    a fresh ID per command). A repeated key, or a verdict equal to the current one, records
    nothing new and is still reported as done (``changed`` false)."""
    verdict = verdict.strip().lower()
    if verdict not in VERDICTS:
        return _refuse("bad_input", f"the verdict is one of {', '.join(sorted(VERDICTS))}")
    source_id = source or f"cmd:{uuid.uuid4().hex}"
    with evo.ledger.locked():
        evo._locked_sync()
        claim = _live(evo, cid)
        if isinstance(claim, EditOutcome):
            return claim
        if claim.state in ("forgotten", "superseded"):
            return _refuse("not_active", f"{cid} is {claim.state}; feedback cannot revive it"
                           + replaced_by(evo, claim, "feedback", "{id}", verdict))
        if evo.store.view.receipt(source_id, cid):
            return EditOutcome(True, "done", "Already recorded.", None,
                               {"id": cid, "verdict": verdict, "changed": False})
        at = iso(evo.clock.now())
        if verdict in UTILITY_VERDICTS and later(claim.updated_at, at):
            # the fold ignores it (older_than_evidence): said as a success, it changed
            # nothing while the person believed it had
            return _refuse("not_applied", f"{cid}'s evidence is dated {claim.updated_at}, "
                           f"after now ({at}): a {verdict} verdict older than the evidence "
                           "changes nothing, so none was recorded (a date in the future: "
                           "`incorrect` or `accurate` still apply, or correct the claim)")
        twins = worded_twins(evo, claim, ("provisional",)) if verdict == "incorrect" else []
        records: list[EvolutionRecord] = [FeedbackRecord(SCHEMA_VERSION, i, verdict, source_id,
                                                         at) for i in (cid, *twins)]
        if verdict == "incorrect":
            records += _retire_repeats(evo, claim.origin, claim.content, "incorrect")
        if evo.dry_run:  # every check passed: append nothing (see dry_run)
            return EditOutcome(True, "done", f"Would record {verdict} for {cid}.", None,
                               {"id": cid, "verdict": verdict, "changed": True})
        first = evo.store.last_seq() + 1
        evo._append(records)
        event = evo.store.event(first)
        changed = event is not None and event.applied
        note = {"incorrect": " It is quarantined (never recalled) with its same-origin "
                             f"duplicates; `waymarks evolution undo {first}` brings it back."
                }.get(verdict, "")
        return EditOutcome(True, "done", f"Recorded {verdict} for {cid}{twins_said(twins)}."
                           + note
                           if changed else f"Nothing changed ({event.reason if event else ''}).",
                           first if changed else None,
                           {"id": cid, "verdict": verdict, "changed": changed})


def natural_feedback(evo: Evolution, message: str, source: str) -> EditOutcome | None:
    """Feedback a whole user message gives (``None`` when it gives none). An unknown ID is
    a refusal returned to the caller, never an exception that stops the rest of a hook."""
    parsed = parse_feedback(message)
    if parsed is None:
        return None
    return feedback(evo, parsed.claim_id, parsed.verdict, source)


def stop_feedback(home: Path, session_id: str, statements: Sequence[tuple[str, str]],
                  evo: Evolution) -> dict[str, int]:
    """Claude Code's ``Stop`` (item 35; see :mod:`waymarks.hosts.claude_code_feedback`):
    apply the feedback of the transcript's last user message (``statements``: (entry
    uuid, text) in file order, user text only) with ``evo`` (the capture's open
    Evolution). Content-free counts; a refusal (an unknown ID) is counted, never raised."""
    if not statements:
        return {"feedback": 0, "feedbackRefused": 0}
    entry_uuid, text = statements[-1]
    if "memory" not in text.lower() and "记忆" not in text:  # the common prompt
        return {"feedback": 0, "feedbackRefused": 0}
    if parse_feedback(text) is None:
        return {"feedback": 0, "feedbackRefused": 0}
    session = session_id.lower()
    entry = _recorded_prompt(home, session, text)
    key = f"claude:{session}:{entry}" if entry else f"claude:{session}:transcript:{entry_uuid}"
    outcome = natural_feedback(evo, text, key)
    applied = outcome is not None and outcome.ok
    return {"feedback": int(applied), "feedbackRefused": int(not applied)}


def _recorded_prompt(home: Path, session: str, text: str) -> str | None:
    """The ID of the session ledger's last user entry when it holds ``text`` (the entry
    ``UserPromptSubmit`` recorded for this prompt and keyed its receipt by)."""
    from waymarks.ledger.discovery import ledger_of

    found = ledger_of(home, session)
    if found is None:
        return None
    from waymarks.ledger.entries import Message, bodies
    from waymarks.ledger.log import SessionFileError
    from waymarks.ledger.session_file import SessionFile

    try:
        ledger = SessionFile.open(found)
    except (SessionFileError, OSError):
        return None
    last = None
    for body in bodies(ledger, ("message",)):
        if isinstance(body, Message) and body.role == "user":
            last = body
    return last.id if last is not None and last.text == text else None
