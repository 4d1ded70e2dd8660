"""Sessions of this project as sources of project memory, and the local policy that
withdraws one source's project contributions.

An exclusion lives only in SQLite: deleting the database resets it, and no session file is
ever rewritten. It withdraws the source's project-scoped pins and memory (adds,
supersedes and status changes of project items) and nothing else. The active session
cannot be newly excluded; an earlier exclusion of it may be lifted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.service.outcomes import ServiceError
from waymarks.service.ports import epoch_ms
from waymarks.service.recovery import recovering
from waymarks.store.queries import project_sources

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


@dataclass(frozen=True, slots=True)
class SourceView:
    session_id: str
    path: str
    status: str  # "available" | "missing"
    contributed: int  # project items this source's mutations hold in the projection
    held_back: int  # project mutations an exclusion keeps out
    excluded: bool
    active: bool
    updated_at: int

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "path": self.path, "status": self.status,
                "contributed": self.contributed, "heldBack": self.held_back,
                "excluded": self.excluded, "active": self.active, "updatedAt": self.updated_at}


@recovering
def list_sources(app: Waymarks, limit: int = 1000) -> list[SourceView]:
    """The session files of this project the projection knows, newest first."""
    session = app.refresh()
    active = session.session_id if session is not None else None
    return [SourceView(sid, path, "available" if Path(path).is_file() else "missing",
                       contributed, held, excluded, sid == active, updated)
            for sid, path, contributed, held, excluded, updated
            in project_sources(app.projection.db, app.cwd, limit)]


@recovering
def set_source_excluded(app: Waymarks, session_id: str, excluded: bool,
                        reason: str | None = None) -> bool:
    """Exclude (or include again) one source; returns whether the policy changed."""
    session = app.refresh()
    if excluded and session is not None and session.session_id == session_id:
        raise ServiceError("active_source", "The active session cannot be excluded; exclude "
                           "it from another session")
    known = app.projection.db.execute(
        "SELECT 1 FROM sources WHERE session_id = ? AND cwd = ?", (session_id, app.cwd)
    ).fetchone()
    if known is None and excluded:
        raise ServiceError("not_found", f"No session {session_id} of {app.cwd} is known; list "
                           "them with `waymarks memory sources`")
    with app.projection.transaction():
        return app.projection.set_excluded(session_id, excluded, reason=reason,
                                           now_ms=epoch_ms(app.clock.now()))
