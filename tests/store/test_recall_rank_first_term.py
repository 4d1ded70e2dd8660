"""The ranking lists the rows of its first rare term in one step (``dict.fromkeys``, in
C), not row by row in Python: each row cost a lookup and a store, the largest part of the
ranking's own time at 10k records. The order is FTS5's all the same."""

from __future__ import annotations

import sqlite3
import sys
from types import FrameType

from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput, token
from waymarks.store.recall_rank import fts5_ranked, ranked


def _index() -> RecallIndex:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(RecordInput(id=f"m{n}", text=f"The billing-{n} service listens on port {n}."
                          if n % 3 else f"Deploy the search-{n} worker from main.")
              for n in range(150))
    db.execute("COMMIT")
    return index


def _looked_up(terms: list[str], db: sqlite3.Connection) -> tuple[list[int], int]:
    """The rows ``ranked`` gives out for ``terms``, and how many rows it looked up one by
    one (``dict.get`` calls of its own on a dict not of lists: the first grouping's lookup,
    made on the empty dict of groups, is one of them)."""
    calls = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        held = getattr(arg, "__self__", None)
        # (the rows' masks, not the groups of rows by mask, whose values are lists)
        if event == "c_call" and frame.f_code.co_name == "ranked" and getattr(
                arg, "__name__", "") == "get" and isinstance(held, dict) and not isinstance(
                next(iter(held.values()), None), list):
            calls += 1

    db.execute("BEGIN")
    try:
        sys.setprofile(profile)
        try:
            rows = list(ranked(db, "recall_terms", terms, want=200))
        finally:
            sys.setprofile(None)
    finally:
        db.execute("COMMIT")
    return rows, calls


def test_the_first_terms_rows_are_listed_in_one_step() -> None:
    index = _index()
    one = [token("w:bill")]
    rows, calls = _looked_up(one, index.db)
    assert len(rows) == 100  # (the billing claims: two in three of 150)
    assert rows == list(fts5_ranked(index.db, "recall_terms", one))
    assert calls <= 1, calls  # (row by row: one a row, 101)
    two = sorted({token("w:bill"), token("w:worker")})
    rows, calls = _looked_up(two, index.db)
    assert rows == list(fts5_ranked(index.db, "recall_terms", two))
    assert len(rows) == 150
    assert calls <= 101, calls  # (the rows of the term listed second: 151 row by row)
