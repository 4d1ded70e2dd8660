"""Each recall term's document frequency, kept in a small table (``recall_df``).

:meth:`~waymarks.store.recall_index.RecallIndex.stats` needs how many records hold each of
a query's terms. Read from FTS5 (``fts5vocab``), that count walks the term's whole posting
list: 4-10 ms of CPU for a word a seventh of a million claims hold, each time a process
first asks for it (a prompt's hook is such a process). Here it is one primary-key lookup.

Every term occurs at most once in a recall document (the index writes each record's set of
terms), so a term's count is the number of rows holding it, exactly ``fts5vocab``'s
``doc``; records are only appended, or all removed at once, so the table is kept by adding
each batch's counts (:func:`note`), emptied with the index (:func:`clear`), and, when the
index was written from empty in one call (a rebuild, a first catch-up), filled from the
vocabulary in one pass (:func:`refill`: one ordered scan instead of an upsert per term and
batch). Migration 25 fills it for an index written before it existed.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable
from typing import Final

from waymarks.store.integrity import require

#: the table (``create_tables``, migration 2's schema, and migration 25)
CREATE: Final = ("CREATE TABLE recall_df (term TEXT PRIMARY KEY, docs INTEGER NOT NULL)"
                 " STRICT, WITHOUT ROWID")


def note(db: sqlite3.Connection, postings: Iterable[tuple[int, str]]) -> None:
    """Count the terms of records just added (``(rowid, "t1 t2 ...")``, distinct terms)."""
    counts = Counter(" ".join(terms for _, terms in postings).split())
    db.executemany("INSERT INTO recall_df (term, docs) VALUES (?, ?) ON CONFLICT (term)"
                   " DO UPDATE SET docs = docs + excluded.docs", counts.items())


def refill(db: sqlite3.Connection) -> None:
    """Every term's count read again from the full-text index (``recall_vocab``)."""
    db.execute("DELETE FROM recall_df")
    db.execute("INSERT INTO recall_df (term, docs) SELECT term, doc FROM recall_vocab")


def clear(db: sqlite3.Connection) -> None:
    """Forget every count (the index was emptied). An older schema's index (a migration
    before 25 resets it) has no table yet: 25 fills it."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_df'"
                  ).fetchone():
        db.execute("DELETE FROM recall_df")


def frequency(db: sqlite3.Connection, term: str, records: int) -> int | None:
    """How many of the index's ``records`` hold ``term``; ``None`` when none does. A
    count no index of ``records`` rows can hold (none, more than all) is damage, the
    database's (:class:`~waymarks.store.integrity.ProjectionDamaged`: set aside and
    rebuilt); bm25's IDF of a count past the rows was a math domain error. (A count off
    by less only moves the ranking; ``STRICT`` keeps it an integer.)"""
    row = db.execute("SELECT docs FROM recall_df WHERE term = ?", (term,)).fetchone()
    if row is None:
        return None
    docs = int(row[0])
    require(0 < docs <= records,
            f"recall_df holds a count outside the index's {records} records")
    return docs
