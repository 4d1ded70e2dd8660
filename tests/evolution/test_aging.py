"""Read-time aging and ranking factors (EVOLUTION items 29, 30, 32, 33): the seed's table,
and dormancy through the real CLI (never injected into a plan, still recallable)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import StepClock
from waymarks.core.evolution.aging import (
    accuracy_factor,
    age_days,
    aging,
    dormant,
    evidence_weight,
    freshness,
    utility_factor,
)
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution
from waymarks.service.learning import set_learning
from waymarks.service.ports import iso

AT = "2026-12-01T00:00:00.000Z"


@pytest.mark.parametrize(("kind", "half_life", "floor", "horizon"), [
    ("project_state", 3, 0.50, 7),
    ("fact", 60, 0.50, 180),
    ("decision", 120, 0.60, 365),
    ("preference", 240, 0.70, 730),
])
def test_the_seed_table(kind: str, half_life: float, floor: float, horizon: float) -> None:
    assert freshness(kind, 0) == 1.0
    assert freshness(kind, half_life) == pytest.approx(floor + (1 - floor) / 2)
    assert freshness(kind, 2 * half_life) == pytest.approx(floor + (1 - floor) / 4)
    assert freshness(kind, 100_000) == pytest.approx(floor, abs=1e-9)
    assert freshness(kind, -5) == 1.0  # negative ages clamp to 0
    assert not dormant(kind, horizon) and dormant(kind, horizon + 0.01)
    assert freshness(kind, 10_000, pinned=True) == 1.0
    assert not dormant(kind, 10_000, pinned=True)


def test_ages_run_from_the_confirmation_and_clamp() -> None:
    assert age_days("2026-01-01T00:00:00.000Z", "2026-01-11T00:00:00.000Z") == 10
    assert age_days("2026-02-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z") == 0
    assert age_days("not a date", "2026-01-01T00:00:00.000Z") == 0
    old = aging("project_state", "2026-01-01T00:00:00.000Z", "2026-01-09T00:00:00.000Z")
    assert old.dormant and old.freshness < 0.6


@pytest.mark.parametrize(("basis", "kind", "weight"), [
    ("summary", "fact", 1.04), ("user_statement", "fact", 1.08),
    ("user_statement", "preference", 1.12), ("tool_observation", "project_state", 1.12),
    ("manual_correction", "fact", 1.16), ("nonsense", "fact", 1.0),
])
def test_evidence_weight(basis: str, kind: str, weight: float) -> None:
    assert evidence_weight(basis, kind) == pytest.approx(weight)


def test_feedback_factors() -> None:
    assert (utility_factor("useful"), utility_factor("unhelpful"), utility_factor(None)) \
        == (1.05, 0.90, 1.0)
    assert (accuracy_factor("accurate"), accuracy_factor("incorrect"),
            accuracy_factor("useful")) == (1.05, 0.50, 1.0)


def learn(home: Path, origin: str, claim: dict[str, object], at: str) -> str:
    """Learn ``claim`` through the real capture and consolidation step, captured (so its
    evidence dated) at ``at``, with learning on (as it is whenever a claim is learned:
    where it is off, no plan injects one)."""
    set_learning(home, True)
    start = datetime.fromisoformat(at.replace("Z", "+00:00"))
    with Evolution(home, clock=StepClock(start)) as evo:
        src = evo.capture(origin, "statement", f"Remember: {claim['content']}", session="s",
                          key=str(claim["content"]))
        assert src is not None
        outcome = evo.apply(src.source_id, ModelReply(json.dumps({"claims": [claim]}), "f",
                                                      "m"), at)
        assert outcome.code == "applied", outcome
        return next(c.id for c in evo.claims(["provisional"])
                    if c.content == claim["content"])


def days_ago(days: float) -> str:
    """The evidence time ``days`` before now, for a claim that must stay injectable: the
    hooks and the CLI age claims on the real clock, so a fixed date turns one dormant once
    its kind's horizon has passed (a fact's 180 days), and the test fails from that day."""
    return iso(datetime.now(UTC) - timedelta(days=days))


def test_a_dormant_claim_is_never_injected_but_recallable_on_request(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    old = learn(home, str(tmp_path / "a"), {
        "kind": "project_state", "content": "The kamal deploy migration is half done",
        "searchTerms": ["kamal"]}, "2020-01-01T00:00:00.000Z")
    recalled = cli("recall", "kamal deploy migration status")
    assert [r["id"] for r in recalled["learned"]] == [old]  # explicit request: recallable
    plan = cli("plan", "--", "kamal deploy migration status")
    assert "learned" not in [m["kind"] for m in plan["messages"]]
    # a fresh claim on the same subject is injected, and stored state is untouched
    fresh = learn(home, str(tmp_path / "b"), {
        "kind": "fact", "content": "The kamal deploy migration uses two stages",
        "searchTerms": ["kamal"]}, "2099-01-01T00:00:00.000Z")
    plan = cli("plan", "--", "kamal deploy migration status")
    block = next(m["content"] for m in plan["messages"] if m["kind"] == "learned")
    assert fresh in block and old not in block
    with Evolution(home) as evo:
        claim = evo.claim(old)
        assert claim is not None and claim.state == "provisional"
        assert claim.updated_at.startswith("2020-01-01T00:00:00")


def _source(evo: Evolution, text: str, key: str) -> str:
    src = evo.capture("/w/a", "statement", text, session="s", key=key)
    assert src is not None
    return src.source_id


def test_a_source_that_mentions_a_claim_and_leaves_it_standing_confirms_it(
        tmp_path: Path) -> None:
    old = StepClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Evolution(tmp_path, clock=old) as evo:
        first = _source(evo, "Remember: the staging port is 8080", "1")
        reply = {"claims": [{"kind": "fact", "content": "The staging port is 8080"}]}
        assert evo.apply(first, ModelReply(json.dumps(reply), "f", "m"), AT).code == "applied"
        [claim] = evo.claims(["provisional"])
    now = "2026-12-01T00:00:00.000Z"
    assert aging(claim.kind, claim.confirmed_at, now).dormant
    later = StepClock(datetime(2026, 11, 20, tzinfo=UTC))
    with Evolution(tmp_path, clock=later) as evo:
        second = _source(evo, "Remember: the staging port is 8080, as before", "2")
        assert evo.apply(second, ModelReply('{"claims": []}', "f", "m"), AT).code == "no_change"
        confirmed = evo.claim(claim.id)
    assert confirmed is not None and confirmed.updated_at == claim.updated_at  # never moves
    assert confirmed.reinforced_at.startswith("2026-11-20")
    assert not aging(confirmed.kind, confirmed.confirmed_at, now).dormant
    with Evolution(tmp_path) as evo:  # not a claim-changing event: nothing to undo
        assert [e.op for e in evo.store.history(10, claim.id)] == ["claim"]


def test_a_source_on_another_subject_does_not_confirm_a_claim(tmp_path: Path) -> None:
    """Seen through `waymarks evolve`: "Remember: the deploy branch is release." confirmed
    "The database port is 5433" (they share "the" and "is"), so any later statement kept
    an old claim fresh and never let it go dormant."""
    with Evolution(tmp_path, clock=StepClock(datetime(2026, 1, 1, tzinfo=UTC))) as evo:
        first = _source(evo, "Remember: the database port is 5433", "1")
        reply = {"claims": [{"kind": "fact", "content": "The database port is 5433"}]}
        assert evo.apply(first, ModelReply(json.dumps(reply), "f", "m"), AT).code == "applied"
        [claim] = evo.claims(["provisional"])
    with Evolution(tmp_path, clock=StepClock(datetime(2026, 11, 20, tzinfo=UTC))) as evo:
        second = _source(evo, "Remember: the deploy branch is release.", "2")
        request = evo.request_for(second)
        assert request is not None and claim.id not in request.prompt
        assert evo.apply(second, ModelReply('{"claims": []}', "f", "m"), AT).code == "no_change"
        again = evo.claim(claim.id)
    assert again is not None and again.reinforced_at == claim.reinforced_at


def test_project_state_is_not_confirmed_by_being_mentioned(tmp_path: Path) -> None:
    with Evolution(tmp_path, clock=StepClock(datetime(2026, 1, 1, tzinfo=UTC))) as evo:
        first = _source(evo, "Remember: the migration is half done", "1")
        reply = {"claims": [{"kind": "project_state", "content": "The migration is half done"}]}
        evo.apply(first, ModelReply(json.dumps(reply), "f", "m"), AT)
        [claim] = evo.claims(["provisional"])
    with Evolution(tmp_path, clock=StepClock(datetime(2026, 11, 20, tzinfo=UTC))) as evo:
        second = _source(evo, "Remember: the migration is half done still", "2")
        evo.apply(second, ModelReply(json.dumps(reply), "f", "m"), AT)
        again = evo.claim(claim.id)
    assert again is not None and again.reinforced_at == ""


def test_a_dormant_claim_is_still_offered_as_a_replacement_candidate() -> None:
    """Item 30: dormancy keeps a claim out of automatic injection only; a source that
    mentions it is still offered it to replace (and nothing is deleted by age)."""
    from waymarks.core.evolution.model import claim_id
    from waymarks.core.evolution.request import offered
    from waymarks.core.evolution.rows import ClaimRow, SourceRow

    content = "The kamal deploy migration is half done"
    old = ClaimRow(claim_id("/w", "project_state", content), "/w", "project_state", content,
                   "provisional", "user_statement", "model", "s0", "2020-01-01T00:00:00.000Z",
                   1)
    assert aging(old.kind, old.confirmed_at, "2026-12-01T00:00:00.000Z").dormant
    source = SourceRow("s1", "/w", "statement", "user_statement",
                       "The kamal deploy migration is done now", "normal",
                       "2026-12-01T00:00:00.000Z", "s", 2)
    assert offered(source, [old]) == [old]


def test_a_pinned_claim_is_never_offered_for_replacement() -> None:
    """A review (F1): a learned claim the person pinned was still listed under RECORDS, so
    a model that corrected it with another claim had its whole reply refused (``pinned``),
    the other, valid correction lost with it. Neither request offers a pinned claim."""
    from waymarks.core.evolution import progress
    from waymarks.core.evolution.model import claim_id
    from waymarks.core.evolution.request import offered
    from waymarks.core.evolution.rows import ClaimRow, SourceRow
    from waymarks.core.records import replace as copy

    def row(kind: str, content: str) -> ClaimRow:
        return ClaimRow(claim_id("/w", kind, content), "/w", kind, content, "provisional",
                        "user_statement", "model", "s0", "2026-11-01T00:00:00.000Z", 1)

    port, path = row("fact", "The dev server port is 8080"), row("fact",
                                                                  "The API base path is /v2")
    said = SourceRow("s1", "/w", "statement", "user_statement", "From now on: the dev server "
                     "port is 3000, and the API base path is /v3", "normal",
                     "2026-12-01T00:00:00.000Z", "s", 2)
    assert offered(said, [port, path]) == [path, port]
    assert offered(said, [port, copy(path, pinned=True)]) == [port]
    state = row("project_state", "The billing migration is half done")
    work = SourceRow("s2", "/w", progress.PROGRESS_KIND, "tool_observation",
                     json.dumps({"targets": [state.id]}), "normal",
                     "2026-12-01T00:00:00.000Z", "s", 3)
    assert progress.offered(work, [state]) == [state]
    assert progress.offered(work, [copy(state, pinned=True)]) == []
