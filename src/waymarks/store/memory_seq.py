"""The memory items of the projection by their ``seq``, read through ``items_by_session``
(``session_id, kind, seq``), the one index holding ``seq``: which one is the last, for the
recall index's watermark (:class:`~waymarks.store.recall_index.RecallIndex`)."""

from __future__ import annotations

import sqlite3
from typing import Final

#: ``max(seq)`` of memory items, one index seek per session (see :func:`last_memory_seq`)
_LAST_MEMORY_SEQ: Final = (
    "WITH RECURSIVE owners (session_id) AS ("
    " SELECT min(session_id) FROM items"
    " UNION ALL SELECT (SELECT min(session_id) FROM items WHERE session_id > owners.session_id)"
    " FROM owners WHERE owners.session_id IS NOT NULL)"
    " SELECT coalesce(max((SELECT max(seq) FROM items WHERE session_id = owners.session_id"
    " AND kind = 'memory')), 0) FROM owners WHERE owners.session_id IS NOT NULL")


def last_memory_seq(db: sqlite3.Connection) -> int:
    """The largest ``seq`` of a memory item (0 without one): what
    ``SELECT max(seq) FROM items WHERE kind = 'memory'`` returns.

    That plain query has no index to seek (``items_by_session`` leads with the session),
    so SQLite read all of it on every recall: 57 ms of a 114 ms recall at 100k memories.
    Here the sessions are walked as a loose index scan (the next session ID after the last
    one, one seek each) and each session's last memory is one seek in the same index: a
    few seeks per session instead of a read of every item."""
    return int(db.execute(_LAST_MEMORY_SEQ).fetchone()[0])
