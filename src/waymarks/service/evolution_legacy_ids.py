"""Looking a learned claim up by its pi-memory-evolution ID (EVOLUTION item 81).

Why: Waymarks claim IDs hash origin, kind and content, so an imported memory could not keep
its old ID; a person who knew it by that ID (from the old tool's lists, notes, scripts)
must still reach it. Every import batch written since records each legacy ID with the
claims it became (:class:`~waymarks.core.evolution.model.LegacyId`); this module reads
them from the canonical ledger (never only from the disposable database) and follows each
claim to what it is now (a correction or an ``adopt`` supersedes it by a new ID).

The same import batches carry the old tool's event history (content-free: ID, time, actor,
claims touched), which ``evolution show`` lists beside the legacy IDs: :func:`read_imports`
gathers both in ONE pass over the ledger, so ``show`` (a legacy ID looked up, its history,
the IDs a claim was imported under) reads the ledger once, not once per question.

What must stay true: read-only; IDs only, never content; a lookup is made only when an ID
is not a claim's (the ledger is read once per lookup, the common path never pays);
a legacy ID that is also a claim's own ID means that claim. Imports written before this
record existed carry no mapping: their legacy IDs are reported unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    ImportBatchRecord,
    LegacyEvent,
    decode_record,
)
from waymarks.ledger.entries import custom_entries

if TYPE_CHECKING:
    from waymarks.service.evolution import Evolution

#: a chain of supersessions longer than this is not followed further (a loop guard)
MAX_HOPS: Final = 64
#: how many of a claim's imported history events ``show`` lists (newest first)
EVENTS_SHOWN: Final = 50


@dataclass(frozen=True, slots=True)
class LegacyMatch:
    """A legacy ID, the claims it was imported as, and what each is now (its current ID:
    itself, or the claim that superseded it)."""

    legacy_id: str
    imported: tuple[str, ...]
    current: tuple[str, ...]

    def message(self) -> str:
        now = ", ".join(self.current)
        return (f"{self.legacy_id!r} is a pi-memory-evolution ID; it was imported as "
                f"{', '.join(self.imported)}" + (f" (now {now})" if self.current !=
                                                  self.imported else "")
                + f"; use {'that ID' if len(self.current) == 1 else 'one of those IDs'}")

    def to_json(self) -> dict[str, object]:
        return {"legacyId": self.legacy_id, "importedAs": list(self.imported),
                "currentIds": list(self.current)}


@dataclass(frozen=True, slots=True)
class Imports:
    """What this home's import batches recorded (IDs and history only, never content)."""

    #: each legacy ID with the claims it became (a later import's mapping of the same ID
    #: adds to the earlier one)
    ids: dict[str, tuple[str, ...]]
    #: the imported pi-memory-evolution events, in ledger order
    history: tuple[LegacyEvent, ...]

    def match(self, evo: Evolution, given: str) -> LegacyMatch | None:
        """The claims the legacy ID ``given`` stands for now (``None``: not one imported)."""
        claims = self.ids.get(given)
        if not claims:
            return None
        return LegacyMatch(given, claims,
                           tuple(dict.fromkeys(current(evo, c) for c in claims)))

    def ids_of(self, claim_id: str) -> list[str]:
        """The legacy IDs that were imported as ``claim_id``."""
        return sorted(lid for lid, claims in self.ids.items() if claim_id in claims)

    def events_of(self, claim_id: str, limit: int = EVENTS_SHOWN) -> list[dict[str, Any]]:
        """The imported history that touched ``claim_id``, newest first, content-free
        (ID, time, actor)."""
        found = [{"id": e.id, "at": e.at, "actor": e.actor} for e in self.history
                 if claim_id in e.claims]
        return sorted(found, key=lambda e: (e["at"], e["id"]), reverse=True)[:limit]


def read_imports(evo: Evolution) -> Imports:
    """Every legacy ID and history event the imports of this home recorded, in one pass
    over the evolution ledger (the canonical records, never only the database)."""
    ids: dict[str, tuple[str, ...]] = {}
    history: list[LegacyEvent] = []
    for entry in custom_entries(evo.ledger, EVOLUTION_CUSTOM_TYPE):
        data = entry.data
        if not isinstance(data, dict) or data.get("op") != "importBatch" \
                or not (data.get("legacyIds") or data.get("history")):
            continue  # only import batches carry either (cheap checks first)
        record = decode_record(data)
        if isinstance(record, ImportBatchRecord):
            for item in record.legacy_ids:
                ids[item.id] = tuple(dict.fromkeys((*ids.get(item.id, ()), *item.claims)))
            history += record.history
    return Imports(ids, tuple(history))


def lookup(evo: Evolution, given: str) -> LegacyMatch | None:
    """The claims the legacy ID ``given`` stands for now (``None``: not one imported)."""
    return read_imports(evo).match(evo, given)


def current(evo: Evolution, claim_id: str) -> str:
    """The claim ``claim_id`` is now: followed through ``supersededBy`` (a correction, an
    adopt) to the last claim of the chain."""
    seen = {claim_id}
    for _ in range(MAX_HOPS):
        row = evo.store.view.claim(claim_id)
        if row is None or not row.superseded_by or row.superseded_by in seen:
            break
        claim_id = row.superseded_by
        seen.add(claim_id)
    return claim_id

