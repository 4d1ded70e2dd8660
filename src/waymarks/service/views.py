"""How items and sessions are presented to adapters: plain values with a JSON form."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from operator import is_
from typing import Any, Final

import msgspec

from waymarks.core.model import MemoryItem, PinItem
from waymarks.core.rules import ItemState


class ItemView(msgspec.Struct, frozen=True):
    """An item as lists show it; ``applies`` = in effect on the active branch now."""

    id: str
    kind: str
    scope: str
    status: str
    key: str | None
    classification: str | None
    superseded_by: str | None
    supersedes: str | None
    reason: str | None
    text: str
    applies: bool
    created_at: int
    session_id: str
    entry_id: str
    branch_leaf_id: str | None = None
    source_entry_ids: tuple[str, ...] = ()
    source_file: str | None = None
    conflicts_with: tuple[str, ...] = ()
    #: a memory's key as written (``key`` is its folded form); renderers read it
    given_key: str | None = None
    #: a project item's project (an export names it; this session's may be another's)
    project_path: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "scope": self.scope, "status": self.status,
            "key": self.key, "classification": self.classification,
            "supersededBy": self.superseded_by, "supersedes": self.supersedes,
            "reason": self.reason, "text": self.text, "applies": self.applies,
            "createdAt": self.created_at, "sessionId": self.session_id,
            "entryId": self.entry_id, "branchLeafId": self.branch_leaf_id,
            "sourceEntryIds": list(self.source_entry_ids), "sourceFile": self.source_file,
            "conflictsWith": list(self.conflicts_with),
        }


def item_view(state: ItemState, session_id: str, branch: AbstractSet[str], cwd: str,
              trusted: bool) -> ItemView:
    """How session ``session_id`` (on the branch of entries ``branch``, in project ``cwd``,
    ``trusted`` or not) sees an item."""
    item = state.item
    applies = state.status == "active" and (
        (item.scope == "session" and state.session_id == session_id)
        or (item.scope == "branch" and isinstance(item, PinItem)
            and state.session_id == session_id and item.branch_leaf_id in branch)
        or (item.scope == "project" and item.project_path == cwd and trusted)
    )
    return ItemView(
        id=state.id, kind=state.kind, scope=item.scope, status=state.status, key=state.key,
        classification=item.classification, superseded_by=state.superseded_by,
        supersedes=state.supersedes, reason=state.reason, text=state.text, applies=applies,
        created_at=item.created_at, session_id=state.session_id, entry_id=state.entry_id,
        branch_leaf_id=item.branch_leaf_id if isinstance(item, PinItem) else None,
        source_entry_ids=item.source_entry_ids if isinstance(item, MemoryItem)
        else tuple(filter(None, [item.source_entry_id])),
        source_file=item.source_file if isinstance(item, PinItem) else None,
        conflicts_with=state.conflicts_with,
        given_key=item.key if isinstance(item, MemoryItem) else None,
        project_path=item.project_path,
    )


#: views kept for unchanged items, at most
KEPT_VIEWS: Final = 8192
#: the fewest items of a listing kept whole (a plan's few memories read by ID are not)
WHOLE_LISTING_PAST: Final = 8
#: whole listings kept, at most (a plan's pins; a listing of each kind a command shows)
KEPT_LISTINGS: Final = 8


class ViewMemo:
    """Views of items the store handed over again unchanged (the same state objects: it
    keeps them while nothing changes), for the same session, project and trust: every
    plan lists the same pins. An item scoped to a branch depends on the branch: never
    kept.

    A listing of :data:`WHOLE_LISTING_PAST` items or more, none scoped to a branch, is
    kept whole too: the same states in the same order, seen the same way (one comparison
    of identities, in C), get the same views without a look at each state (every plan's
    fifty pins were looked up one by one, ~50 us a plan on a loaded machine)."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[ItemState, tuple[str, str, bool], ItemView]] = {}
        #: whole listings, by their length and how they were seen: their states and views
        self._listings: dict[tuple[int, tuple[str, str, bool]],
                             tuple[tuple[ItemState, ...], tuple[ItemView, ...]]] = {}

    def views(self, states: Iterable[ItemState], session_id: str, branch: AbstractSet[str],
              cwd: str, trusted: bool) -> list[ItemView]:
        states = states if isinstance(states, list | tuple) else list(states)
        seen_as = (session_id, cwd, trusted)
        whole = self._listings.get((len(states), seen_as))
        if whole is not None and all(map(is_, states, whole[0])):
            return list(whole[1])
        kept = self._kept
        out = []
        branched = False
        for state in states:
            if state.item.scope == "branch":
                branched = True
                out.append(item_view(state, session_id, branch, cwd, trusted))
                continue
            known = kept.get(id(state))  # the memo holds the state: its ID is not reused
            if known is not None and known[0] is state and known[1] == seen_as:
                out.append(known[2])
                continue
            view = item_view(state, session_id, branch, cwd, trusted)
            if len(kept) >= KEPT_VIEWS:
                kept.clear()
            kept[id(state)] = (state, seen_as, view)
            out.append(view)
        if len(states) >= WHOLE_LISTING_PAST and not branched:
            if len(self._listings) >= KEPT_LISTINGS:
                self._listings.clear()
            self._listings[(len(states), seen_as)] = (tuple(states), tuple(out))
        return out


class SessionInfo(msgspec.Struct, frozen=True):
    id: str
    path: str
    cwd: str
    created: str
    entries: int
    leaf_id: str | None
    branch: tuple[str, ...] = ()
