"""Two writers noting the same thing at once (a model's parallel tool calls, two agents
in one session): the note is appended once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from waymarks.personal import notes
from waymarks.personal.notes import active_notes, add_note
from waymarks.service.app import Waymarks


def test_a_note_another_writer_adds_meanwhile_is_not_appended_again(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """The check for the same active note ran outside the session's lock: a note another
    process added between that check and the append was appended again (six agents
    adding one lesson at once left four copies, each said "Added", and `notes promote`
    listed it four times). The other writer here adds it in that window."""
    first, other = make_app(), make_app()
    add_note(first, "An earlier lesson")
    other_session = other.current_session()
    assert other_session is not None and other_session.path == first.current_session().path
    real = notes.epoch_ms

    def meanwhile(now: datetime) -> int:
        monkeypatch.setattr(notes, "epoch_ms", real)
        add_note(other, "Run migrations in one transaction")
        return real(now)

    monkeypatch.setattr(notes, "epoch_ms", meanwhile)
    note, added = add_note(first, "run migrations in one  transaction")
    assert notes.epoch_ms is real  # the other writer did run in the window
    texts = [n.text for n in active_notes(first)]
    assert texts == ["An earlier lesson", "Run migrations in one transaction"]
    assert (added, note.text, note.id) == (False, texts[1], active_notes(other)[1].id)
