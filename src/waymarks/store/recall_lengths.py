"""Each recall record's length (its distinct terms), one byte a row, packed by row ID
(``recall_lengths``), so the ranking orders a large group of rows by length without a
document-size lookup per row.

:func:`~waymarks.store.recall_rank.ranked` reads a group of rows holding only common terms
in (length, row ID) order, and took each row's length from FTS5's ``_docsize`` table: one
primary-key lookup per row, 10.6 of the 15.9 ms of CPU a group of 28,665 rows cost at a
million claims (the match alone: 1.1 ms). Here the lengths are a byte string indexed by
row ID: the group's row IDs are gathered from it in C (``operator.itemgetter``) and the
shortest found with ``bytes.find``.

A byte holds a length below 128 (FTS5 stores those as a one-byte varint); 128 or more is
stored as 255, a row the ranking reads from ``_docsize`` after every shorter one (a longer
varint sorts after); 0 is a row not written here, and a group holding one is ranked the
old way. Chunks of :data:`CHUNK` rows, so an added record rewrites one 4 KB row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import Final

#: rows a chunk holds
CHUNK: Final = 4096
#: the byte of a record of 128 terms or more (read from ``_docsize``)
LONG: Final = 255
CREATE: Final = ("CREATE TABLE recall_lengths (chunk INTEGER PRIMARY KEY,"
                 " sizes BLOB NOT NULL) STRICT")


def note(db: sqlite3.Connection, lengths: Iterable[tuple[int, int]]) -> None:
    """Write the lengths of records just added (``(rowid, distinct terms)``)."""
    chunks: dict[int, bytearray] = {}
    for rowid, length in lengths:
        chunk = rowid // CHUNK
        sizes = chunks.get(chunk)
        if sizes is None:
            row = db.execute("SELECT sizes FROM recall_lengths WHERE chunk = ?",
                             (chunk,)).fetchone()
            sizes = chunks[chunk] = bytearray(CHUNK)
            if row is not None:
                old = bytes(row[0])[:CHUNK]
                sizes[:len(old)] = old
        sizes[rowid % CHUNK] = length if length < 128 else LONG
    db.executemany("INSERT INTO recall_lengths (chunk, sizes) VALUES (?, ?) ON CONFLICT"
                   " (chunk) DO UPDATE SET sizes = excluded.sizes",
                   [(chunk, bytes(sizes)) for chunk, sizes in chunks.items()])


def refill(db: sqlite3.Connection) -> None:
    """Every length read again from FTS5's document sizes (``recall_terms_docsize``)."""
    db.execute("DELETE FROM recall_lengths")
    note(db, ((rowid, size[0] if len(size) == 1 else LONG) for rowid, size in db.execute(
        "SELECT id, sz FROM recall_terms_docsize WHERE length(sz) > 0 ORDER BY id")))


def clear(db: sqlite3.Connection) -> None:
    """Forget every length (the index was emptied); an older schema has no table yet."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                  " AND name = 'recall_lengths'").fetchone():
        db.execute("DELETE FROM recall_lengths")


def reader(db: sqlite3.Connection) -> Callable[[], bytes]:
    """The lengths of every row as one byte string (read on the first call, then kept)."""
    kept: list[bytes] = []

    def read() -> bytes:
        if not kept:
            rows = db.execute("SELECT chunk, sizes FROM recall_lengths ORDER BY chunk"
                              ).fetchall()
            # a gap or a short chunk (not written so): every row unknown, ranked the old way
            whole = all(chunk == n and len(sizes) == CHUNK
                        for n, (chunk, sizes) in enumerate(rows))
            kept.append(b"".join(sizes for _, sizes in rows) if whole else b"")
        return kept[0]

    return read
