"""The rows the evolution fold produces, and the before/after snapshots of its events.

A :class:`ClaimRow` is an evolved claim as the projection holds it. Every change the fold
makes to a claim is a :class:`Change` (the claim's snapshot before, ``None`` when the record
created it, and after), so an event can be shown and undone exactly. A snapshot is a plain
JSON object of every field but ``seq`` (the claim's position, which no edit moves); the
confirmation stamp (``reinforcedAt``) is in it but never decides whether a claim changed.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from waymarks.core.digests import sha256

#: a feedback slot: (verdict, source ID, time)
Slot = tuple[str, str, str]


class ClaimRow(msgspec.Struct, frozen=True):
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
    #: the last confirmation (decay and dormancy run from it); "" = the evidence date
    reinforced_at: str = ""
    utility: Slot | None = None  # last useful/unhelpful verdict
    accuracy: Slot | None = None  # last accurate/incorrect verdict
    #: a person pinned it (item 32): freshness 1, never dormant, never replaced by the
    #: model; no credibility bonus, and no effect on its state (a conflict stays one)
    pinned: bool = False

    @property
    def confirmed_at(self) -> str:
        return self.reinforced_at or self.updated_at


class Analysis(msgspec.Struct, frozen=True):
    """A claim's analysis as ranking sees it, persisted in the projection (a cache, never
    canonical): the digest of what it was computed from, and its features by field."""

    key: str
    body: tuple[str, ...]
    aliases: tuple[str, ...]
    quoted: tuple[str, ...]
    origin: tuple[str, ...]
    body_count: int


class SourceRow(msgspec.Struct, frozen=True):
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


class Change(msgspec.Struct, frozen=True):
    """One claim's states around one event (``before`` ``None``: the event created it)."""

    claim_id: str
    before: dict[str, Any] | None
    after: dict[str, Any]


def snapshot(row: ClaimRow) -> dict[str, Any]:
    """``row`` as a JSON object (every field but ``seq``; camelCase, stable)."""
    return {"id": row.id, "origin": row.origin, "kind": row.kind, "content": row.content,
            "state": row.state, "basis": row.basis, "method": row.method,
            "sourceId": row.source_id, "updatedAt": row.updated_at, "replaces": row.replaces,
            "conflictsWith": row.conflicts_with, "supersededBy": row.superseded_by,
            "searchTerms": list(row.search_terms), "reinforcedAt": row.reinforced_at,
            "utility": None if row.utility is None else list(row.utility),
            "accuracy": None if row.accuracy is None else list(row.accuracy),
            # only when set: snapshots from before pins compare equal to unpinned claims
            **({"pinned": True} if row.pinned else {})}


def from_snapshot(data: dict[str, Any], seq: int) -> ClaimRow:
    """The row a snapshot describes, at position ``seq``."""
    return ClaimRow(
        str(data["id"]), str(data["origin"]), str(data["kind"]), str(data["content"]),
        str(data["state"]), str(data["basis"]), str(data["method"]), str(data["sourceId"]),
        str(data["updatedAt"]), seq, _opt(data.get("replaces")),
        _opt(data.get("conflictsWith")), _opt(data.get("supersededBy")),
        tuple(str(t) for t in data.get("searchTerms") or ()),
        str(data.get("reinforcedAt") or ""), _slot(data.get("utility")),
        _slot(data.get("accuracy")), data.get("pinned") is True)


def same_state(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Whether two snapshots describe the same claim state, ignoring the confirmation
    stamp (a confirmation writes no event, so comparing it would make every confirmed
    claim un-undoable)."""
    if a is None or b is None:
        return a is b
    return ({k: v for k, v in a.items() if k != "reinforcedAt"}
            == {k: v for k, v in b.items() if k != "reinforcedAt"})


def state_digest(rows: dict[str, ClaimRow | None]) -> str:
    """A digest of the named claims' states (the confirmation stamp ignored, as
    :func:`same_state` does; a missing claim counts as ``None``): what a model request
    was computed against, compared again before its reply is committed (item 36)."""
    parts = []
    for cid in sorted(rows):
        row = rows[cid]
        state = None if row is None else {k: v for k, v in snapshot(row).items()
                                          if k != "reinforcedAt"}
        parts.append([cid, state])
    data = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return sha256(data.encode()).hexdigest()


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def _slot(value: object) -> Slot | None:
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        return None
    return (str(value[0]), str(value[1]), str(value[2]))


def suppression_key(origin: str, content: str) -> str:
    """What a forget suppresses: this content in this origin (any kind, any source)."""
    encoded = json.dumps([origin, content], ensure_ascii=False, separators=(",", ":"))
    return sha256(encoded.encode("utf-8")).hexdigest()[:32]


def correctable_to(existing: ClaimRow | None) -> bool:
    """Whether a correction may take the ID ``existing`` holds (its text, kind and
    origin): when there is no claim of that text, or only the tombstone an undo left of
    an earlier correction to it (forgotten, its text not suppressed: the person never
    forgot it; a correction refused as "duplicate" there could never be made again)."""
    return existing is None or existing.state == "forgotten"
