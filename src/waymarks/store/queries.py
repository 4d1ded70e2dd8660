"""Read queries over the projection for what one session may see.

Visibility: a session sees its own items (session and branch scope) and its project's
items (project scope); whether project items *apply* also needs trust, which the caller
knows. Each query is written for the indexes: one indexed range per side (the session's
items, the project's items) instead of an OR, the unique ID index for lookups by ID, and
limits applied on each side so that "the newest few" never materialises the whole store.

Every row is verified as it is read (:mod:`waymarks.store.integrity`): its checksum, its
grammar, and that it belongs to the side that returned it; a full listing also returns
exactly as many items per side as the projection counted when it wrote them. Predicates
on columns are checked in Python after the checksum where SQL would otherwise silently
skip a row whose key was flipped. All reads of one answer share one snapshot.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from waymarks.core.rules import ItemState
from waymarks.store.integrity import (
    ITEM_CLASS,
    ITEM_COLUMNS,
    ITEM_ID,
    ITEM_KIND,
    ITEM_PROJECT,
    ITEM_SCOPE,
    ITEM_SEQ,
    ITEM_SESSION,
    ITEM_STATUS,
    SOURCE_FIELDS,
    group_count,
    project_group,
    require,
    session_group,
    snapshot,
    verify_item,
    verify_source,
)
from waymarks.store.rows import state_from_row

Row = tuple[Any, ...]


def visible_items(
    db: sqlite3.Connection, kind: str, session_id: str, project: str, *,
    ids: Sequence[str] | None = None, recent_active: int | None = None,
    recent: int | None = None, oldest: int | None = None, trusted: bool | None = None,
    skip: int = 0,
) -> list[ItemState]:
    """Items of ``kind`` the session may see: in creation order, or, with
    ``recent_active`` (``recent``), that many of the newest active ones (of the newest in
    any status), newest first, or with ``oldest`` that many of the oldest (a page).
    ``trusted`` (given, with ``recent_active``): only those that may be in effect, the
    project's when it is ``trusted`` (:func:`_may_apply`). ``skip`` (with ``recent`` or
    ``oldest``): that many of them passed over first, counted on the indexes, none read
    (:func:`_past`): a deep page of the inspector read, verified and decoded every item
    before it to show 50 (page 300 of 20k memories: 1.1 s)."""
    with snapshot(db):
        if ids is not None:
            rows = _by_ids(db, kind, session_id, project, ids)
        else:
            limit = recent_active if recent_active is not None else recent
            active_only = recent_active is not None
            first = limit is None and oldest is not None
            limit = oldest if first else limit
            if limit is None:
                rows = [r for r in _everything(db, kind, session_id, project)
                        if not active_only or r[ITEM_STATUS] == "active"]
            elif limit <= 0:  # none of the newest (0 was read as no limit, or as one)
                rows = []
            else:
                rows = _newest(db, kind, session_id, project, int(limit), active_only,
                               descending=not first,
                               trusted=trusted if active_only else None,
                               skip=0 if active_only else skip)
    # (each row was verified where it was read: item_rows, _Side.rows)
    return [state_from_row(r, verified=True) for r in rows]


def ids_with_keys(db: sqlite3.Connection, kind: str, session_id: str, project: str,
                  keys: Sequence[str], *, active_only: bool = False) -> list[str]:
    """The IDs of items of ``kind`` the session may see whose key is one of ``keys`` (by
    the key index of each partition it sees; rows are verified where they are read).

    ``active_only``: only those whose status is ``active`` (the caller keeps no other).
    A key corrected 10,000 times (a counter a script updates) holds 10,000 superseded
    items: each was read, verified and decoded for a plan naming the key (0.3-0.4 s at
    10k). The status is filtered in SQL, as a recall's candidates are: a status damaged
    away from ``active`` leaves the claim out of the lookup, as out of recall."""
    if not keys:
        return []
    wanted = sorted(set(keys))
    marks = ",".join("?" * len(wanted))
    alive = " AND status = 'active'" if active_only else ""
    rows = db.execute(
        f"SELECT id FROM items WHERE kind = ? AND partition IN (?, ?) AND key IS NOT NULL"
        f" AND key IN ({marks}){alive}", (kind, f"session:{session_id}",
                                          f"project:{project}", *wanted)).fetchall()
    return [str(r[0]) for r in rows]


def has_given_keys(db: sqlite3.Connection, kind: str, session_id: str, project: str) -> bool:
    """Whether the session may see an active item of ``kind`` whose key was given
    (``--key``), not derived from its words: one probe of ``items_given_key`` (migration
    24), which holds the rows whose record names the field. A row it finds is only a
    hint: the caller reads its keys by :func:`ids_with_keys` and judges the verified rows;
    none found is the answer (a given key is always written under that name)."""
    return db.execute(
        "SELECT 1 FROM items WHERE kind = ? AND partition IN"
        " (?, ?) AND status = 'active' AND instr(record, X'226b6579223a') > 0 LIMIT 1",
        (kind, f"session:{session_id}", f"project:{project}")).fetchone() is not None


def _visible(row: Row, session_id: str, project: str) -> bool:
    return bool(row[ITEM_SESSION] == session_id or (
        row[ITEM_SCOPE] == "project" and row[ITEM_PROJECT] == project))


def _by_ids(db: sqlite3.Connection, kind: str, session_id: str, project: str,
            ids: Sequence[str]) -> list[Row]:
    return visible_rows(item_rows(db, ids), kind, session_id, project)


def item_rows(db: sqlite3.Connection, ids: Sequence[str]) -> list[Row]:
    """The verified ``items`` rows of ``ids`` (those that exist), in no order."""
    # only the ID in SQL: kind and visibility are judged on verified rows
    wanted = set(ids)
    rows = db.execute(
        f"SELECT {ITEM_COLUMNS} FROM items INDEXED BY items_id WHERE id IN"
        f" ({','.join('?' * len(wanted))})", list(wanted)).fetchall()
    for row in rows:
        verify_item(row)
    require(len({r[ITEM_ID] for r in rows}) == len(rows)
            and all(r[ITEM_ID] in wanted for r in rows),
            "the items ID index does not match the items")
    return rows


def visible_rows(rows: Iterable[Row], kind: str, session_id: str, project: str
                 ) -> list[Row]:
    """The verified ``rows`` of ``kind`` the session may see, in creation order."""
    kept = [r for r in rows if r[ITEM_KIND] == kind and _visible(r, session_id, project)]
    return sorted(kept, key=lambda r: r[ITEM_SEQ])


class _Side:
    """One indexed range of visible items (the session's, or the project's), checked row
    by row as it is read: each row verified and belonging to the range, in seq order; and
    when read to the end, exactly as many as the range's group count."""

    def __init__(self, db: sqlite3.Connection, kind: str, group: str, where: str,
                 value: str, descending: bool, start: int | None = None) -> None:
        self.db, self.kind, self.group, self.value = db, kind, group, value
        self.project_side = group.startswith("p:")
        # ``start``: from that seq on (the range read from there is no longer counted)
        bound = "" if start is None else f" AND seq {'<=' if descending else '>='} ?"
        self.cursor = db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE kind = ? AND {where} = ?{bound}"
            f" ORDER BY seq{' DESC' if descending else ''}",
            (kind, value) if start is None else (kind, value, start))
        self.descending, self.start = descending, start

    def rows(self) -> Iterator[Row]:
        seen = 0
        last: int | None = None
        for row in self.cursor:
            verify_item(row)
            belongs = row[ITEM_KIND] == self.kind and (
                (row[ITEM_SCOPE] == "project" and row[ITEM_PROJECT] == self.value)
                if self.project_side else row[ITEM_SESSION] == self.value)
            ordered = last is None or (row[ITEM_SEQ] <= last if self.descending
                                       else row[ITEM_SEQ] >= last)
            require(belongs and ordered, "an items index does not match the items")
            last = row[ITEM_SEQ]
            seen += 1
            yield row
        require(self.start is not None
                or seen == group_count(self.db, self.kind, self.group),
                "a listing does not hold every item the projection counted")

    def close(self) -> None:
        self.cursor.close()


