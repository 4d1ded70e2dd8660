"""A projection's local source policy: exclusions and source statuses, which withdraw a
source's project contributions.

Local policy is derived, not canonical: it lives only in SQLite, a rebuild keeps it, and
deleting the database resets it (seed 000). Every change of what a source contributes
re-folds the stored mutations (:meth:`SourcePolicy.refold`, the projection's), inside
the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

#: ``meta`` row: why a repair could not take over every source exclusion (local policy)
LOST_EXCLUSIONS: Final = "exclusions_lost"


class SourcePolicy:
    """The local source policy of :class:`~waymarks.store.projection.Projection`."""

    db: sqlite3.Connection

    def refold(self) -> None:
        raise NotImplementedError  # (the projection's)

    def excluded_sessions(self) -> dict[str, str | None]:
        """Sessions excluded by local policy, with the reason given."""
        return dict(self.db.execute("SELECT session_id, reason FROM source_exclusions"))

    def adopt_exclusions(self, aside: Path) -> tuple[list[str], str | None, bool]:
        """Take over the exclusions of a database set aside as damaged (see
        :mod:`waymarks.store.salvage`): the sessions taken over, why some were not (such
        a note the copy held too: :meth:`lost_exclusions`), and whether the copy could
        be read at all (if not, whether it held any exclusion is unknown)."""
        from waymarks.store import salvage  # (only a repair reads a set-aside copy)

        rows, problem = salvage.read_exclusions(aside, LOST_EXCLUSIONS)
        salvage.restore_exclusions(self.db, rows)
        read = problem is None or not problem.startswith(salvage.UNREADABLE)
        return [row[0] for row in rows], problem, read

    def note_lost_exclusions(self, why: str) -> None:
        """Keep why a repair could not take over every exclusion (:meth:`lost_exclusions`)."""
        self.db.execute("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                        " DO UPDATE SET value = excluded.value", (LOST_EXCLUSIONS, why))

    def lost_exclusions(self) -> str | None:
        """Why a repair could not take over every source exclusion of the database it
        set aside, until an exclusion is set or lifted here (the person has looked at the
        sources since); ``None``: nothing was lost. Kept across rebuilds."""
        row = self.db.execute("SELECT value FROM meta WHERE name = ?",
                              (LOST_EXCLUSIONS,)).fetchone()
        return None if row is None else str(row[0])

    def withheld_sessions(self) -> set[str]:
        """Sessions whose project contributions do not count: excluded, or whose file
        is not available as it was indexed (missing, truncated, moved, …)."""
        return {str(sid) for (sid,) in self.db.execute(
            "SELECT session_id FROM source_exclusions UNION"
            " SELECT session_id FROM sources WHERE status != 'available'")}

    def set_source_status(self, session_id: str, status: str, detail: str | None,
                          now_ms: int) -> bool:
        """Record what a check of a source file found (inside :meth:`transaction`);
        re-folds when its availability changed. Returns whether it did."""
        row = self.db.execute("SELECT status FROM sources WHERE session_id = ?",
                              (session_id,)).fetchone()
        if row is None:
            return False
        self.db.execute("UPDATE sources SET status = ?, status_detail = ?, checked_at = ?"
                        " WHERE session_id = ?", (status, detail, now_ms, session_id))
        if (row[0] == "available") == (status == "available"):
            return False
        self.refold()
        return True

    def note_file(self, session_id: str, size: int, mtime_ns: int, ctime_ns: int,
                  now_ms: int) -> None:
        """What the source file looked like when its checkpoint was last confirmed."""
        self.db.execute("UPDATE sources SET size = ?, mtime_ns = ?, ctime_ns = ?,"
                        " checked_at = ? WHERE session_id = ?",
                        (size, mtime_ns, ctime_ns, now_ms, session_id))

    def set_excluded(self, session_id: str, excluded: bool, *, reason: str | None = None,
                     now_ms: int = 0) -> bool:
        """Exclude or restore one source (inside :meth:`transaction`); re-folds when that
        changes anything. Returns whether it did."""
        if excluded == (session_id in self.excluded_sessions()):
            return False
        if excluded:
            self.db.execute("INSERT INTO source_exclusions (session_id, reason, excluded_at)"
                            " VALUES (?, ?, ?)", (session_id, reason, now_ms))
        else:
            self.db.execute("DELETE FROM source_exclusions WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM meta WHERE name = ?", (LOST_EXCLUSIONS,))
        self.refold()
        return True
