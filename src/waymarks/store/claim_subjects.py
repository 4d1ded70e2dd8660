"""The subject terms of stored claims: a write finds the claims it may contradict without
reading every active claim.

A write's contradiction check (:func:`waymarks.core.rules.find_contradictions`) compares
the new claim's signature (:func:`waymarks.core.contradiction.signature`: subject terms
and values) with the claims the writer sees. It read every active claim of each
partition and worked out each one's signature: 27 ms a write at 10k memories, 2.8 s at
100k (the signature memo holds 65,536), growing with the store. A claim can contradict
only one whose subject equals its own, or contains the other's with at most
``MAX_EXTRA_TERMS`` terms more: so it holds every term of the smaller subject, and any
``MAX_EXTRA_TERMS + 1`` of the new claim's terms include one of its terms. The claims
holding those terms (the rarest of the new claim's) are all the candidates; the check
itself is unchanged.

Derived and rebuildable, like the recall index: rows name items by row ID, a bulk load
(a rebuild, a re-fold) numbers the items afresh and forgets them all (:func:`reset`), and
they are caught up lazily, from the last item row indexed, by the next write that asks
(:func:`catch_up`): a rebuild does not work out the signature of a million claims that
may never be written beside. Damage here can only hide a contradiction (the check is a
refusal, never a write), and a rebuild restores it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Final

from waymarks.core.contradiction import MAX_EXTRA_TERMS, signature

#: how far the rows are caught up (the last ``items`` row ID looked at)
_UPTO: Final = "claim_subjects_upto"
#: postings counted per term when choosing the rarest (more tell nothing more)
_COUNT_CAP: Final = 4096
#: the terms whose claims are read: any claim a new one may contradict holds one of them
LOOKUP_TERMS: Final = MAX_EXTRA_TERMS + 1


def create_table(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE claim_subjects (term TEXT NOT NULL, item INTEGER NOT NULL,"
               " PRIMARY KEY (term, item)) WITHOUT ROWID, STRICT")


def reset(db: sqlite3.Connection) -> None:
    """Forget every row (the items were numbered afresh); caught up again on demand."""
    db.execute("DELETE FROM claim_subjects")
    db.execute("DELETE FROM meta WHERE name = ?", (_UPTO,))


def catch_up(db: sqlite3.Connection) -> int:
    """Index the memory items added since the last call (inside a write transaction);
    returns how many were looked at."""
    row = db.execute("SELECT value FROM meta WHERE name = ?", (_UPTO,)).fetchone()
    upto = int(row[0]) if row is not None else 0
    (last,) = db.execute("SELECT coalesce(max(rowid), 0) FROM items").fetchone()
    if last <= upto:
        return 0
    items = db.execute("SELECT rowid, text FROM items WHERE kind = 'memory' AND rowid > ?"
                       " AND rowid <= ?", (upto, last)).fetchall()
    db.executemany("INSERT OR IGNORE INTO claim_subjects (term, item) VALUES (?, ?)",
                   _rows(items))
    db.execute("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
               " DO UPDATE SET value = excluded.value", (_UPTO, str(last)))
    return len(items)


def _rows(items: Iterable[tuple[int, str]]) -> Iterable[tuple[str, int]]:
    for rowid, text in items:
        found = signature(str(text))
        if found is not None:
            for term in found.subject:
                yield term, rowid


def texts_sharing(db: sqlite3.Connection, partition: str, subject: frozenset[str]
                  ) -> list[tuple[str, str]]:
    """``(id, text)`` of the active memory items in ``partition``, oldest first, holding
    one of the rarest ``LOOKUP_TERMS`` terms of ``subject``: every claim whose subject
    may equal or contain ``subject``, or be contained in it (inside a write transaction:
    the rows are caught up first)."""
    if not subject:
        return []
    catch_up(db)
    terms = sorted(subject)
    if len(terms) > LOOKUP_TERMS:
        counts = {term: db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM claim_subjects WHERE term = ? LIMIT ?)",
            (term, _COUNT_CAP)).fetchone()[0] for term in terms}
        terms = sorted(terms, key=lambda term: (counts[term], term))[:LOOKUP_TERMS]
    marks = ",".join("?" * len(terms))
    # the rows of the terms first (CROSS JOIN keeps that order): SQLite otherwise walked
    # every active claim of the partition by its index, 13 ms at 100k, to test each one
    rows = db.execute(
        "SELECT i.id, i.text FROM (SELECT DISTINCT item FROM claim_subjects"
        f" WHERE term IN ({marks})) AS s CROSS JOIN items AS i ON i.rowid = s.item"
        " WHERE i.status = 'active' AND i.kind = 'memory' AND i.partition = ?"
        " ORDER BY i.seq", (*terms, partition))
    return [(str(item_id), str(text)) for item_id, text in rows]
