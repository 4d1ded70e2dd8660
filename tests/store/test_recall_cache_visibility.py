"""The in-memory recall index checks visibility only from the best rows down, over rows
grouped by score: the rows it returns, and their order, are those of scoring every posting
and filtering first (the earlier code): best first, equal scores in ascending row ID."""

from __future__ import annotations

import functools
import heapq
import sqlite3
from itertools import islice
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
                          st.integers(0, len(OWNERS) - 1), st.integers(0, 2)), max_size=60),
       st.integers(1, 12), st.sampled_from(["s1", "s2", "s9"]),
       st.sampled_from(["/p", "/q", None]))
@pytest.mark.slow
def test_best_rows_equal_filtering_first(rows, limit, session, project  # type: ignore[no-untyped-def]
                                         ) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)  # a file per example: 60 s
    try:
        _migrated().backup(db)  # a copy of one migrated schema, not 300 migrations
        cache = RecallCache(RecallIndex(db))
        # every row scored in ascending row ID (the earlier code's order: ties keep it)
        scores = {rowid: score for rowid, (score, _o, _g) in enumerate(rows, start=1)}
        owners = {rowid: OWNERS[owner] for rowid, (_s, owner, _g) in enumerate(rows, start=1)}
        for rowid, owner in owners.items():
            cache.set_owner(rowid, owner)
        assert all(cache.owner(rowid) == owner for rowid, owner in owners.items())
        # the same rows as candidates() hands them over: each score's rows in up to three
        # groups (rows of different lengths and terms can score the same), each ascending
        levels: dict[float, list[list[int]]] = {}
        for rowid, (score, _owner, group) in enumerate(rows, start=1):
            groups = levels.setdefault(score, [[], [], []])
            groups[group].append(rowid)
        levels = {score: [g for g in groups if g] for score, groups in levels.items()}
        ranked = list(islice(cache._ranked(levels, (session, project)), limit))
        chosen = [rowid for rowid, _ in ranked]
        assert chosen == filter_first(scores, owners, limit, (session, project))
        assert all(score == scores[rowid] for rowid, score in ranked)  # each one's score
        assert [rowid for rowid, _ in islice(cache._ranked(levels, None), limit)] == [
            # no filter: the best rows alone
            rowid for rowid, _ in heapq.nlargest(limit, scores.items(), key=itemgetter(1))]
    finally:
        db.close()
