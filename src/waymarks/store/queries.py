"""Read queries over the projection for what one session may see.

Visibility: a session sees its own items (session and branch scope) and its project's
items (project scope); whether project items *apply* also needs trust, which the caller
knows. Each query is written for the indexes: two indexed lookups instead of an OR, the
unique ID index for lookups by ID, and limits applied on each side of a union so that
"the newest few" never materialises the whole store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from waymarks.core.replay import SOURCE_EXCLUDED
from waymarks.core.rules import ItemState
from waymarks.store.projection import ITEM_COLUMNS, state_from_row


def visible_items(
    db: sqlite3.Connection, kind: str, session_id: str, project: str, *,
    ids: Sequence[str] | None = None, recent_active: int | None = None,
    recent: int | None = None,
) -> list[ItemState]:
    """Items of ``kind`` the session may see: in creation order, or, with
    ``recent_active`` (``recent``), that many of the newest active ones (of the newest in
    any status), newest first."""
    if ids is not None:
        rows = db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items INDEXED BY items_id WHERE id IN"
            f" ({','.join('?' * len(ids))}) AND kind = ?"
            " AND (session_id = ? OR (project_path = ? AND scope = 'project')) ORDER BY seq",
            (*ids, kind, session_id, project))
    else:
        where, order, limited = "", " ORDER BY seq", recent_active or recent
        if recent_active is not None:
            where = " AND status = 'active'"
        if limited is not None:  # replay order is creation order: newest = highest seq
            order = f" ORDER BY seq DESC LIMIT {int(limited)}"
        side = f"SELECT * FROM (SELECT {ITEM_COLUMNS} FROM items WHERE kind = ? AND {{}} = ?"
        side += f"{where}{order if limited is not None else ''})"
        by_project = side.format("scope = 'project' AND project_path")
        rows = db.execute(f"{side.format('session_id')} UNION {by_project}{order}",
                          (kind, session_id, kind, project))
    return [state_from_row(r) for r in rows]


def memory_counts(db: sqlite3.Connection, session_id: str,
                  project: str) -> list[tuple[str, str, int]]:
    """(status, scope, count) of the memory the session may see."""
    return [(str(s), str(sc), int(n)) for s, sc, n in db.execute(
        "SELECT status, scope, count(*) FROM items WHERE kind = 'memory' AND"
        " ((scope != 'project' AND session_id = ?) OR"
        " (scope = 'project' AND project_path = ?)) GROUP BY status, scope",
        (session_id, project))]


def expand_prefix(db: sqlite3.Connection, kind: str, ref: str, session_id: str,
                  project: str) -> str | None:
    """The one visible ID starting with ``ref``, or ``None`` (none, or ambiguous)."""
    rows = db.execute(
        "SELECT id FROM items WHERE kind = ? AND id >= ? AND id < ? || x'ff'"
        " AND (session_id = ? OR (project_path = ? AND scope = 'project')) LIMIT 2",
        (kind, ref, ref, session_id, project)).fetchall()
    return str(rows[0][0]) if len(rows) == 1 else None


def classifications(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, str | None]:
    """The explicit classification of each item."""
    if not ids:
        return {}
    return dict(db.execute(
        f"SELECT id, classification FROM items WHERE id IN ({','.join('?' * len(ids))})",
        list(ids)).fetchall())


def project_sources(db: sqlite3.Connection, project: str, limit: int
                    ) -> list[tuple[str, str, str, str | None, int, int, bool, int]]:
    """Session files of ``project`` known to the projection, newest first, at most
    ``limit``: (session ID, path, status, detail, items contributed, mutations held back,
    excluded, last indexed)."""
    rows = db.execute(
        "SELECT s.session_id, s.path, s.status, s.status_detail, s.updated_at,"
        " x.session_id IS NOT NULL,"
        " (SELECT count(*) FROM items i WHERE i.session_id = s.session_id"
        "  AND i.project_path = s.project),"
        " (SELECT count(*) FROM mutations m WHERE m.session_id = s.session_id"
        "  AND m.note = ?)"
        " FROM sources s LEFT JOIN source_exclusions x ON x.session_id = s.session_id"
        " WHERE s.project = ? ORDER BY s.updated_at DESC, s.session_id LIMIT ?",
        (SOURCE_EXCLUDED.reason, project, limit)).fetchall()
    return [(str(sid), str(path), str(status), detail, int(contributed), int(held),
             bool(excluded), int(updated))
            for sid, path, status, detail, updated, excluded, contributed, held in rows]


def source_standing(db: sqlite3.Connection, session_id: str
                    ) -> tuple[str, str | None, bool] | None:
    """Whether a source's project mutations count: (status, detail, excluded), or
    ``None`` if the projection does not know the session."""
    row = db.execute(
        "SELECT s.status, s.status_detail, x.session_id IS NOT NULL FROM sources s"
        " LEFT JOIN source_exclusions x ON x.session_id = s.session_id"
        " WHERE s.session_id = ?", (session_id,)).fetchone()
    return None if row is None else (str(row[0]), row[1], bool(row[2]))


def entry_effect(db: sqlite3.Connection, session_id: str, entry_id: str
                 ) -> tuple[str, str | None] | None:
    """What the projection made of one ledger entry: ("applied", None), ("ignored",
    why), ("refused", why) for a payload the ledger did not accept as a mutation, or
    ``None`` if it has not seen the entry."""
    row = db.execute("SELECT effect, note FROM mutations WHERE session_id = ? AND entry_id = ?",
                     (session_id, entry_id)).fetchone()
    if row is not None:
        return str(row[0]), row[1]
    anomaly = db.execute("SELECT detail FROM anomalies WHERE session_id = ? AND entry_id = ?",
                         (session_id, entry_id)).fetchone()
    return None if anomaly is None else ("refused", str(anomaly[0]))


def source_path(db: sqlite3.Connection, session_id: str) -> str | None:
    """The file a session was last indexed from."""
    row = db.execute("SELECT path FROM sources WHERE session_id = ?", (session_id,)).fetchone()
    return None if row is None else str(row[0])


def sessions_indexed_at(db: sqlite3.Connection, path: str, other_than: str) -> list[str]:
    """Sessions the projection indexed from the file at ``path``, other than
    ``other_than``: if any, the file now holds another session than it did."""
    return [str(sid) for (sid,) in db.execute(
        "SELECT session_id FROM sources WHERE path = ? AND session_id != ?"
        " ORDER BY session_id", (path, other_than))]
