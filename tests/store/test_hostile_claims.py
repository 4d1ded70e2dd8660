"""A claim no write would accept, found in a session file, costs nothing but itself.

Writes cap a claim at ``MAX_CLAIM_CHARS``; a ledger written by hand or by other code is
read as it is. A duration of 5,000 digits in one made a claim's signature raise
(``ValueError``: Python converts at most 4,300 digits), and every ``rebuild-index`` and
every later memory write in its partition died with a traceback; a megabyte-long claim
took seconds to sign. Neither is one fact: no signature, as for any description.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from waymarks.core.contradiction import signature, subject_keys
from waymarks.core.model import MAX_CLAIM_CHARS
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

HUGE_DURATION = f"The timeout is {'9' * 5000} seconds."
MEGABYTE = "The timeout is 5 seconds. " * 40_000


def plant(session: Path, claim: str) -> None:
    """Append a memory ``add`` of ``claim`` to ``session``, as other code would write it."""
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "custom", "customType": "ds4-context-memory-v1", "data": {
        "schemaVersion": 1, "mutationId": str(uuid.uuid4()), "createdAt": 1,
        "operation": "add", "item": {"id": str(uuid.uuid4()), "scope": "session",
                                     "claim": claim, "createdAt": 1, "sourceEntryIds": []}},
        "timestamp": "2026-12-06T04:26:31.843Z", "id": uuid.uuid4().hex[:8],
        "parentId": last["id"]}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def test_a_text_longer_than_any_claim_has_no_signature() -> None:
    assert signature(HUGE_DURATION) is None
    assert subject_keys(MEGABYTE) == []
    claim = "The timeout is 5 seconds." + " " * (MAX_CLAIM_CHARS - 25)
    assert len(claim) == MAX_CLAIM_CHARS and signature(claim) is not None  # still one


def test_rebuild_and_writes_stand_beside_a_planted_huge_claim(app: Waymarks) -> None:
    assert isinstance(app.remember("The cache is 5 GB."), Committed)
    session = app.current_session()
    assert session is not None
    plant(Path(session.path), HUGE_DURATION)
    plant(Path(session.path), MEGABYTE)
    report = app.rebuild_index()
    assert report["mutations"] == 3 and report["unreadable"] == []
    assert isinstance(app.remember("The read timeout is 30 seconds."), Committed)


def test_a_claim_whose_signature_fails_costs_only_itself(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a future signature bug raises on one stored text, rebuild-index still
    rebuilds, lists the other claims for the contradiction check, and names that one."""
    from waymarks.store import claim_subjects

    bad = app.remember("The cursed flag is on.")
    assert isinstance(bad, Committed)
    assert isinstance(app.remember("The database port is 5432."), Committed)
    real = claim_subjects.subject_keys

    def fails_on_one(claim: str) -> list[str]:
        if "cursed" in claim:
            raise IndexError("a bug")
        return real(claim)

    monkeypatch.setattr(claim_subjects, "subject_keys", fails_on_one)
    report = app.rebuild_index()
    assert report["mutations"] == 2 and report["unsignedClaims"] == [bad.id]
    refused = app.remember("The database port is 5433.")  # still checked against the other
    assert not isinstance(refused, Committed)


def test_a_write_that_leaves_a_claim_unsigned_logs_it_and_health_names_it(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    """A normal write catches the subject index up with the claims added since, its own
    among them: one whose signature raised was left out there in silence (only
    ``rebuild-index`` named it), its contradictions unseen from then on. The write logs
    its ID (never its text), and ``health`` lists it until the index is caught up anew
    (rebuilt, or new signing code)."""
    from waymarks.commands.sessions import _health
    from waymarks.service.logs import LOG_DIR, LOG_FILE
    from waymarks.store import claim_subjects

    real = claim_subjects.subject_keys

    def fails_on_one(claim: str) -> list[str]:
        if "cursed" in claim:
            raise IndexError("a bug")
        return real(claim)

    monkeypatch.setattr(claim_subjects, "subject_keys", fails_on_one)
    bad = app.remember("The cursed flag is on.")
    assert isinstance(bad, Committed)  # (the ledger holds it)
    assert app.health()["unsignedClaims"] == [bad.id]  # caught up by its own write
    assert isinstance(app.remember("The database port is 5432."), Committed)
    report = app.health()
    assert report["unsignedClaims"] == [bad.id]
    assert "1 claim(s) left out of the contradiction check" in _health(report)[1]
    assert bad.id in _health(report)[1]
    logged = [json.loads(line) for line in
              (app.home / LOG_DIR / LOG_FILE).read_text(encoding="utf-8").splitlines()]
    said = [r for r in logged if r["event"] == "claims_unsigned"]
    assert [r["id"] for r in said] == [[bad.id]]
    assert "cursed" not in (app.home / LOG_DIR / LOG_FILE).read_text(encoding="utf-8")
    assert isinstance(app.remember("The cache holds 10 entries."), Committed)
    assert app.health()["unsignedClaims"] == [bad.id]  # kept, not logged again
    monkeypatch.setattr(claim_subjects, "subject_keys", real)
    app.rebuild_index()  # caught up anew by code that can sign it
    assert app.health()["unsignedClaims"] == []
