"""An item's history and the last change of listed items are index seeks, not a scan of
every mutation (``memory show`` read a million rows for one item before)."""

from __future__ import annotations

import sqlite3

from waymarks.store import item_history
from waymarks.store.migrations import migrate


def test_history_and_last_change_seek_the_target_index() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    ran: list[str] = []
    db.set_trace_callback(ran.append)  # the statements as SQLite runs them (bound values)
    item_history.mutations_of(db, "a")
    item_history.last_changed(db, ["a", "b", "c"])
    db.set_trace_callback(None)
    assert len(ran) == 2
    for statement in ran:
        plan = " ".join(str(row[3]) for row in db.execute(f"EXPLAIN QUERY PLAN {statement}"))
        assert "INDEX mutations_by_target" in plan and "SCAN mutations" not in plan, plan


def test_a_sessions_compactions_are_found_in_their_own_index() -> None:
    """Historical retrieval asks for them on every plan; the session's other entries
    (thousands) are not read to find the few compactions."""
    from waymarks.store.entries import EntryIndex
    from waymarks.store.integrity import checksum

    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    rows = [("s", n, f"e{n}", None, 0, int(n in (40, 7))) for n in range(100)]
    db.executemany("INSERT INTO entries (session_id, idx, id, parent_id, seg, compaction,"
                   " checksum) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [(*row, checksum(row)) for row in rows])  # rows as written
    ran: list[str] = []
    db.set_trace_callback(ran.append)
    assert EntryIndex(db, "s", 100).compactions() == ["e7", "e40"]
    assert EntryIndex(db, "s", 30).compactions() == ["e7"]  # bounded by what it was opened at
    db.set_trace_callback(None)
    for statement in ran:
        plan = " ".join(str(row[3]) for row in db.execute(f"EXPLAIN QUERY PLAN {statement}"))
        assert "INDEX entries_compactions" in plan, plan