def _sides(db: sqlite3.Connection, kind: str, session_id: str, project: str,
           descending: bool, start: int | None = None) -> tuple[_Side, _Side]:
    return (_Side(db, kind, session_group(session_id), "session_id", session_id, descending,
                  start),
            _Side(db, kind, project_group(project), "scope = 'project' AND project_path",
                  project, descending, start))


def _past(db: sqlite3.Connection, kind: str, session_id: str, project: str, skip: int,
          descending: bool) -> int | None:
    """The seq of the visible item ``skip`` items from the newest (``descending``) or the
    oldest, ``None`` past the last: read from the two sides' indexes (and each project
    item's scope; a row on both sides once, by its rowid), no row verified nor decoded.
    The rows shown from there on are."""
    row = db.execute(
        "SELECT seq FROM (SELECT rowid, seq FROM items WHERE kind = ?1 AND session_id = ?2"
        " UNION SELECT rowid, seq FROM items WHERE kind = ?1 AND scope = 'project'"
        f" AND project_path = ?3) ORDER BY seq{' DESC' if descending else ''}"
        " LIMIT 1 OFFSET ?4", (kind, session_id, project, skip)).fetchone()
    return None if row is None else int(row[0])


def _everything(db: sqlite3.Connection, kind: str, session_id: str, project: str
                ) -> list[Row]:
    mine, theirs = _sides(db, kind, session_id, project, descending=False)
    merged: dict[str, Row] = {}
    for row in (*mine.rows(), *theirs.rows()):
        # the session's own project items come from both sides: the same row twice
        require(merged.setdefault(row[ITEM_ID], row) == row, "two items rows share an ID")
    return sorted(merged.values(), key=lambda r: r[ITEM_SEQ])


