"""The in-memory recall index checks visibility only from the best rows down: the rows it
returns, and their order, are those of filtering every posting first (the earlier code)."""

from __future__ import annotations

import functools
import heapq
import sqlite3
from operator import itemgetter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymarks.store.migrations import migrate
from waymarks.store.recall_cache import RecallCache
from waymarks.store.recall_index import RecallIndex

OWNERS = [("session", "s1", None), ("session", "s2", None), ("project", "s3", "/p"),
          ("project", "s4", "/q"), ("branch", "s1", None)]


def filter_first(scores: dict[int, float], owners: dict[int, tuple[str, str, str | None]],
                 limit: int, visible_to: tuple[str, str | None]) -> list[int]:
    session_id, project = visible_to
    kept: dict[int, float] = {}
    for rowid, score in scores.items():
        scope, owner, path = owners[rowid]
        if (scope == "project" and project is not None and path == project) or (
                scope != "project" and owner == session_id):
            kept[rowid] = score
    return [rowid for rowid, _ in heapq.nlargest(limit, kept.items(), key=itemgetter(1))]


@functools.cache
def _migrated() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    return db


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.5, 1.0, 1.5, 2.25, 3.0]),
                          st.integers(0, len(OWNERS) - 1)), max_size=60),
       st.integers(1, 12), st.sampled_from(["s1", "s2", "s9"]),
       st.sampled_from(["/p", "/q", None]))
@pytest.mark.slow
def test_best_rows_equal_filtering_first(rows, limit, session, project  # type: ignore[no-untyped-def]
                                         ) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)  # a file per example: 60 s
    try:
        _migrated().backup(db)  # a copy of one migrated schema, not 300 migrations
        cache = RecallCache(RecallIndex(db))
        # rows are scored in this (shuffled) order: ties keep it
        scores = {1000 - n: score for n, (score, _owner) in enumerate(rows)}
        owners = {1000 - n: OWNERS[owner] for n, (_score, owner) in enumerate(rows)}
        for rowid, owner in owners.items():
            cache.set_owner(rowid, owner)
        assert all(cache.owner(rowid) == owner for rowid, owner in owners.items())
        assert cache._best(scores, limit, (session, project)) == filter_first(
            scores, owners, limit, (session, project))
    finally:
        db.close()
