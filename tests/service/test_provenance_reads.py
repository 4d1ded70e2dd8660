"""``memory show`` reads a session's whole ledger only to date the claim's source
entries: a claim with none was shown after reading all of it (2 s of CPU for a session
of 60k entries)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from waymarks.ledger.log import SessionLog
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.provenance import provenance


def test_a_claim_without_source_entries_is_shown_without_reading_the_ledger(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    writer = make_app(ids=CountingIds(3))
    said = writer.session_say("The queue is drained nightly")
    plain = writer.remember("The worker drains queue q1.", scope="session")
    sourced = writer.remember("The worker drains queue q2.", scope="session",
                              sources=(said,))
    assert isinstance(plain, Committed) and isinstance(sourced, Committed)
    session = writer.current_session()
    assert session is not None
    writer.close()
    reads: list[str] = []
    real = SessionLog._materialize

    def counted(self: SessionLog, *, again: bool = False) -> None:
        if self._index is not None or again:  # (a reader resumed at its checkpoint)
            reads.append(self.session_id)
        real(self, again=again)

    monkeypatch.setattr(SessionLog, "_materialize", counted)
    reader = make_app(session=str(session.path))
    shown = provenance(reader, "memory", plain.id)
    assert shown is not None and shown.sources == () and reads == []
    dated = provenance(reader, "memory", sourced.id)
    assert dated is not None and [(s.id, s.type) for s in dated.sources] == [(said, "message")]


def test_source_entries_are_dated_without_reading_every_entry(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim with sources read the whole ledger too (60k entries: 3 s): only the lines
    naming a source are decoded, by the reader's rules (a later line with the same ID, or
    an ``"id"`` inside another entry's data, is not the entry)."""
    import json

    writer = make_app(ids=CountingIds(3))
    said = writer.session_say("The queue is drained nightly")
    sourced = writer.remember("The worker drains queue q2.", scope="session",
                              sources=(said,))
    assert isinstance(sourced, Committed)
    session = writer.current_session()
    assert session is not None
    writer.close()
    with session.path.open("a") as ledger:  # not the entry: a later copy of its ID
        ledger.write(json.dumps({"type": "label", "id": said, "parentId": None,
                                 "timestamp": "2030-01-01T00:00:00.000Z"}) + "\n")
    reads: list[str] = []
    real = SessionLog._materialize

    def counted(self: SessionLog, *, again: bool = False) -> None:
        if self._index is not None or again:
            reads.append(self.session_id)
        real(self, again=again)

    monkeypatch.setattr(SessionLog, "_materialize", counted)
    reader = make_app(session=str(session.path))
    dated = provenance(reader, "memory", sourced.id)
    assert dated is not None and reads == []
    [source] = dated.sources
    whole = reader.current_session()  # the whole read's answer, for comparison
    assert whole is not None
    assert (source.id, source.type, source.timestamp) == (
        said, "message", whole.by_id[said].timestamp)
