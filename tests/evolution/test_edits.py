"""Events, undo, forget, correct, conflict/resolve and feedback on learned claims
(EVOLUTION items 34, 36, 71-74): property tests over the pure fold, the same sequences
through real ledger files and real SQLite (incremental == rebuilt after deleting the
database), and the service's validation."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from tests.conftest import CountingIds, StepClock
from waymarks.core.evolution.fold import MemoryEvoView
from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    ClaimRecord,
    ConflictRecord,
    CorrectRecord,
    Evidence,
    EvolutionRecord,
    FeedbackRecord,
    ForgetRecord,
    ResolveRecord,
    UndoRecord,
    claim_id,
    encode_record,
)
from waymarks.core.evolution.rows import snapshot, suppression_key
from waymarks.service import evolution_edits as edits
from waymarks.service.evolution import Evolution
from waymarks.store.evolution import EvolutionStore

ORIGINS = ["/w/a", "/w/b"]
CONTENTS = ["port is 8080", "port is 9090", "prefers tabs", "uses postgres"]
KINDS = ["fact", "preference"]
T0 = "2026-06-01T10:00:00.000Z"
T1 = "2026-07-01T10:00:00.000Z"


def _id(o: int, k: int, c: int) -> str:
    return claim_id(ORIGINS[o % 2], KINDS[k % 2], CONTENTS[c % 4])


def _claim(o: int, k: int, c: int, replaces: int | None) -> ClaimRecord:
    target = None if replaces is None else _id(replaces, replaces, replaces)
    return ClaimRecord(SCHEMA_VERSION, _id(o, k, c), ORIGINS[o % 2], KINDS[k % 2],  # type: ignore[arg-type]
                       CONTENTS[c % 4], Evidence("user_statement", "model", "s1", T0),
                       "provisional", target, None, ("alias",))


ix = st.integers(0, 3)
claim_ids = st.builds(_id, ix, ix, ix)
claims = st.builds(_claim, ix, ix, ix, st.none() | ix)
edits_st = st.one_of(
    st.builds(lambda i: ForgetRecord(SCHEMA_VERSION, i, T1), claim_ids),
    st.builds(lambda i, v, s: FeedbackRecord(SCHEMA_VERSION, i, v, s, T1), claim_ids,
              st.sampled_from(["useful", "unhelpful", "accurate", "incorrect"]),
              st.sampled_from(["m1", "m2"])),
    st.builds(lambda i, c: CorrectRecord(SCHEMA_VERSION, i, CONTENTS[c], T1), claim_ids, ix),
    st.builds(lambda a, b: ConflictRecord(SCHEMA_VERSION, a, b, T1), claim_ids, claim_ids),
    st.builds(lambda i: ResolveRecord(SCHEMA_VERSION, i, T1), claim_ids),
)
records = st.one_of(claims, edits_st,
                    st.builds(lambda n: UndoRecord(SCHEMA_VERSION, n, T1), st.integers(1, 30)))


def _fold_all(view: MemoryEvoView, recs: list[EvolutionRecord]) -> None:
    for seq, record in enumerate(recs, start=1):
        view.apply(record, seq)


def _strip(snap: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in snap.items() if k != "reinforcedAt"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(claims, edits_st), max_size=20), edits_st)
@pytest.mark.slow
def test_undo_of_an_applied_edit_restores_every_claim_exactly(
        prefix: list[EvolutionRecord], edit: EvolutionRecord) -> None:
    view = MemoryEvoView()
    _fold_all(view, prefix)
    before = {cid: snapshot(row) for cid, row in view.claims.items()}
    seq = len(prefix) + 1
    effect = view.apply(edit, seq)
    if not effect.applied or not effect.changes:
        return
    undone = view.apply(UndoRecord(SCHEMA_VERSION, seq, T1), seq + 1)
    assert undone.applied, undone
    for cid, row in view.claims.items():
        if cid in before:
            assert _strip(snapshot(row)) == _strip(before[cid])
        else:  # created by the edit: a tombstone, never recallable, never erased
            assert row.state == "forgotten"


@settings(max_examples=200, deadline=None)
@given(st.lists(records, max_size=15), ix, ix, st.lists(st.tuples(ix, st.booleans()),
                                                          min_size=1, max_size=6))
@pytest.mark.slow
def test_forget_then_any_recapture_in_that_origin_never_revives(
        prefix: list[EvolutionRecord], o: int, c: int,
        again: list[tuple[int, bool]]) -> None:
    view = MemoryEvoView()
    first = _claim(o, 0, c, None)
    _fold_all(view, [first, *prefix])
    seq = len(prefix) + 2
    view.apply(ForgetRecord(SCHEMA_VERSION, first.id, T1), seq)
    assert suppression_key(ORIGINS[o % 2], CONTENTS[c % 4]) in view.suppressions
    for k, as_correction in again:
        seq += 1
        if as_correction:
            others = [r for r in view.claims.values() if r.origin == ORIGINS[o % 2]]
            if others:
                view.apply(CorrectRecord(SCHEMA_VERSION, others[0].id, CONTENTS[c % 4], T1),
                           seq)
            continue
        view.apply(replace(_claim(o, k, c, None),
                           evidence=Evidence("summary", "local", f"s{seq}", T1)), seq)
    live = [r for r in view.claims.values() if r.origin == ORIGINS[o % 2]
            and r.content == CONTENTS[c % 4] and r.state == "provisional"]
    assert live == []


def test_forgetting_a_tombstone_still_forgets_its_live_twin() -> None:
    """Found by the property above: the claim's creation undone (a tombstone), the same
    content learned under another kind, then the tombstone forgotten — the twin must go."""
    view = MemoryEvoView()
    _fold_all(view, [_claim(0, 0, 0, None), UndoRecord(SCHEMA_VERSION, 1, T1),
                     _claim(0, 1, 0, None)])
    assert view.claims[_id(0, 0, 0)].state == "forgotten"
    assert view.claims[_id(0, 1, 0)].state == "provisional"
    effect = view.apply(ForgetRecord(SCHEMA_VERSION, _id(0, 0, 0), T1), 4)
    assert (effect.applied, effect.reason) == (True, "suppressed")
    assert view.claims[_id(0, 1, 0)].state == "forgotten"
    assert view.apply(ForgetRecord(SCHEMA_VERSION, _id(0, 0, 0), T1), 5).reason == \
        "already_forgotten"


def test_feedback_replay_and_undo_never_double_apply() -> None:
    view = MemoryEvoView()
    claim = _claim(0, 0, 0, None)
    view.apply(claim, 1)
    verdict = FeedbackRecord(SCHEMA_VERSION, claim.id, "incorrect", "msg-1", T1)
    assert view.apply(verdict, 2).applied
    assert view.claims[claim.id].state == "conflicted"
    assert view.apply(verdict, 3).reason == "duplicate_receipt"  # replay
    assert view.apply(UndoRecord(SCHEMA_VERSION, 2, T1), 4).applied
    assert view.claims[claim.id].state == "provisional"
    assert view.claims[claim.id].accuracy is None
    assert view.apply(verdict, 5).reason == "duplicate_receipt"  # replay after undo
    assert view.claims[claim.id].state == "provisional"
    other = FeedbackRecord(SCHEMA_VERSION, claim.id, "useful", "msg-2", T1)
    assert view.apply(other, 6).applied
    again = FeedbackRecord(SCHEMA_VERSION, claim.id, "useful", "msg-3", T1)
    assert view.apply(again, 7).reason == "repeated"  # a repeated verdict adds nothing
    stale = FeedbackRecord(SCHEMA_VERSION, claim.id, "unhelpful", "msg-4",
                           "2026-01-01T00:00:00.000Z")
    assert view.apply(stale, 8).reason == "older_than_evidence"


def test_incorrect_quarantines_same_origin_duplicates_only() -> None:
    view = MemoryEvoView()
    a, twin, elsewhere = _claim(0, 0, 0, None), _claim(0, 1, 0, None), _claim(1, 0, 0, None)
    _fold_all(view, [a, twin, elsewhere])
    view.apply(FeedbackRecord(SCHEMA_VERSION, a.id, "incorrect", "m", T1), 4)
    assert [view.claims[i].state for i in (a.id, twin.id, elsewhere.id)] == [
        "conflicted", "conflicted", "provisional"]
    # positive feedback cannot revive it
    view.apply(FeedbackRecord(SCHEMA_VERSION, a.id, "accurate", "m2", T1), 5)
    assert view.claims[a.id].state == "conflicted"


def test_undo_refuses_when_the_claim_changed_since() -> None:
    view = MemoryEvoView()
    claim = _claim(0, 0, 0, None)
    view.apply(claim, 1)
    view.apply(FeedbackRecord(SCHEMA_VERSION, claim.id, "useful", "m1", T1), 2)
    view.apply(FeedbackRecord(SCHEMA_VERSION, claim.id, "unhelpful", "m2", T1), 3)
    assert view.apply(UndoRecord(SCHEMA_VERSION, 2, T1), 4).reason == "changed_since"
    assert view.apply(UndoRecord(SCHEMA_VERSION, 3, T1), 5).applied
    assert view.apply(UndoRecord(SCHEMA_VERSION, 2, T1), 6).applied
    assert view.claims[claim.id].utility is None


def _dump(store: EvolutionStore) -> tuple[object, ...]:
    changes = store.db.execute("SELECT seq, claim_id, before, after FROM evo_changes"
                               " ORDER BY seq, claim_id").fetchall()
    receipts = store.db.execute("SELECT * FROM evo_receipts ORDER BY seq").fetchall()
    events = store.db.execute("SELECT seq, op, subject, applied, reason, actor, at"
                              " FROM evo_events ORDER BY seq").fetchall()
    return (store.claims(), events, changes, receipts, store.suppressions())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(records, st.booleans()), max_size=20))
@pytest.mark.slow
def test_deleting_the_database_brings_every_event_receipt_and_suppression_back(
        steps: list[tuple[EvolutionRecord, bool]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        evo = Evolution(home, clock=StepClock(), ids=CountingIds(3))
        memory = MemoryEvoView()
        for seq, (record, sync_now) in enumerate(steps, start=1):
            memory.apply(record, seq)
            with evo.ledger.locked():
                evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                                   "data": encode_record(record), "timestamp": T1},
                                  evo.ids.entry_id)
            if sync_now:
                evo.sync()
        evo.sync()
        incremental = _dump(evo.store)
        evo.close()
        for path in home.glob("waymarks.db*"):
            path.unlink()
        again = Evolution(home, clock=StepClock(), ids=CountingIds(4))
        again.sync()
        assert _dump(again.store) == incremental
        again.close()
        assert sorted(memory.claims.values(), key=lambda c: c.id) == sorted(
            incremental[0], key=lambda c: c.id)  # type: ignore[arg-type]
        assert sorted(memory.suppressions) == incremental[4]


# -- the service: validation, read-back, retiring repeats ------------------------------


def _evo(home: Path) -> Evolution:
    return Evolution(home, clock=StepClock(datetime(2026, 8, 1, tzinfo=UTC)),
                     ids=CountingIds(7))


def _seed(evo: Evolution, *recs: EvolutionRecord) -> None:
    with evo.ledger.locked():
        evo._append(recs)


def test_service_edits_validate_and_report_events(tmp_path: Path) -> None:
    evo = _evo(tmp_path)
    a, b = _claim(0, 0, 0, None), _claim(0, 0, 1, None)
    _seed(evo, a, b)
    assert edits.forget(evo, "0" * 24).code == "not_found"
    assert edits.correct(evo, a.id, "no").code == "bad_input"
    assert edits.correct(evo, a.id, CONTENTS[1]).code == "duplicate"
    assert edits.conflict(evo, a.id, a.id).code == "bad_input"
    done = edits.conflict(evo, a.id, b.id)
    assert done.ok and done.event is not None
    assert {evo.claim(a.id).state, evo.claim(b.id).state} == {"conflicted"}  # type: ignore[union-attr]
    assert edits.resolve(evo, b.id).ok
    assert edits.undo(evo, done.event).code == "changed_since"  # b changed after it
    fixed = edits.correct(evo, b.id, "port is 7070")
    assert fixed.ok and evo.claim(fixed.data["correctedBy"]).basis == "manual_correction"  # type: ignore[union-attr]
    undone = edits.undo(evo, fixed.event)  # type: ignore[arg-type]
    assert undone.ok and undone.event is not None
    assert evo.claim(b.id).state == "provisional"  # type: ignore[union-attr]
    assert evo.claim(fixed.data["correctedBy"]).state == "forgotten"  # type: ignore[union-attr]
    # undoing it again said "changed after event N; undo the later events first": the
    # later event is the undo itself, and undoing that brings the correction back
    again = edits.undo(evo, fixed.event)  # type: ignore[arg-type]
    assert again.code == "changed_since"
    assert f"already undone by event {undone.event}" in again.message
    assert edits.undo(evo, 10_000).code == "not_found"
    evo.close()


def test_a_correction_holding_a_credential_is_refused_and_nothing_changes(
        tmp_path: Path) -> None:
    # as `memory add` refuses it (found in review: the correction was stored)
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 4, None)
    _seed(evo, claim)
    before = evo.ledger.path.read_bytes()
    out = edits.correct(evo, claim.id, "The staging DB_PASSWORD=Xk92mLq8vZ7pQ3wR")
    assert not out.ok and out.code == "credential"
    assert "Xk92mLq8vZ7pQ3wR" not in out.message
    assert evo.ledger.path.read_bytes() == before
    assert evo.claim(claim.id).state == "provisional"  # type: ignore[union-attr]
    evo.close()


def test_forget_and_incorrect_retire_queued_sources_that_repeat_the_claim(
        tmp_path: Path) -> None:
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 2, None)
    _seed(evo, claim)
    repeat = evo.capture(ORIGINS[0], "statement", "Remember: prefers tabs, always",
                         session="s", key="1")
    unrelated = evo.capture(ORIGINS[0], "statement", "Remember: we use uv", session="s",
                            key="2")
    other_origin = evo.capture(ORIGINS[1], "statement", "Remember: prefers tabs",
                               session="s", key="3")
    assert repeat and unrelated and other_origin
    out = edits.forget(evo, claim.id)
    assert out.ok and out.data["retiredSources"] == 1
    settled = {s.source_id: s.settled for s in evo.store.sources()}
    assert settled[repeat.source_id] == "forgotten"
    assert settled[unrelated.source_id] is None and settled[other_origin.source_id] is None
    assert edits.forget(evo, claim.id).code == "not_active"
    evo.close()


def test_a_forgotten_claim_cannot_be_corrected_pinned_or_unpinned(tmp_path: Path) -> None:
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 5, None)
    _seed(evo, claim)
    assert edits.forget(evo, claim.id).ok
    before = evo.ledger.path.read_bytes()
    for edit, done in ((lambda: edits.correct(evo, claim.id, "Prefers spaces, four of them"),
                        "corrected"),
                       (lambda: edits.pin(evo, claim.id), "pinned or unpinned"),
                       (lambda: edits.pin(evo, claim.id, False), "pinned or unpinned")):
        out = edit()
        assert not out.ok and out.code == "not_active", out
        assert out.message == (f"{claim.id} is forgotten; only a provisional or conflicted "
                               f"claim can be {done}")
    assert evo.ledger.path.read_bytes() == before
    evo.close()


def test_feedback_through_the_service_is_idempotent_per_source(tmp_path: Path) -> None:
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 3, None)
    _seed(evo, claim)
    assert edits.feedback(evo, claim.id, "meh").code == "bad_input"
    first = edits.feedback(evo, claim.id, "useful", "msg-1")
    assert first.ok and first.data["changed"] and first.event
    replay = edits.feedback(evo, claim.id, "useful", "msg-1")
    assert replay.ok and not replay.data["changed"]
    assert [r[1] for r in evo.store.receipts(claim.id)] == ["useful"]
    wrong = edits.natural_feedback(evo, f"memory {claim.id} is incorrect.", "msg-2")
    assert wrong is not None and wrong.ok and evo.claim(claim.id).state == "conflicted"  # type: ignore[union-attr]
    # the receipt names the event that undoes it (it said "undo EVENT", the event only
    # in --json; in Pi and Claude Code the receipt is all the person sees)
    assert f"`waymarks evolution undo {wrong.event}`" in wrong.message
    unknown = edits.natural_feedback(evo, f"memory {'a' * 24} is useful", "msg-3")
    assert unknown is not None and unknown.code == "not_found"  # refused, never raised
    assert edits.natural_feedback(evo, "memory is wrong", "msg-4") is None
    evo.close()


def test_undo_keeps_suppression_and_a_metadata_undo_retires_nothing(tmp_path: Path) -> None:
    """Item 72 (the original's F8): an undo never clears a suppression and never reopens
    or retires a source; undoing a metadata-only edit (a pin, a verdict) neither blocks
    the content nor settles the queued sources that repeat it."""
    evo = _evo(tmp_path)
    claim, other = _claim(0, 0, 2, None), _claim(0, 0, 3, None)
    _seed(evo, claim, other)
    key = suppression_key(ORIGINS[0], CONTENTS[3])
    repeat = evo.capture(ORIGINS[0], "statement", "Remember: uses postgres, always",
                         session="s", key="r")
    assert repeat is not None
    pinned = edits.pin(evo, other.id, True)
    useful = edits.feedback(evo, other.id, "useful", "msg-1")
    assert pinned.ok and useful.ok and useful.event and pinned.event
    suppressed = set(evo.store.suppressions())
    assert edits.undo(evo, useful.event).ok and edits.undo(evo, pinned.event).ok
    assert set(evo.store.suppressions()) == suppressed and key not in suppressed
    assert {s.source_id: s.settled for s in evo.store.sources()}[repeat.source_id] is None
    assert evo.claim(other.id).state == "provisional"  # type: ignore[union-attr]
    forgotten = edits.forget(evo, claim.id)
    assert forgotten.ok and forgotten.event
    forgotten_key = suppression_key(ORIGINS[0], CONTENTS[2])
    assert forgotten_key in evo.store.suppressions()
    assert edits.undo(evo, forgotten.event).ok
    assert evo.claim(claim.id).state == "provisional"  # type: ignore[union-attr]
    assert forgotten_key in evo.store.suppressions()  # the suppression stays
    evo.close()


def test_verdicts_fill_two_slots_and_never_move_the_evidence_clock() -> None:
    """Item 34: the last utility and the last accuracy verdict are kept apart, each with
    its source and time; a verdict never moves the claim's evidence date or its
    confirmation stamp (it is not evidence)."""
    view = MemoryEvoView()
    claim = _claim(0, 0, 1, None)
    view.apply(claim, 1)
    before = view.claims[claim.id]
    view.apply(FeedbackRecord(SCHEMA_VERSION, claim.id, "useful", "msg-1", T1), 2)
    view.apply(FeedbackRecord(SCHEMA_VERSION, claim.id, "accurate", "msg-2", T1), 3)
    after = view.claims[claim.id]
    assert after.utility == ("useful", "msg-1", T1)
    assert after.accuracy == ("accurate", "msg-2", T1)
    assert (after.updated_at, after.reinforced_at, after.confirmed_at) == (
        before.updated_at, before.reinforced_at, before.confirmed_at)
    view.apply(FeedbackRecord(SCHEMA_VERSION, claim.id, "unhelpful", "msg-3", T1), 4)
    assert view.claims[claim.id].utility == ("unhelpful", "msg-3", T1)
    assert view.claims[claim.id].accuracy == ("accurate", "msg-2", T1)  # the other slot kept


def test_a_correction_clears_aliases_and_feedback_and_is_bounded(tmp_path: Path) -> None:
    """Item 74: ``correct`` takes 4-800 characters (UTF-16 units); the corrected claim is
    ``manual_correction/manual`` evidence without the old search terms or verdicts."""
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 0, None)  # carries the alias "alias"
    _seed(evo, claim)
    assert edits.feedback(evo, claim.id, "useful", "msg-1").ok
    assert edits.correct(evo, claim.id, "x" * 801).code == "bad_input"
    assert edits.correct(evo, claim.id, "abc").code == "bad_input"
    fixed = edits.correct(evo, claim.id, "port is 7171")
    assert fixed.ok
    new = evo.claim(fixed.data["correctedBy"])
    assert new is not None and (new.basis, new.method) == ("manual_correction", "manual")
    assert new.search_terms == () and new.utility is None and new.accuracy is None
    assert evo.claim(claim.id).search_terms == ("alias",)  # type: ignore[union-attr]
    evo.close()


def test_forget_retires_every_queued_repeat_beyond_any_quota(tmp_path: Path) -> None:
    """Item 73: every known pending source of that origin that repeats the content is
    retired, not only the first 16 (the queue's batch or the offered-claims cap)."""
    evo = _evo(tmp_path)
    claim = _claim(0, 0, 2, None)
    _seed(evo, claim)
    repeats = [evo.capture(ORIGINS[0], "statement", f"Remember: prefers tabs ({n})",
                           session="s", key=f"k{n}") for n in range(20)]
    assert all(repeats)
    out = edits.forget(evo, claim.id)
    assert out.ok and out.data["retiredSources"] == 20
    assert all(s.settled == "forgotten" for s in evo.store.sources())
    evo.close()
