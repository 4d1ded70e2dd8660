"""The rows a :class:`~waymarks.store.recall_cache.RecallCache` chose, read from SQLite.

Only ranking lives in memory (postings, owners, lengths); the chosen ``limit`` rows are
read here with their items, checked against their checksums, and made candidates.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from waymarks.core.records import replace
from waymarks.recall.scoring import Candidate
from waymarks.store.integrity import (
    ITEM_CLASS,
    ITEM_ID,
    ITEM_PROJECT,
    ITEM_SCOPE,
    ITEM_SESSION,
    ITEM_STATUS,
    VerifiedMemo,
    may_see,
    recall_fields,
    require,
    valid_scope,
    valid_status,
    verify_blob_row,
    verify_item,
)
from waymarks.store.recall_index import (
    JOINED_ITEM_COLUMNS,
    RECORD_COLUMNS,
    RECORD_WIDTH,
    RecallIndex,
)

FIELDS_DECODER = msgspec.json.Decoder(dict[str, list[str]])
#: what visibility and status need of an item (ID, scope, project, status, session)
_OWNER_COLUMNS: Final = "i.id, i.scope, i.project_path, i.status, i.session_id"
_NARROW: Final = (0, 1, 2, 3, 4)
#: the same in a whole ``items`` row (``ITEM_COLUMNS`` order), and its classification
_FULL: Final = (ITEM_ID, ITEM_SCOPE, ITEM_PROJECT, ITEM_STATUS, ITEM_SESSION)


def read_rows(index: RecallIndex, known: VerifiedMemo[Candidate], rowids: list[int],
              visible_to: tuple[str, str | None] | None,
              full: bool) -> dict[int, tuple[Candidate | None, str | None]]:
    """Rows ``rowids`` read from SQLite and checked there (a row the postings name but
    the table lacks is damage): each as a candidate with its item's status and
    explicit classification (``full``: read and verified), or ``None`` when the
    session may not see it.

    One query reads each row with its item (lifecycle status, who may see it, its
    explicit classification): three queries per recall before, a fifth of its time."""
    backed = index.items_backed
    # the whole items row (to verify its classification) only when admission needs it
    item_columns = "" if not backed else f", {JOINED_ITEM_COLUMNS}" if (
        full) else f", {_OWNER_COLUMNS}"
    places = _FULL if full else _NARROW
    join = " LEFT JOIN items i ON i.id = r.item_id" if backed else ""
    found = {rowid: tuple(row) for rowid, *row in index.db.execute(
        f"SELECT r.rowid, {RECORD_COLUMNS}{item_columns} FROM recall_records r{join}"
        f" WHERE r.rowid IN ({','.join('?' * len(rowids))})", rowids)}
    require(len(found) == len(set(rowids)),
            "the in-memory recall index names a missing record")
    statuses = _statuses([row[RECORD_WIDTH:] for row in found.values()], places,
                         visible_to) if backed else {}
    out: dict[int, tuple[Candidate | None, str | None]] = {}
    for rowid, whole in found.items():
        row = whole[:RECORD_WIDTH]
        candidate = known.get(rowid, row)
        if candidate is None:
            candidate = _candidate(row)
            known.put(rowid, row, candidate)
        item_class = None
        if backed:
            status = statuses.get(candidate.id)
            if status is None:
                out[rowid] = (None, None)
                continue
            if status != candidate.status:
                candidate = replace(candidate, status=status)
            if full:
                item = whole[RECORD_WIDTH:]
                verify_item(item)
                item_class = item[ITEM_CLASS]
        out[rowid] = (candidate, item_class)
    return out


def _statuses(items: list[tuple[Any, ...]], places: tuple[int, ...],
              visible_to: tuple[str, str | None] | None) -> dict[str, str]:
    """The status of each item the session may see, by ID (:func:`may_see`, from the
    joined rows; ``places``: where ID, scope, project, status and session are in
    them)."""
    at_id, at_scope, at_project, at_status, at_session = places
    session_id, project = visible_to if visible_to is not None else (None, None)
    statuses: dict[str, str] = {}
    for item in items:
        if item[at_id] is None:  # a record without its item: not a candidate
            continue
        status = valid_status(item[at_status])
        scope = valid_scope(item[at_scope])
        if visible_to is None or may_see(scope, item[at_project], item[at_session],
                                         session_id, project):
            statuses[item[at_id]] = status
    return statuses

def _candidate(row: tuple[Any, ...]) -> Candidate:
    """A record row as a candidate, after checking it is exactly as written."""
    verify_blob_row(row, "recall_records")
    item_id, kind, status, origin, created, text, count_, evidence, source, fields, _ = row
    parts = recall_fields(FIELDS_DECODER.decode, fields)
    return Candidate(
        id=item_id, kind=kind, status=status, origin=origin,
        created_at=created, text=text, body=frozenset(parts["body"]),
            sequence=tuple(parts["body"]),
        aliases=frozenset(parts["aliases"]), quoted=frozenset(parts["quoted"]),
        origin_features=frozenset(parts["origin"]), body_count=count_,
        evidence=evidence, source=source)


def to_candidates(found: list[tuple[Candidate, str | None]],
                classes: dict[str, str | None] | None) -> list[Candidate]:
    """The candidates of ``found``, their classifications put in ``classes`` (when given)."""
    if classes is not None:
        classes.update((candidate.id, item_class) for candidate, item_class in found)
    return [candidate for candidate, _ in found]
