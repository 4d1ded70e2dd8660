"""The memory items of the projection by their ``seq``, read through ``items_by_session``
(``session_id, kind, seq``), the one index holding ``seq``: which one is the last, and
which come after a given one, for the recall index's watermark and its catch-up
(:class:`~waymarks.store.recall_index.RecallIndex`)."""

from __future__ import annotations

import sqlite3
from typing import Any, Final

#: every session holding an item, one index seek each (a loose index scan)
_OWNERS: Final = (
    "WITH RECURSIVE owners (owner) AS ("
    " SELECT min(session_id) FROM items"
    " UNION ALL SELECT (SELECT min(session_id) FROM items WHERE session_id > owners.owner)"
    " FROM owners WHERE owners.owner IS NOT NULL)")
#: ``max(seq)`` of memory items, one index seek per session (see :func:`last_memory_seq`)
_LAST_MEMORY_SEQ: Final = (
    f"{_OWNERS} SELECT coalesce(max((SELECT max(seq) FROM items"
    " WHERE session_id = owners.owner AND kind = 'memory')), 0)"
    " FROM owners WHERE owners.owner IS NOT NULL")


def last_memory_seq(db: sqlite3.Connection) -> int:
    """The largest ``seq`` of a memory item (0 without one): what
    ``SELECT max(seq) FROM items WHERE kind = 'memory'`` returns.

    That plain query has no index to seek (``items_by_session`` leads with the session),
    so SQLite read all of it on every recall: 57 ms of a 114 ms recall at 100k memories.
    Here the sessions are walked as a loose index scan (the next session ID after the last
    one, one seek each) and each session's last memory is one seek in the same index: a
    few seeks per session instead of a read of every item."""
    return int(db.execute(_LAST_MEMORY_SEQ).fetchone()[0])


def memory_items_after(db: sqlite3.Connection, columns: str, seq: int, limit: int = -1
                       ) -> list[tuple[Any, ...]]:
    """``columns`` of the memory items whose ``seq`` is past ``seq``, in ``seq`` order, at
    most ``limit`` (-1: all): what ``SELECT columns FROM items WHERE kind = 'memory' AND
    seq > ? ORDER BY seq LIMIT ?`` returns (``columns`` name ``items``' own).

    That plain query has no index to seek either: it read every memory item (through
    ``items_by_norm``, by its kind) and sorted them, on the first recall after each write,
    to find the one or two the write added (0.1 s of CPU at 100k memories). Here each
    session's are one range of ``items_by_session``, and only those are sorted."""
    return db.execute(
        f"{_OWNERS} SELECT {columns} FROM owners CROSS JOIN items"
        " ON items.session_id = owners.owner AND items.kind = 'memory'"
        " AND items.seq > ? WHERE owners.owner IS NOT NULL ORDER BY items.seq LIMIT ?",
        (seq, limit)).fetchall()
