"""Where an item came from and what became of it, for the person inspecting memory
(``waymarks memory show``, the dates of lists, ``export``).

Everything here is read-only and limited to what the session may see: the item and the
items of its supersession chain are looked up through :meth:`Waymarks.items`, and only
their own mutations are read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import msgspec

from waymarks.ledger.entries import entries_named
from waymarks.service.views import ItemView

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

Kind = Literal["pin", "memory"]
MAX_CHAIN = 100  # a supersession chain longer than this is cut (and says so)


class Event(msgspec.Struct, frozen=True):
    """One mutation naming the item (its creation, a status change)."""

    at: int
    session_id: str
    entry_id: str
    operation: str
    applied: bool
    note: str | None

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "sessionId": self.session_id, "entryId": self.entry_id,
                "operation": self.operation, "applied": self.applied, "note": self.note}


class SourceEntry(msgspec.Struct, frozen=True):
    """An entry a write named as its source; ``type`` and ``timestamp`` when it is in
    the active session's file."""

    id: str
    type: str | None
    timestamp: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "timestamp": self.timestamp}


class Provenance(msgspec.Struct, frozen=True):
    item: ItemView
    updated_at: int
    #: oldest first, the item itself included; ``truncated`` when cut at MAX_CHAIN
    chain: tuple[ItemView, ...]
    events: tuple[Event, ...]
    sources: tuple[SourceEntry, ...]
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"item": {**self.item.to_json(), "updatedAt": self.updated_at},
                "chain": [{"id": v.id, "status": v.status, "createdAt": v.created_at,
                           "current": v.id == self.item.id} for v in self.chain],
                "chainTruncated": self.truncated,
                "events": [e.to_json() for e in self.events],
                "sourceEntries": [s.to_json() for s in self.sources]}


def updated_at(app: Waymarks, views: list[ItemView]) -> dict[str, int]:
    """When each item last changed: its newest applied mutation, or the creation of the
    item that superseded it (at least its own creation)."""
    if not views:
        return {}
    changed = app.projection.last_changed([v.id for v in views]
                           + [v.superseded_by for v in views if v.superseded_by])
    result = {}
    for view in views:
        times = [view.created_at, changed.get(view.id, 0)]
        if view.superseded_by:
            times.append(changed.get(view.superseded_by, 0))
        result[view.id] = max(times)
    return result


def newest(app: Waymarks, kind: Kind, limit: int) -> tuple[list[ItemView], int]:
    """The ``limit`` newest items of ``kind`` the session may see, oldest first (the last
    ``limit`` of :meth:`Waymarks.items`), and how many it may see in all: ``limit`` rows
    read and checked, the others counted in SQL. A listing cut to the newest few read
    and checked every item (``memory list --limit 1`` at 100k: 2.4 s, 157 MB)."""
    with app.begin():
        return app.items(kind, recent=limit)[::-1], visible_count(app, kind)


def visible_count(app: Waymarks, kind: Kind) -> int:
    """How many items of ``kind`` the session may see (as many as :meth:`Waymarks.items`
    lists), counted in SQL: no row is read, nor checked (a listing of them checks them)."""
    session = app.refresh()
    # without a session, the project's items (as :meth:`Waymarks.items` lists them)
    sid = session.session_id if session is not None else ""
    return app.projection.visible_count(kind, sid, app.cwd)


def provenance(app: Waymarks, kind: Kind, item_id: str) -> Provenance | None:
    """The item ``item_id`` (a full ID) with its chain, mutations and sources; ``None``
    if the session cannot see it."""
    found = app.items(kind, ids=[item_id])
    if not found:
        return None
    item = found[0]
    chain, truncated = _chain(app, kind, item)
    events = tuple(Event(at, session, entry, op, effect == "applied", note)
                   for at, session, entry, op, effect, note
                   in app.projection.mutations_of(item.id))
    session = app.current_session()
    # only the lines naming a source are decoded (``memory show`` read all 60k entries of
    # a session to date them: 3 s; and for nothing when a claim had none)
    known = entries_named(session, item.source_entry_ids) if session is not None else {}
    sources = tuple(SourceEntry(s, known[s].type if s in known else None,
                                known[s].timestamp if s in known else None)
                    for s in item.source_entry_ids)
    return Provenance(item, updated_at(app, [item])[item.id], chain, events, sources,
                      truncated)


def _chain(app: Waymarks, kind: Kind, item: ItemView) -> tuple[tuple[ItemView, ...], bool]:
    """The supersession chain through ``item``: what it replaced, back to the first, and
    what replaced it, up to the newest."""
    before: list[ItemView] = []
    current = item
    while current.supersedes and len(before) < MAX_CHAIN:
        older = app.items(kind, ids=[current.supersedes])
        if not older:
            break
        current = older[0]
        before.append(current)
    after: list[ItemView] = []
    current = item
    while current.superseded_by and len(after) < MAX_CHAIN:
        newer = app.items(kind, ids=[current.superseded_by])
        if not newer:
            break
        current = newer[0]
        after.append(current)
    truncated = len(before) >= MAX_CHAIN or len(after) >= MAX_CHAIN
    return (*reversed(before), item, *after), truncated
