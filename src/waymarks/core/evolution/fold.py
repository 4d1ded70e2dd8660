"""The one fold of evolution records into state, shared by incremental projection and rebuild.

Records are applied in ledger order (the evolution ledger is one append-only file, so file
order is total and the same on every read). A fold reads and writes state only through
:class:`EvoView`; the SQLite projection (``store.evolution``) and :class:`MemoryEvoView`
implement it, so incremental projection, full rebuild and the pure tests cannot disagree
on what a record means.

Invariants:
- first record wins: a second source, claim or settlement with an ID already seen changes
  nothing (capture and apply are idempotent because of this);
- nothing is overwritten: a replacement marks its target ``superseded`` and links it;
- a replacement takes effect only on an active (``provisional``) evolved claim of the same
  origin and kind; evolved records can name nothing else (pins and memory are another
  namespace), so the fold itself cannot hide or replace what a person confirmed;
- a forgotten claim's (origin, content) is suppressed: the same content is never added
  again in that origin, under any kind or source.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Protocol

from waymarks.core.evolution.model import (
    ClaimRecord,
    EvolutionRecord,
    ForgetRecord,
    RefusalRecord,
    SettledRecord,
    SourceRecord,
)


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """An evolved claim as the projection holds it."""

    id: str
    origin: str
    kind: str
    content: str
    state: str
    basis: str
    method: str
    source_id: str
    updated_at: str  # the evidence date: the replacement authority gate
    seq: int
    replaces: str | None = None
    conflicts_with: str | None = None
    superseded_by: str | None = None
    search_terms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceRow:
    """A captured source and whether it is settled."""

    source_id: str
    origin: str
    kind: str
    basis: str
    text: str
    classification: str
    captured_at: str
    session: str
    seq: int
    settled: str | None = None  # the settlement code, once settled
    settled_at: str | None = None


@dataclass(frozen=True, slots=True)
class Effect:
    """What one record did: ``applied`` or ``ignored`` with a fixed reason."""

    op: str
    subject: str  # the claim or source ID the record is about
    applied: bool
    reason: str = ""


class EvoView(Protocol):
    def claim(self, claim_id: str) -> ClaimRow | None: ...

    def put_claim(self, row: ClaimRow) -> None: ...

    def source(self, source_id: str) -> SourceRow | None: ...

    def put_source(self, row: SourceRow) -> None: ...

    def suppressed(self, key: str) -> bool: ...

    def suppress(self, key: str) -> None: ...


def suppression_key(origin: str, content: str) -> str:
    """What a forget suppresses: this content in this origin (any kind, any source)."""
    encoded = json.dumps([origin, content], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:32]


def fold(view: EvoView, record: EvolutionRecord, seq: int) -> Effect:
    """Apply one record (the ``seq``-th in ledger order) to ``view``."""
    if isinstance(record, SourceRecord):
        if view.source(record.source_id) is not None:
            return Effect("source", record.source_id, False, "duplicate")
        view.put_source(SourceRow(record.source_id, record.origin, record.kind, record.basis,
                                  record.text, record.classification, record.captured_at,
                                  record.session, seq))
        return Effect("source", record.source_id, True)
    if isinstance(record, ClaimRecord):
        return _claim(view, record, seq)
    if isinstance(record, SettledRecord):
        source = view.source(record.source_id)
        if source is None:
            return Effect("settled", record.source_id, False, "unknown_source")
        if source.settled is not None:
            return Effect("settled", record.source_id, False, "already_settled")
        view.put_source(replace(source, settled=record.code, settled_at=record.at))
        return Effect("settled", record.source_id, True)
    if isinstance(record, RefusalRecord):
        return Effect("refused", record.target, True, record.reason)
    assert isinstance(record, ForgetRecord)
    claim = view.claim(record.id)
    if claim is None:
        return Effect("forget", record.id, False, "unknown_claim")
    if claim.state == "forgotten":
        return Effect("forget", record.id, False, "already_forgotten")
    view.put_claim(replace(claim, state="forgotten"))
    view.suppress(suppression_key(claim.origin, claim.content))
    return Effect("forget", record.id, True)


def _claim(view: EvoView, record: ClaimRecord, seq: int) -> Effect:
    if view.claim(record.id) is not None:
        return Effect("claim", record.id, False, "duplicate")
    if view.suppressed(suppression_key(record.origin, record.content)):
        return Effect("claim", record.id, False, "forgotten")
    evidence = record.evidence
    row = ClaimRow(record.id, record.origin, record.kind, record.content, record.state,
                   evidence.basis, evidence.method, evidence.source_id, evidence.at, seq,
                   record.replaces, record.conflicts_with, None, record.search_terms)
    reason = ""
    if record.replaces is not None and record.state == "provisional":
        target = view.claim(record.replaces)
        if (target is None or target.state != "provisional" or target.origin != record.origin
                or target.kind != record.kind):
            row = replace(row, replaces=None)  # defensive: the decision already refused it
            reason = "replacement_ignored"
        else:
            view.put_claim(replace(target, state="superseded", superseded_by=record.id))
    view.put_claim(row)
    return Effect("claim", record.id, True, reason)


class MemoryEvoView:
    """An in-memory :class:`EvoView` (pure tests, and the decision's dry runs)."""

    def __init__(self) -> None:
        self.claims: dict[str, ClaimRow] = {}
        self.sources: dict[str, SourceRow] = {}
        self.suppressions: set[str] = set()

    def claim(self, claim_id: str) -> ClaimRow | None:
        return self.claims.get(claim_id)

    def put_claim(self, row: ClaimRow) -> None:
        self.claims[row.id] = row

    def source(self, source_id: str) -> SourceRow | None:
        return self.sources.get(source_id)

    def put_source(self, row: SourceRow) -> None:
        self.sources[row.source_id] = row

    def suppressed(self, key: str) -> bool:
        return key in self.suppressions

    def suppress(self, key: str) -> None:
        self.suppressions.add(key)