def _may_apply(row: Row, project: str, trusted: bool) -> bool:
    """Whether a visible row may be in effect: the session's own session and branch
    items, and this project's items when it is trusted (another project's, listed for a
    session used from here, never; a branch item off the branch is the caller's to
    judge)."""
    return row[ITEM_SCOPE] != "project" or (trusted and row[ITEM_PROJECT] == project)


def _newest(db: sqlite3.Connection, kind: str, session_id: str, project: str, limit: int,
            active_only: bool, descending: bool = True, trusted: bool | None = None,
            skip: int = 0) -> list[Row]:
    # Both sides newest first (oldest first, not ``descending``), merged lazily: statuses
    # are filtered here, after each row's checksum, so that a row whose status was
    # damaged cannot silently drop out. With ``trusted`` given, rows that cannot be in
    # effect are passed over too (the untrusted project's side is not read): twelve newer
    # claims of an untrusted project left a plan's continuity with none of the session's.
    start = _past(db, kind, session_id, project, skip, descending) if skip > 0 else None
    if skip > 0 and start is None:  # past the last item
        return []
    sides: tuple[_Side, ...] = _sides(db, kind, session_id, project, descending, start)
    if trusted is False:
        sides[1].close()
        sides = sides[:1]
    order = -1 if descending else 1
    try:
        out: list[Row] = []
        seen: set[str] = set()
        for row in heapq.merge(*(s.rows() for s in sides),
                               key=lambda r: order * r[ITEM_SEQ]):
            if row[ITEM_ID] in seen:
                continue
            seen.add(row[ITEM_ID])
            if (not active_only or row[ITEM_STATUS] == "active") and (
                    trusted is None or _may_apply(row, project, trusted)):
                out.append(row)
                if len(out) >= limit:
                    break
        return out
    finally:
        for side in sides:
            side.close()


def visible_count(db: sqlite3.Connection, kind: str, session_id: str, project: str) -> int:
    """How many items of ``kind`` the session may see (as many as :func:`visible_items`
    lists), counted on the indexes the listing reads, no row read: the session's own,
    and its project's, less the session's own project items, which both hold."""
    row = db.execute(
        "SELECT (SELECT count(*) FROM items WHERE session_id = ?2 AND kind = ?1)"
        " + (SELECT count(*) FROM items WHERE project_path = ?3 AND kind = ?1"
        "    AND scope = 'project')"
        " - (SELECT count(*) FROM items WHERE session_id = ?2 AND kind = ?1"
        "    AND scope = 'project' AND project_path = ?3)",
        (kind, session_id, project)).fetchone()
    return int(row[0])


def memory_counts(db: sqlite3.Connection, session_id: str,
                  project: str) -> list[tuple[str, str, int]]:
    """(status, scope, count) of the memory the session may see: as many as
    :func:`visible_items` lists. ``scope`` is ``project`` for this project's project
    claims and ``other-project`` for the session's own project claims of another project
    (a session used from another directory: listed, in effect only in their project).

    The active claims of the session (its own, and its project claims of this project)
    and the project's active claims of other sessions (nearly all of a large store) are
    counted in SQL; every other row is read and verified (checksum, grammar, side) and
    tallied in Python, and the two sides' totals must equal the projection's group counts
    (a project claim whose scope turned ``session`` is then one short of its project's).
    A damaged status or scope that takes an active claim out of its tally (``retired``,
    ``superseded``, ``branch``) is then on a verified row: damage, set aside and rebuilt,
    as when every row was read (1.8 s at 100k claims). Before, the session's own project
    claims of another project were left out (``status`` said 2 stored where ``memory``
    listed 3, and the inspector 3)."""
    tally: Counter[tuple[str, str]] = Counter()
    mine_side = "kind = 'memory' AND session_id = ?"
    # the session's active claims of its own and of this project: counted, not read
    plain = ("status = 'active' AND (scope = 'session' OR (scope = 'project'"
             " AND project_path = ?))")
    their_side = "kind = 'memory' AND scope = 'project' AND project_path = ? AND session_id != ?"
    with snapshot(db):
        mine, here = (int(n or 0) for n in db.execute(
            f"SELECT count(*), sum(scope = 'project') FROM items WHERE {mine_side}"
            f" AND {plain}", (session_id, project)).fetchone())
        tally[("active", "session")] += mine - here
        tally[("active", "project")] += here  # (in both groups: ``here``)
        for row in _checked(db, f"{mine_side} AND NOT ({plain})", (session_id, project),
                            lambda r: r[ITEM_SESSION] == session_id):
            scope = row[ITEM_SCOPE]
            if scope == "project":
                here += row[ITEM_PROJECT] == project
                scope = "project" if row[ITEM_PROJECT] == project else "other-project"
            tally[(row[ITEM_STATUS], scope)] += 1
            mine += 1
        (theirs,) = db.execute(f"SELECT count(*) FROM items WHERE {their_side}"
                               " AND status = 'active'", (project, session_id)).fetchone()
        tally[("active", "project")] += theirs
        for row in _checked(db, f"{their_side} AND status != 'active'",
                            (project, session_id), lambda r: (
                                r[ITEM_SCOPE] == "project" and r[ITEM_PROJECT] == project
                                and r[ITEM_SESSION] != session_id)):
            tally[(row[ITEM_STATUS], "project")] += 1
            theirs += 1
        require(mine == group_count(db, "memory", session_group(session_id))
                and theirs + here == group_count(db, "memory", project_group(project)),
                "the memory counts do not hold every item the projection counted")
    return [(status, scope, n) for (status, scope), n in tally.items() if n]


