"""Which new records a withheld source holds back, decided without a re-fold.

A source is withheld (excluded, or its file not available as indexed: a ledger opened
by path outside its project's session directories, say) while a rebuild holds back its
project contributions (:func:`waymarks.core.replay.hold_back`). A sync that brought such
a source's new records re-folded every stored mutation to learn which of them are held:
7-12 s of CPU a write at 60k claims. This module answers the same question for the new
records alone, from the rows already stored, or says that only a re-fold can. A source
indexed for the first time is one like any other here (nothing of it was applied): only
a source whose status changes (excluded, moved, back) re-folds for that.

What must stay true: a record is held here exactly when a rebuild would hold it.
``hold_back`` holds a withheld source's add or supersede of a project item, and its
status change of an ID in its ``_project_ids`` (every project item's ID, and the copy IDs
of those another session's item also names). That set is read back from the store only
when the new records cannot change it for what is stored:

- a new record's item ID already named by a stored one (an item or a mutation's target:
  a fork's copy, or a status change written before its item) could make a stored record
  change sides, or add copy IDs: re-fold (``None``);
- a status change's target: held when it is a project item (stored, or in the new
  records); not held when the rows that wrote it name it as its own ID and none of them
  is a project item; anything else (an unknown ID, a copy): re-fold.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

from waymarks.core.codec import decode_payload
from waymarks.core.model import (
    MEMORY_CUSTOM_TYPE,
    PIN_CUSTOM_TYPE,
    MemoryMutation,
    MutationRecord,
    PinMutation,
    status_target,
)
from waymarks.core.replay import SOURCE_EXCLUDED
from waymarks.store.integrity import decoding

__all__ = ["SOURCE_EXCLUDED", "held_back"]


def held_back(db: sqlite3.Connection, fresh: Sequence[MutationRecord],
              withheld: Collection[str]) -> set[int] | None:
    """The positions in ``fresh`` (new records, not yet stored) a rebuild would hold
    back, given the ``withheld`` sources; ``None`` when only a re-fold can tell."""
    writers: dict[str, set[str]] = {}
    for record in fresh:
        item = record.mutation.item
        if item is not None:
            writers.setdefault(item.id, set()).add(record.session_id)
    if any(len(sessions) > 1 for sessions in writers.values()) or any(
            _named(db, item_id) for item_id in writers):
        return None
    new_project = {r.mutation.item.id for r in fresh
                   if r.mutation.item is not None and r.mutation.item.scope == "project"}
    held: set[int] = set()
    for position, record in enumerate(fresh):
        if record.session_id not in withheld:
            continue
        mutation = record.mutation
        if mutation.item is not None:
            project = mutation.item.scope == "project"
        else:
            target = status_target(mutation) or ""
            found = True if target in new_project else _stored_project(db, target)
            if found is None:
                return None
            project = found
        if project:
            held.add(position)
    return held


def _named(db: sqlite3.Connection, item_id: str) -> bool:
    """Whether a stored item or mutation already names ``item_id``."""
    return db.execute("SELECT 1 FROM items WHERE id = ?1 UNION ALL"
                      " SELECT 1 FROM mutations WHERE target_id = ?1 LIMIT 1",
                      (item_id,)).fetchone() is not None


def _stored_project(db: sqlite3.Connection, target: str) -> bool | None:
    """Whether ``target`` is in the stored records' project IDs; ``None``: unknown
    without them all (no stored add names it as its own ID, or one names it as a copy)."""
    row = db.execute("SELECT scope FROM items WHERE id = ?", (target,)).fetchone()
    if row is not None and row[0] == "project":
        return True
    scopes: list[str] = []
    for kind, payload in db.execute("SELECT kind, payload FROM mutations"
                                    " WHERE target_id = ? AND operation != 'status'",
                                    (target,)):
        with decoding("a stored mutation"):
            mutation = decode_payload(
                PIN_CUSTOM_TYPE if kind == "pin" else MEMORY_CUSTOM_TYPE, payload)
        if not isinstance(mutation, PinMutation | MemoryMutation) or (
                mutation.item is None or mutation.item.id != target):
            return None
        scopes.append(mutation.item.scope)
    if not scopes:
        return None
    return "project" in scopes
