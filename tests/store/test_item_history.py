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
