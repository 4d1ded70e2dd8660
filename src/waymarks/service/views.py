"""How items and sessions are presented to adapters: plain values with a JSON form."""

from __future__ import annotations

from typing import Any

import msgspec


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


class SessionInfo(msgspec.Struct, frozen=True):
    id: str
    path: str
    cwd: str
    created: str
    entries: int
    leaf_id: str | None
    branch: tuple[str, ...] = ()
