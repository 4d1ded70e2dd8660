"""What the inspector's timeline asks of the items: how many changes each day saw, and
which changes are the newest, counted and chosen in SQL, no row decoded.

A change is an item's creation (an add, or a supersede when it replaced another), at its
``created_at``, and, for an item taken out of effect (invalid, expired, deleted), that
end at its last change: its newest applied mutation, or the creation of the item that
superseded it, at least its own creation (as
:func:`waymarks.service.provenance.updated_at` dates it). The timeline shows the newest
few, read by ID afterwards (which verifies their rows); every change of a store was read,
verified and decoded for each request (3 s at 20k items).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

from waymarks.core.model import ENDING_CHANGES as ENDS

#: the items a session sees: its own, and its project's (one indexed range each)
_VISIBLE: Final = ("SELECT rowid FROM items WHERE kind = :kind AND session_id = :session"
                   " UNION SELECT rowid FROM items WHERE kind = :kind"
                   " AND scope = 'project' AND project_path = :project")
_LAST: Final = ("coalesce((SELECT max(m.timestamp_ms) FROM mutations m WHERE"
                " m.effect = 'applied' AND m.target_id = {}), 0)")
_CHANGED: Final = (f"max(i.created_at, {_LAST.format('i.id')},"
                   f" {_LAST.format('i.superseded_by')})")
_ENDED: Final = f"i.status IN ({', '.join(repr(s) for s in ENDS)})"
_DAY: Final = "CASE WHEN {0} > 0 THEN date({0} / 1000, 'unixepoch') ELSE 'unknown' END"


def _where(scope: str, status: str) -> str:
    return (f"i.rowid IN ({_VISIBLE})" + (" AND i.scope = :scope" if scope else "")
            + (" AND i.status = :status" if status else ""))


def _arguments(kind: str, session_id: str, project: str, scope: str, status: str,
               **more: Any) -> dict[str, Any]:
    return {"kind": kind, "session": session_id, "project": project, "scope": scope,
            "status": status, **more}


def day_counts(db: sqlite3.Connection, kind: str, session_id: str, project: str,
               scope: str = "", status: str = "") -> list[tuple[str, str, int]]:
    """(day, change, count) of the changes to the items of ``kind`` a session sees
    (``scope``, ``status``: of those alone), the day in UTC (``unknown`` undated)."""
    where = _where(scope, status)
    given = _arguments(kind, session_id, project, scope, status)
    made = db.execute(
        f"SELECT {_DAY.format('i.created_at')}, i.supersedes IS NOT NULL, count(*)"
        f" FROM items i WHERE {where} GROUP BY 1, 2", given).fetchall()
    ended = db.execute(
        f"SELECT {_DAY.format('t')}, status, count(*) FROM (SELECT {_CHANGED} AS t,"
        f" i.status AS status FROM items i WHERE {where} AND {_ENDED}) GROUP BY 1, 2",
        given).fetchall()
    return ([(str(day), "supersede" if replaced else "add", int(n))
             for day, replaced, n in made]
            + [(str(day), ENDS[str(status)], int(n)) for day, status, n in ended])


def newest_changed(db: sqlite3.Connection, kind: str, session_id: str, project: str,
                   limit: int, scope: str = "", status: str = "") -> list[str]:
    """The IDs of the items of the ``limit`` newest creations and of the ``limit`` newest
    ends (as :func:`day_counts` counts them): every item one of the ``limit`` newest
    changes is about, and a few more."""
    where = _where(scope, status)
    given = _arguments(kind, session_id, project, scope, status, limit=limit)
    return [str(found) for (found,) in db.execute(
        f"SELECT id FROM (SELECT i.id FROM items i WHERE {where}"
        " ORDER BY i.created_at DESC, i.id DESC LIMIT :limit)"
        f" UNION SELECT id FROM (SELECT i.id FROM items i WHERE {where} AND {_ENDED}"
        f" ORDER BY {_CHANGED} DESC, i.id DESC LIMIT :limit)", given)]
