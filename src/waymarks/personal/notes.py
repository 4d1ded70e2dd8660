"""Discussion notes: short typed notes kept in the session ledger, on the branch where they
were taken (``custom`` entries of type ``waymarks-note-v1``; a ``clear`` event starts a
fresh list). Active notes are those on the active branch since its last clear.

``notes promote`` packages the active *lesson* notes as untrusted data for a visible turn
that may only target this project's engineering docs: it proposes, it edits nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core.decisions import refuse_credentials
from waymarks.core.secrets import cut_before_secret
from waymarks.core.text import is_unicode, normalize, stray_control, visible
from waymarks.ledger.entries import custom_entries
from waymarks.personal.curation import promotion_prompt
from waymarks.service.outcomes import ServiceError
from waymarks.service.planning import egress_for
from waymarks.service.ports import epoch_ms

if TYPE_CHECKING:
    from waymarks.ledger.log import SessionLog
    from waymarks.service.app import Waymarks

NOTE_ENTRY: Final = "waymarks-note-v1"
NOTE_TYPES: Final = ("requirement", "decision", "constraint", "action", "question",
                     "preference", "implementation", "lesson")
MAX_NOTE_CHARS: Final = 480


class Note(msgspec.Struct, frozen=True):
    id: str  # the ledger entry ID
    type: str
    text: str
    created_at: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "text": self.text,
                "createdAt": self.created_at}


def add_note(app: Waymarks, text: str, note_type: str = "lesson") -> tuple[Note, bool]:
    """Append a note (``False``: the same note is already active, nothing appended)."""
    if note_type not in NOTE_TYPES:
        raise ServiceError("invalid_argument", f"note type must be one of "
                           f"{', '.join(NOTE_TYPES)}")
    cleaned = " ".join(text.split())
    if not is_unicode(cleaned) or not visible(cleaned):  # (control characters alone too)
        raise ServiceError("empty", "Note text must not be empty")
    stray = stray_control(text)
    if stray is not None:  # kept as `\u001b[31m`, listed and promoted into a prompt
        raise ServiceError("invalid_argument", note_control(stray))
    if len(cleaned) > MAX_NOTE_CHARS:
        raise ServiceError("too_long", f"a note has at most {MAX_NOTE_CHARS} characters "
                           f"(this one has {len(cleaned)}): shorten it, or split it into "
                           "notes; nothing was written", request=True)
    refused = refuse_credentials(cleaned, "Note text")
    if refused is not None:
        raise ServiceError(refused.code, refused.message)
    same: list[Note] = []

    def noted(session: SessionLog) -> str | None:
        """The same active note's ID, looked for under the session's lock: looked for
        before it, a note another writer added meanwhile was appended again."""
        same.extend(n for n in _active_in(session) if n.type == note_type
                    and normalize(n.text) == normalize(cleaned))
        return same[0].id if same else None

    now = epoch_ms(app.clock.now())
    entry_id = app.append_record(NOTE_ENTRY, {"schemaVersion": 1, "event": "add", "note": {
        "type": note_type, "text": cleaned, "createdAt": now}}, noted)
    if same:
        return same[0], False
    return Note(entry_id, note_type, cleaned, now), True


def note_control(stray: str) -> str:
    """Why a note holding ``stray`` (:func:`stray_control`'s where) is refused, as a pin's
    file holding one is."""
    return (f"the note holds a control character that is not text ({stray}): a note is "
            "text; remove it and try again; nothing was written")


def clear_notes(app: Waymarks) -> str:
    return app.append_record(NOTE_ENTRY, {"schemaVersion": 1, "event": "clear"})


def active_notes(app: Waymarks) -> list[Note]:
    session = app.current_session()
    if session is None:
        return []
    session.refresh()
    return _active_in(session)


def _active_in(session: SessionLog) -> list[Note]:
    """The active notes of ``session`` as it was last read."""
    branch = session.branch_set()
    notes: list[Note] = []
    for entry in custom_entries(session, NOTE_ENTRY):
        data = entry.data
        if entry.id not in branch or not isinstance(data, dict):
            continue
        if data.get("event") == "clear":
            notes.clear()  # file order along one branch is tree order
        elif data.get("event") == "add" and isinstance(data.get("note"), dict):
            note = data["note"]
            if note.get("type") in NOTE_TYPES and isinstance(note.get("text"), str):
                text = note["text"]
                notes.append(Note(entry.id, note["type"],
                                  text[:cut_before_secret(text, MAX_NOTE_CHARS)],
                                  _created_at(note.get("createdAt"))))
    return notes


def left_out(app: Waymarks, lessons: list[Note]) -> int:
    """How many of the active lesson notes a prompt of ``lessons`` left out (each above
    what its destination may receive): a promotion says so, never "no lesson notes"."""
    return max(0, sum(n.type == "lesson" for n in active_notes(app)) - len(lessons))


def not_promoted(held: int, fix: str) -> str:
    """Why a promotion has no prompt: no lesson note, or ``held`` of them, each at a level
    the destination may not receive (``fix``: how to name one that may)."""
    if not held:
        return "There are no lesson notes on this branch to promote."
    return (f"{_lessons(held)} on this branch {'holds' if held == 1 else 'hold'} text at a "
            f"level this prompt's model may not receive (an internal or local-only part, "
            f"say): none is promoted. {fix}")


def some_left_out(held: int, fix: str) -> str:
    """The notice beside a prompt that left ``held`` lesson notes out (``fix``: as for
    :func:`not_promoted`)."""
    return (f"{_lessons(held)} left out of the prompt: text at a level its model may not "
            f"receive. {fix}")


def _lessons(count: int) -> str:
    return f"{count} lesson note" + ("" if count == 1 else "s")


def _created_at(value: object) -> int:
    return value if type(value) is int else 0


def promote_prompt(app: Waymarks, provider: str | None = None, *, history: bool = False
                   ) -> tuple[str | None, list[Note]]:
    """The promotion prompt for the active lesson notes (``None`` when there are none).

    The prompt goes to a model: each note goes through the destination's egress like any
    other stored text (the default classification; a note above what it may receive is
    left out, as a plan leaves out an item; credentials redacted for a remote provider); a
    note with nothing left is left out. The
    project's path is named in it through the same egress (:meth:`Egress.label`). With
    ``history`` the prompt stays in the host's conversation (Pi starts it as the person's
    turn), so it is rendered for every later model too (:meth:`ProviderPolicy.for_history`;
    ``PrivacyConfigError`` when that allows nothing). The lessons returned are as the
    prompt names them: their text and ledger IDs through the egress."""
    egress = egress_for(app, provider, history=history)
    lessons = []
    for note in active_notes(app):
        if note.type != "lesson" or not egress.admits(egress.level(note.text)):
            continue  # a note above the destination's levels is left out whole, as a plan
            # leaves out an item (only its span was withheld: the rest of it went out)
        shown = egress.text(note.text)
        if shown is not None:  # its ID is the ledger's (a hand edit's): labelled as well
            lessons.append(Note(egress.label(note.id), note.type, shown, note.created_at))
    if not lessons:
        return None, []
    return promotion_prompt(egress.label(app.cwd), [
        {"id": n.id, "type": n.type, "text": n.text} for n in lessons]), lessons