def _checked(db: sqlite3.Connection, where: str, args: tuple[str, ...],
             belongs: Callable[[Row], bool]) -> Iterator[Row]:
    """The memory rows ``where`` selects, each verified and belonging to its side."""
    for row in db.execute(f"SELECT {ITEM_COLUMNS} FROM items WHERE {where}", args):
        verify_item(row)
        require(row[ITEM_KIND] == "memory" and belongs(row),
                "an items index does not match the items")
        yield row


def expand_prefix(db: sqlite3.Connection, kind: str, ref: str, session_id: str,
                  project: str) -> str | None:
    """The one visible ID starting with ``ref``, or ``None`` (none, or ambiguous)."""
    found = ids_starting(db, kind, ref, session_id, project, 2)
    return found[0] if len(found) == 1 else None


def ids_starting(db: sqlite3.Connection, kind: str, ref: str, session_id: str,
                 project: str, limit: int = -1) -> list[str]:
    """The visible IDs of ``kind`` starting with ``ref``, at most ``limit`` (-1: all),
    read from the ID index alone: a caller reads their rows by ID, which verifies them."""
    return [str(row[0]) for row in db.execute(
        "SELECT id FROM items WHERE kind = ? AND id >= ? AND id < ? || x'ff'"
        " AND (session_id = ? OR (project_path = ? AND scope = 'project')) LIMIT ?",
        (kind, ref, ref, session_id, project, limit))]


def classifications(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, str | None]:
    """The explicit classification of each item (read from verified rows: a damaged
    classification must never pass for a lower one)."""
    if not ids:
        return {}
    rows = db.execute(
        f"SELECT {ITEM_COLUMNS} FROM items WHERE id IN ({','.join('?' * len(ids))})",
        list(ids)).fetchall()
    for row in rows:
        verify_item(row)
    return {str(r[ITEM_ID]): r[ITEM_CLASS] for r in rows}


def project_sources(db: sqlite3.Connection, project: str, limit: int
                    ) -> list[tuple[str, str, str, str | None, int, int, bool, int]]:
    """Session files of ``project`` known to the projection, newest first, at most
    ``limit``: (session ID, path, status, detail, items contributed, mutations held back,
    excluded, last indexed)."""
    from waymarks.core.replay import SOURCE_EXCLUDED  # the fold's: not on a recall's path

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


def checkpoint_of(db: sqlite3.Connection, session_id: str
                  ) -> tuple[str, int, int, int, str] | None:
    """Where a session was indexed to: (path, byte offset, lines, entries, fingerprint)."""
    row = db.execute(f"SELECT {SOURCE_FIELDS}, checksum FROM sources WHERE session_id = ?",
                     (session_id,)).fetchone()
    if row is None:
        return None
    verify_source(row)
    return checkpoint_in(row)


def checkpoint_in(row: Sequence[Any]) -> tuple[str, int, int, int, str]:
    """The checkpoint a verified source row holds (see :func:`checkpoint_of`)."""
    return str(row[1]), int(row[3]), int(row[4]), int(row[5]), str(row[6] or "")


def sessions_indexed_at(db: sqlite3.Connection, path: str, other_than: str) -> list[str]:
    """Sessions the projection indexed from the file at ``path``, other than
    ``other_than``: if any, the file now holds another session than it did."""
    return [str(sid) for (sid,) in db.execute(
        "SELECT session_id FROM sources WHERE path = ? AND session_id != ?"
        " ORDER BY session_id", (path, other_than))]
