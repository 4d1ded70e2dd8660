"""The typed-slot check looks rivals up one subject term at a time, so a term most claims
hold ("port", "timeout") made every write read and compare every claim of its partition:
an import of 5,000 "The service workerN listens on port N." lines took 336 s against 85 s
before the check (the hostile review of stop 68). A term more claims hold than
``claim_slots.COMMON_TERM`` names no subject alone; a rarer term still finds its rival."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core import claim_slots
from waymarks.service.app import Waymarks


def _compared(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = claim_slots.slots_conflict

    def counting(text: str, other: str) -> bool:
        seen.append(other)
        return real(text, other)

    monkeypatch.setattr(claim_slots, "slots_conflict", counting)
    return seen


def test_a_common_term_does_not_read_every_claim(
        app: Waymarks, monkeypatch: pytest.MonkeyPatch) -> None:
    many = claim_slots.COMMON_TERM + 12
    for i in range(many):
        _written(app, f"The service worker{i} listens on port {9000 + i}.")
    seen = _compared(monkeypatch)
    _written(app, "The ledger exporter listens on port 8125.")
    # before: each of the claims holding "port" was compared (60 here, every one a write)
    assert len(seen) < claim_slots.COMMON_TERM, len(seen)


def test_a_rare_term_still_finds_its_rival_among_many(app: Waymarks) -> None:
    for i in range(claim_slots.COMMON_TERM + 12):
        _written(app, f"The service worker{i} listens on port {9000 + i}.")
    _written(app, "The billing API listens on port 8085.")
    _refused(app, "Billing API: port 8086.")
