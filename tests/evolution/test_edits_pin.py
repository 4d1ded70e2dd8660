"""Pins for learned claims (EVOLUTION item 32): freshness 1, exempt from dormancy and from
replacement by the model, no credibility bonus, no revival of a conflict; an event that
``undo`` takes back exactly; through the fold, the decision, ranking, the real CLI and the
MCP edit tool (confirmed by the person)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.test_aging import learn
from tests.evolution.test_rank import NOW
from tests.mcp_server.test_learned_memory_tool import call
from tests.mcp_server.test_remember_tool import Person
from waymarks.core.evolution.decide import Target, _replacement_refusal
from waymarks.core.evolution.fold import MemoryEvoView
from waymarks.core.evolution.model import (
    SCHEMA_VERSION,
    ClaimRecord,
    ConflictRecord,
    Evidence,
    PinRecord,
    UndoRecord,
    claim_id,
    decode_record,
    encode_record,
)
from waymarks.core.evolution.rows import ClaimRow, SourceRow, from_snapshot, snapshot
from waymarks.recall.plan import direct_plan
from waymarks.service import evolution_analysis as ea
from waymarks.service import evolution_rank as er
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution

OLD = "2020-01-01T00:00:00.000Z"  # project state this old is dormant and faded


def _record(content: str, kind: str = "project_state", origin: str = "/w") -> ClaimRecord:
    return ClaimRecord(SCHEMA_VERSION, claim_id(origin, kind, content), origin, kind,  # type: ignore[arg-type]
                       content, Evidence("summary", "model", "s1", OLD), "provisional")


def test_pin_is_an_event_that_undo_takes_back_and_keeps_state_and_dates() -> None:
    view = MemoryEvoView()
    a = _record("The kamal deploy migration is half done")
    b = _record("The kamal deploy migration is finished")
    assert view.apply(a, 1).applied and view.apply(b, 2).applied
    before = snapshot(view.claims[a.id])
    pinned = view.apply(PinRecord(SCHEMA_VERSION, a.id, True, NOW), 3)
    assert pinned.applied and pinned.op == "pin"
    row = view.claims[a.id]
    assert row.pinned and row.updated_at == OLD and row.state == "provisional"
    assert snapshot(row)["pinned"] is True and from_snapshot(snapshot(row), 1).pinned
    assert "pinned" not in before  # older snapshots stay comparable
    assert not view.apply(PinRecord(SCHEMA_VERSION, a.id, True, NOW), 4).applied  # repeated
    assert view.apply(UndoRecord(SCHEMA_VERSION, 3, NOW), 5).applied
    assert snapshot(view.claims[a.id]) == before
    # a conflict stays one: pinning does not revive a conflicted claim
    assert view.apply(ConflictRecord(SCHEMA_VERSION, a.id, b.id, NOW), 6).applied
    assert view.apply(PinRecord(SCHEMA_VERSION, a.id, True, NOW), 7).applied
    assert view.claims[a.id].state == "conflicted" and view.claims[a.id].pinned
    record = PinRecord(SCHEMA_VERSION, a.id, False, NOW)
    assert decode_record(encode_record(record)) == record


def test_a_pinned_claim_is_never_replaced_by_the_model() -> None:
    source = SourceRow("src", "/w", "summary", "summary", "text", "public", NOW, "s", 9)
    plain = Target("evolved", "/w", "fact", "provisional", OLD, "summary")
    pinned = Target("evolved", "/w", "fact", "provisional", OLD, "summary", pinned=True)

    class Lookup:
        def __init__(self, target: Target) -> None:
            self.found = target

        def target(self, _record_id: str) -> Target | None:
            return self.found

        def exists(self, _claim_id: str) -> bool:
            return True

        def forgotten(self, _origin: str, _content: str) -> bool:
            return False

    from waymarks.core.evolution.contract import ProposedClaim

    claim = ProposedClaim("fact", "The port is 8443", "t", ())
    assert _replacement_refusal(source, claim, "t", frozenset({"t"}), set(),
                                Lookup(plain)) is None
    assert _replacement_refusal(source, claim, "t", frozenset({"t"}), set(),
                                Lookup(pinned)) == "pinned"
    # and the fold, defensively, never supersedes a pinned claim
    view = MemoryEvoView()
    old = _record("The port is 8080", "fact")
    view.apply(old, 1)
    view.apply(PinRecord(SCHEMA_VERSION, old.id, True, NOW), 2)
    new = ClaimRecord(SCHEMA_VERSION, claim_id("/w", "fact", "The port is 8443"), "/w",
                      "fact", "The port is 8443", Evidence("summary", "model", "s2", NOW),
                      "provisional", old.id)
    assert view.apply(new, 3).reason == "replacement_ignored"
    assert view.claims[old.id].state == "provisional"


def test_pinned_claims_rank_fresh_never_dormant_without_a_bonus() -> None:
    content = "The kamal deploy migration is half done"
    row = ClaimRow(claim_id("/w", "project_state", content), "/w", "project_state", content,
                   "provisional", "summary", "model", "s", OLD, 1)
    pin = ClaimRow(**{**{f: getattr(row, f) for f in row.__slots__}, "pinned": True})  # type: ignore[attr-defined]
    ea._CACHE.clear()
    base = ea.base_candidate(row, None, 0)
    aged, dormant = er.with_factors(base, row, NOW)
    kept, kept_dormant = er.with_factors(base, pin, NOW)
    assert dormant and aged.freshness < 1.0
    assert not kept_dormant and kept.freshness == 1.0
    assert kept.evidence_weight == aged.evidence_weight  # no credibility bonus
    plan = direct_plan("kamal deploy migration status")
    assert er.rank(plan, [(row, base)], NOW, automatic=True).eligible == []
    assert [s.candidate.id for s in er.rank(plan, [(pin, base)], NOW,
                                            automatic=True).eligible] == [row.id]


def test_pin_through_the_cli_injects_a_dormant_claim_and_undo_takes_it_back(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    old = learn(home, str(tmp_path / "a"), {
        "kind": "project_state", "content": "The kamal deploy migration is half done",
        "searchTerms": ["kamal"]}, OLD)
    plan = cli("plan", "--", "kamal deploy migration status")
    assert "learned" not in [m["kind"] for m in plan["messages"]]  # dormant
    dated = cli("evolution", "show", old)["evidence"]["at"]
    done = cli("evolution", "pin", old)
    assert done["ok"] and done["pinned"] is True and done["event"]
    shown = cli("evolution", "show", old)
    assert shown["pinned"] and shown["aging"]["freshness"] == 1.0
    assert shown["evidence"]["at"] == dated  # evidence dates kept
    plan = cli("plan", "--", "kamal deploy migration status")
    block = next(m["content"] for m in plan["messages"] if m["kind"] == "learned")
    assert old in block
    assert cli("evolution", "pin", old, expect=2)["code"] == "bad_input"
    assert cli("evolution", "pin", "f" * 24, expect=2)["code"] == "not_found"
    assert cli("evolution", "undo", str(done["event"]))["undone"] == done["event"]
    assert cli("evolution", "show", old)["pinned"] is False
    plan = cli("plan", "--", "kamal deploy migration status")
    assert "learned" not in [m["kind"] for m in plan["messages"]]
    assert cli("evolution", "unpin", old, expect=2)["code"] == "bad_input"


@pytest.mark.slow
def test_pin_over_mcp_asks_the_person_first(app: Waymarks, tmp_path: Path) -> None:
    claim = learn(app.home, str(tmp_path / "elsewhere"), {
        "kind": "decision", "content": "Deployments use Kamal, not Capistrano",
        "searchTerms": ["deploy tool", "kamal"]}, OLD)
    no = Person("decline")
    assert call(app, "learned_memory_edit", {"action": "pin", "id": claim}, no)[
        "outcome"] == "cancelled" and "Kamal" in no.asked[0]
    with Evolution(app.home) as evo:
        assert evo.claim(claim).pinned is False  # type: ignore[union-attr]
    yes = Person()
    assert call(app, "learned_memory_edit", {"action": "pin", "id": claim}, yes)[
        "outcome"] == "done" and yes.asked
    with Evolution(app.home) as evo:
        assert evo.claim(claim).pinned is True  # type: ignore[union-attr]
    again = Person()
    assert call(app, "learned_memory_edit", {"action": "unpin", "id": claim}, again)[
        "outcome"] == "done"
    with Evolution(app.home) as evo:
        assert evo.claim(claim).pinned is False  # type: ignore[union-attr]
