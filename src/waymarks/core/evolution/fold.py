"""The one fold of evolution records into state, shared by incremental projection and rebuild.

Records are applied in ledger order (the evolution ledger is one append-only file, so file
order is total and the same on every read). A fold reads and writes state only through
:class:`EvoView`; the SQLite projection (``store.evolution``) and :class:`MemoryEvoView`
implement it, so incremental projection, full rebuild and the pure tests cannot disagree
on what a record means.

Every record folded is an **event** (its position ``seq`` is its ID): the :class:`Effect`
names the actor, the time, a fixed reason and every claim it changed with the claim's
snapshot before and after (:class:`~.rows.Change`). ``undo`` works from those snapshots.

Invariants:
- first record wins: a second source, claim or settlement with an ID already seen changes
  nothing (capture and apply are idempotent because of this);
- nothing is overwritten or erased: a replacement or correction marks its target
  ``superseded`` and links it; undo turns a claim it created into a tombstone;
- a replacement takes effect only on an active (``provisional``) evolved claim of the same
  origin and kind; evolved records can name nothing else (pins and memory are another
  namespace), so the fold itself cannot hide or replace what a person confirmed;
- a forgotten claim's (origin, content) is suppressed: the same content is never added
  again in that origin, under any kind or source; undo never lifts a suppression;
- a feedback receipt (source, claim) is kept even when the verdict changed nothing, and an
  undo never removes it: the same feedback replayed can never apply twice;
- undo acts only when every claim the event changed is still in the event's after state
  (the confirmation stamp ignored, and carried forward rather than reverted).
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from waymarks.core.evolution.aging import later as _later
from waymarks.core.evolution.aging import parse_time
from waymarks.core.evolution.model import (
    ACCURACY_VERDICTS,
    LEGACY_ORIGIN,
    UTILITY_VERDICTS,
    AdoptRecord,
    ClaimRecord,
    ConfirmRecord,
    ConflictRecord,
    CorrectRecord,
    EvolutionRecord,
    FeedbackRecord,
    ForgetRecord,
    ImportBatchRecord,
    ImportRecord,
    PinRecord,
    RefreshRecord,
    RefusalRecord,
    ResolveRecord,
    SettledRecord,
    SourceRecord,
    UndoRecord,
    claim_id,
)
from waymarks.core.evolution.rows import (
    Change,
    ClaimRow,
    SourceRow,
    correctable_to,
    from_snapshot,
    same_state,
    snapshot,
    suppression_key,
)
from waymarks.core.records import replace

__all__ = ["EFFECT_OPS", "Change", "ClaimRow", "Effect", "EvoView", "MemoryEvoView",
           "SourceRow", "fold", "suppression_key"]
#: claim states a person's edit can act on (forget also takes superseded/conflicted)
_LIVE = frozenset({"provisional", "conflicted"})
#: every ``Effect.op`` the fold writes (``evo_events.op``): the projection's check takes a
#: history row of any other op for damage (tests/evolution/test_status_damage.py reads
#: this module to keep the two the same)
EFFECT_OPS = frozenset({"source", "settled", "refused", "confirm", "imported", "refresh",
                        "resolve", "claim", "forget", "feedback", "correct", "conflict",
                        "pin", "unpin", "adopt", "undo"})


class Effect(msgspec.Struct, frozen=True):
    """What one record did: ``applied`` or ``ignored`` with a fixed reason, who did it,
    when, and the claims it changed."""

    op: str
    subject: str  # the claim or source ID the record is about
    applied: bool
    reason: str = ""
    actor: str = ""
    at: str = ""
    changes: tuple[Change, ...] = ()


class EvoView(Protocol):
    def claim(self, claim_id: str) -> ClaimRow | None: ...

    def put_claim(self, row: ClaimRow) -> None: ...

    def same_content(self, origin: str, content: str) -> list[ClaimRow]: ...

    def source(self, source_id: str) -> SourceRow | None: ...

    def put_source(self, row: SourceRow) -> None: ...

    def suppressed(self, key: str) -> bool: ...

    def suppress(self, key: str) -> None: ...

    def changes(self, event: int) -> list[Change]: ...

    def receipt(self, source_id: str, claim_id: str) -> bool: ...

    def put_receipt(self, source_id: str, claim_id: str, verdict: str, at: str,
                    seq: int) -> None: ...


class _Recorder:
    """Wraps a view and records every claim write as a :class:`Change`."""

    def __init__(self, inner: EvoView) -> None:
        self.inner = inner
        self.before: dict[str, dict[str, Any] | None] = {}
        self.after: dict[str, ClaimRow] = {}

    def claim(self, claim_id: str) -> ClaimRow | None:
        return self.inner.claim(claim_id)

    def put_claim(self, row: ClaimRow) -> None:
        if row.id not in self.before:
            current = self.inner.claim(row.id)
            self.before[row.id] = None if current is None else snapshot(current)
        self.after[row.id] = row
        self.inner.put_claim(row)

    def changes(self) -> tuple[Change, ...]:
        out = []
        for cid, row in self.after.items():
            after = snapshot(row)
            if after != self.before[cid]:
                out.append(Change(cid, self.before[cid], after))
        return tuple(out)


def fold(view: EvoView, record: EvolutionRecord, seq: int) -> Effect:
    """Apply one record (the ``seq``-th in ledger order) to ``view``."""
    recorder = _Recorder(view)
    effect = _fold(recorder, view, record, seq)
    return replace(effect, changes=recorder.changes()) if effect.applied else effect


def _fold(rec: _Recorder, view: EvoView, record: EvolutionRecord, seq: int) -> Effect:
    if isinstance(record, SourceRecord):
        if view.source(record.source_id) is not None:
            return Effect("source", record.source_id, False, "duplicate", "host",
                          record.captured_at)
        view.put_source(SourceRow(record.source_id, record.origin, record.kind, record.basis,
                                  record.text, record.classification, record.captured_at,
                                  record.session, seq))
        return Effect("source", record.source_id, True, record.basis, "host",
                      record.captured_at)
    if isinstance(record, ClaimRecord):
        return _claim(rec, view, record, seq)
    if isinstance(record, SettledRecord):
        source = view.source(record.source_id)
        if source is None:
            return Effect("settled", record.source_id, False, "unknown_source", "host",
                          record.at)
        if source.settled is not None:
            return Effect("settled", record.source_id, False, "already_settled", "host",
                          record.at)
        view.put_source(replace(source, settled=record.code, settled_at=record.at))
        return Effect("settled", record.source_id, True, record.code, "host", record.at)
    if isinstance(record, RefusalRecord):
        return Effect("refused", record.target, True, record.reason, "host", record.at)
    if isinstance(record, ConfirmRecord):
        confirmed = 0
        for cid in dict.fromkeys(record.ids):
            claim = view.claim(cid)
            if (claim is not None and claim.state == "provisional"
                    and claim.kind != "project_state" and _later(record.at, claim.confirmed_at)):
                view.put_claim(replace(claim, reinforced_at=record.at))  # not a change event
                confirmed += 1
        return Effect("confirm", record.source_id, confirmed > 0,
                      "confirmed" if confirmed else "nothing_to_confirm", "host", record.at)
    if isinstance(record, ImportRecord):
        return Effect("imported", record.digest, True, "legacy_import", "person", record.at)
    if isinstance(record, ImportBatchRecord):
        # one event: every claim the batch changed, first state before, last state after
        for inner in record.records:
            _fold(rec, view, inner, seq)
        # an import that left the JSONL ledgers unconsumed says so: it does not close them
        return Effect("imported", record.digest, True, "legacy_import_open"
                      if record.ledgers_open else "legacy_import", "person", record.at)
    if isinstance(record, RefreshRecord):  # a work source left a pending state standing
        claim, source = view.claim(record.id), view.source(record.source_id)
        if (claim is None or source is None or source.kind != "progress"
                or claim.state != "provisional" or claim.kind != "project_state"
                or claim.origin != source.origin or not _later(record.at, claim.updated_at)):
            return Effect("refresh", record.id, False, "not_refreshed", "model", record.at)
        # only the evidence date and link move: the basis and method stay what they were,
        # so a user-stated claim keeps its authority (a refresh never raises it to
        # tool_observation, which would quarantine the person's next statement)
        rec.put_claim(replace(claim, updated_at=record.at, source_id=record.source_id))
        return Effect("refresh", record.id, True, "refreshed", "model", record.at)
    if isinstance(record, ForgetRecord):
        return _forget(rec, view, record)
    if isinstance(record, FeedbackRecord):
        return _feedback(rec, view, record, seq)
    if isinstance(record, CorrectRecord):
        return _correct(rec, view, record)
    if isinstance(record, ConflictRecord):
        return _conflict(rec, record)
    if isinstance(record, PinRecord):
        return _pin(rec, record)
    if isinstance(record, AdoptRecord):
        return _adopt(rec, view, record)
    if isinstance(record, ResolveRecord):
        claim = rec.claim(record.id)
        if claim is None or claim.state != "conflicted":
            return Effect("resolve", record.id, False, "not_conflicted", record.actor, record.at)
        rec.put_claim(replace(claim, state="provisional"))
        return Effect("resolve", record.id, True, "resolved", record.actor, record.at)
    assert isinstance(record, UndoRecord)
    return _undo(rec, view, record)


def _claim(rec: _Recorder, view: EvoView, record: ClaimRecord, seq: int) -> Effect:
    evidence = record.evidence
    actor = {"model": "model", "manual": "person"}.get(evidence.method, "host")
    existing = view.claim(record.id)
    if existing is not None:
        # the same content derived again: a confirmation (no event, never moves updatedAt;
        # project state is confirmed only by newer evidence replacing it)
        if (existing.state == "provisional" and existing.kind != "project_state"
                and _later(evidence.at, existing.confirmed_at)):
            view.put_claim(replace(existing, reinforced_at=evidence.at))
            return Effect("claim", record.id, False, "confirmed", actor, evidence.at)
        return Effect("claim", record.id, False, "duplicate", actor, evidence.at)
    if view.suppressed(suppression_key(record.origin, record.content)):
        return Effect("claim", record.id, False, "forgotten", actor, evidence.at)
    row = ClaimRow(record.id, record.origin, record.kind, record.content, record.state,
                   evidence.basis, evidence.method, evidence.source_id, evidence.at, seq,
                   record.replaces, record.conflicts_with, None, record.search_terms)
    reason: str = record.state if record.state != "provisional" else "learned"
    if record.replaces is not None and record.state == "provisional":
        target = view.claim(record.replaces)
        if (target is None or target.state != "provisional" or target.origin != record.origin
                or target.kind != record.kind or target.pinned):
            row = replace(row, replaces=None)  # defensive: the decision already refused it
            reason = "replacement_ignored"
        else:
            rec.put_claim(replace(target, state="superseded", superseded_by=record.id))
            reason = "replaced"
    rec.put_claim(row)
    return Effect("claim", record.id, True, reason, actor, evidence.at)


def _forget(rec: _Recorder, view: EvoView, record: ForgetRecord) -> Effect:
    claim = view.claim(record.id)
    if claim is None:
        return Effect("forget", record.id, False, "unknown_claim", record.actor, record.at)
    key = suppression_key(claim.origin, claim.content)
    tombstone = claim.state == "forgotten"  # e.g. left by an undo of the claim's creation
    if tombstone and view.suppressed(key):
        return Effect("forget", record.id, False, "already_forgotten", record.actor, record.at)
    if not tombstone:
        rec.put_claim(replace(claim, state="forgotten"))
    # its live twins go too, also when the claim itself was already a tombstone: the same
    # content learned again under another kind must not outlive the forget
    for twin in view.same_content(claim.origin, claim.content):
        if twin.id != claim.id and twin.state != "forgotten":
            rec.put_claim(replace(twin, state="forgotten"))
    view.suppress(key)
    return Effect("forget", record.id, True, "suppressed" if tombstone else "forgotten",
                  record.actor, record.at)


def _feedback(rec: _Recorder, view: EvoView, record: FeedbackRecord, seq: int) -> Effect:
    def ignored(reason: str) -> Effect:
        return Effect("feedback", record.id, False, reason, record.actor, record.at)

    claim = view.claim(record.id)
    if claim is None:
        return ignored("unknown_claim")
    if record.verdict not in UTILITY_VERDICTS | ACCURACY_VERDICTS:
        return ignored("unknown_verdict")
    if view.receipt(record.source_id, record.id):
        return ignored("duplicate_receipt")
    view.put_receipt(record.source_id, record.id, record.verdict, record.at, seq)
    # a person's verdict on whether it is true outranks the evidence's timing: an evidence
    # date after the verdict (a clock ahead, a legacy date in the future) made
    # ``incorrect`` change nothing, and the claim kept being injected
    if record.verdict in UTILITY_VERDICTS and _later(claim.updated_at, record.at):
        return ignored("older_than_evidence")
    if claim.state in ("forgotten", "superseded"):
        return ignored("not_active")
    slot = (record.verdict, record.source_id, record.at)
    if record.verdict in UTILITY_VERDICTS:
        if claim.utility is not None and claim.utility[0] == record.verdict:
            return ignored("repeated")
        rec.put_claim(replace(claim, utility=slot))
        return Effect("feedback", record.id, True, record.verdict, record.actor, record.at)
    if claim.accuracy is not None and claim.accuracy[0] == record.verdict:
        return ignored("repeated")
    if record.verdict == "accurate":  # cannot revive a conflicted claim
        rec.put_claim(replace(claim, accuracy=slot))
        return Effect("feedback", record.id, True, record.verdict, record.actor, record.at)
    # incorrect: quarantine the claim and its active exact duplicates in its origin
    rec.put_claim(replace(claim, accuracy=slot, state="conflicted"))
    for twin in view.same_content(claim.origin, claim.content):
        if twin.id != claim.id and twin.state == "provisional":
            rec.put_claim(replace(twin, state="conflicted"))
    return Effect("feedback", record.id, True, record.verdict, record.actor, record.at)


def _correct(rec: _Recorder, view: EvoView, record: CorrectRecord) -> Effect:
    def ignored(reason: str) -> Effect:
        return Effect("correct", record.id, False, reason, record.actor, record.at)

    claim = view.claim(record.id)
    if claim is None:
        return ignored("unknown_claim")
    if claim.state not in _LIVE:
        return ignored("not_active")
    new_id = claim_id(claim.origin, claim.kind, record.content)
    if view.suppressed(suppression_key(claim.origin, record.content)):
        return ignored("forgotten")
    if not correctable_to(view.claim(new_id)):
        return ignored("duplicate")
    rec.put_claim(replace(claim, state="superseded", superseded_by=new_id))
    rec.put_claim(ClaimRow(new_id, claim.origin, claim.kind, record.content, "provisional",
                           "manual_correction", "manual",
                           record.source_id or f"manual:{record.at}", record.at,
                           claim.seq, claim.id,
                           pinned=claim.pinned))  # the person's pin stays (adopt keeps it)
    # the corrected text is not learned back in this origin
    view.suppress(suppression_key(claim.origin, claim.content))
    return Effect("correct", record.id, True, "corrected", record.actor, record.at)


def _conflict(rec: _Recorder, record: ConflictRecord) -> Effect:
    a, b = rec.claim(record.a), rec.claim(record.b)
    if record.a == record.b or a is None or b is None:
        return Effect("conflict", record.a, False, "unknown_claim", record.actor, record.at)
    if a.state not in _LIVE or b.state not in _LIVE:
        return Effect("conflict", record.a, False, "not_active", record.actor, record.at)
    rec.put_claim(replace(a, state="conflicted", conflicts_with=b.id))
    rec.put_claim(replace(b, state="conflicted", conflicts_with=a.id))
    return Effect("conflict", record.a, True, "conflicted", record.actor, record.at)


def _pin(rec: _Recorder, record: PinRecord) -> Effect:
    op = "pin" if record.pinned else "unpin"
    claim = rec.claim(record.id)
    if claim is None:
        return Effect(op, record.id, False, "unknown_claim", record.actor, record.at)
    if claim.state not in _LIVE:
        return Effect(op, record.id, False, "not_active", record.actor, record.at)
    if claim.pinned == record.pinned:
        return Effect(op, record.id, False, "repeated", record.actor, record.at)
    rec.put_claim(replace(claim, pinned=record.pinned))  # state and dates untouched
    return Effect(op, record.id, True, "pinned" if record.pinned else "unpinned",
                  record.actor, record.at)


def _adopt(rec: _Recorder, view: EvoView, record: AdoptRecord) -> Effect:
    def ignored(reason: str) -> Effect:
        return Effect("adopt", record.id, False, reason, record.actor, record.at)

    claim = rec.claim(record.id)
    if claim is None:
        return ignored("unknown_claim")
    if claim.state not in _LIVE:
        return ignored("not_active")
    if claim.origin != LEGACY_ORIGIN:
        return ignored("not_legacy")
    if not record.origin or record.origin == LEGACY_ORIGIN:
        return ignored("bad_origin")
    new_id = claim_id(record.origin, claim.kind, claim.content)
    if rec.claim(new_id) is not None:
        return ignored("duplicate")
    if view.suppressed(suppression_key(record.origin, claim.content)):
        return ignored("forgotten")  # adoption never brings back what was forgotten there
    rec.put_claim(replace(claim, state="superseded", superseded_by=new_id))
    # dates, basis, source, aliases, feedback slots, pin and state all kept
    rec.put_claim(replace(claim, id=new_id, origin=record.origin, replaces=claim.id))
    seen = {claim.id}
    earlier = claim.replaces  # content it was corrected away from: not learned back there
    while earlier is not None and earlier not in seen:
        seen.add(earlier)
        before = rec.claim(earlier)
        if before is None:
            break
        view.suppress(suppression_key(record.origin, before.content))
        earlier = before.replaces
    return Effect("adopt", record.id, True, "adopted", record.actor, record.at)


def _undo(rec: _Recorder, view: EvoView, record: UndoRecord) -> Effect:
    subject = str(record.event)

    def ignored(reason: str) -> Effect:
        return Effect("undo", subject, False, reason, record.actor, record.at)

    changes = view.changes(record.event)
    if not changes:
        return ignored("nothing_to_undo")
    ids = [c.claim_id for c in changes]
    if len(set(ids)) != len(ids) or any(c.after.get("id") != c.claim_id or (
            c.before is not None and c.before.get("id") != c.claim_id) for c in changes):
        return ignored("bad_event")
    current = {cid: view.claim(cid) for cid in ids}
    for change in changes:
        row = current[change.claim_id]
        if row is None or not same_state(snapshot(row), change.after):
            return ignored("changed_since")
    for change in changes:
        row = current[change.claim_id]
        assert row is not None
        if change.before is None:  # created by the event: a tombstone, never erased
            rec.put_claim(replace(row, state="forgotten"))
            continue
        restored = from_snapshot(change.before, row.seq)
        stamp = max(restored.reinforced_at, row.reinforced_at, key=_stamp_key)
        rec.put_claim(replace(restored, reinforced_at=stamp))
    return Effect("undo", subject, True, "undone", record.actor, record.at)


def _stamp_key(stamp: str) -> float:
    parsed = parse_time(stamp) if stamp else None
    return -1.0 if parsed is None else parsed


class MemoryEvoView:
    """An in-memory :class:`EvoView` (pure tests, and the decision's dry runs)."""

    def __init__(self) -> None:
        self.claims: dict[str, ClaimRow] = {}
        self.sources: dict[str, SourceRow] = {}
        self.suppressions: set[str] = set()
        self.events: dict[int, list[Change]] = {}
        self.receipts: dict[tuple[str, str], tuple[str, str, int]] = {}

    def claim(self, claim_id: str) -> ClaimRow | None:
        return self.claims.get(claim_id)

    def put_claim(self, row: ClaimRow) -> None:
        self.claims[row.id] = row

    def same_content(self, origin: str, content: str) -> list[ClaimRow]:
        return [c for c in self.claims.values() if c.origin == origin and c.content == content]

    def source(self, source_id: str) -> SourceRow | None:
        return self.sources.get(source_id)

    def put_source(self, row: SourceRow) -> None:
        self.sources[row.source_id] = row

    def suppressed(self, key: str) -> bool:
        return key in self.suppressions

    def suppress(self, key: str) -> None:
        self.suppressions.add(key)

    def changes(self, event: int) -> list[Change]:
        return list(self.events.get(event, ()))

    def receipt(self, source_id: str, claim_id: str) -> bool:
        return (source_id, claim_id) in self.receipts

    def put_receipt(self, source_id: str, claim_id: str, verdict: str, at: str,
                    seq: int) -> None:
        self.receipts.setdefault((source_id, claim_id), (verdict, at, seq))

    def apply(self, record: EvolutionRecord, seq: int) -> Effect:
        """Fold ``record`` and keep its changes (as the SQLite projection does)."""
        effect = fold(self, record, seq)
        if effect.changes:
            self.events[seq] = list(effect.changes)
        return effect
