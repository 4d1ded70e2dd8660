"""The claims a ledger record names: what a cache of claims must read again after it.

Why: a long-lived process keeps its ranking corpus (postings, arrays) across writes and
follows each change by the claims it touched (:mod:`waymarks.service.evolution_corpus`).
Most writes are events whose changes the projection records per claim, but two writes are
deliberately not events (a confirmation moving only the confirmation stamp, and a source
deriving an existing claim's content again), so the records themselves are read too.

What must stay true: every claim a record can write is among the IDs returned (a superset
is harmless: those claims are only read again). Pure: no I/O.
"""

from __future__ import annotations

from waymarks.core.evolution.model import (
    AdoptRecord,
    ClaimRecord,
    ConfirmRecord,
    ConflictRecord,
    EvolutionRecord,
    ImportBatchRecord,
)


def claims_named(record: EvolutionRecord) -> set[str]:
    """Every claim ID ``record`` names (an import batch: its inner records')."""
    if isinstance(record, ImportBatchRecord):
        out: set[str] = set()
        for inner in record.records:
            out |= claims_named(inner)
        return out
    if isinstance(record, ConfirmRecord):
        return set(record.ids)
    if isinstance(record, ConflictRecord):
        return {record.a, record.b}
    if isinstance(record, ClaimRecord):
        return {i for i in (record.id, record.replaces, record.conflicts_with) if i}
    if isinstance(record, AdoptRecord):
        return {record.id}
    named = getattr(record, "id", None)
    return {named} if isinstance(named, str) else set()
