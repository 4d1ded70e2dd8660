"""A recall record's fields are decoded without a context manager per record (entering
and leaving :func:`~waymarks.store.integrity.decoding` cost as much as the decoding, for
each of a recall's hundred candidates), and a record whose fields cannot be decoded is
still damage, named as before, on both paths (SQLite and the in-memory postings)."""

from __future__ import annotations

import sqlite3
import sys
from types import FrameType
from typing import Any

import pytest

from waymarks.recall.plan import direct_plan
from waymarks.store.integrity import ProjectionDamaged, checksum
from waymarks.store.migrations import migrate
from waymarks.store.recall_cache import RecallCache
from waymarks.store.recall_index import RecallIndex, RecordInput


def _index(records: int) -> RecallIndex:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(RecordInput(id=f"m{n}", text=f"The billing-{n} service listens on port {n}.")
              for n in range(150))
    db.execute("COMMIT")
    return index


def _entered(call: Any) -> int:
    """How many context managers of ``contextlib`` were entered during ``call()``."""
    count = 0

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal count
        if event == "call" and frame.f_code.co_name == "__enter__" and \
                frame.f_code.co_filename.endswith("contextlib.py"):
            count += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count


def test_a_recall_enters_no_context_manager_per_record() -> None:
    index = _index(150)
    plan = direct_plan("which billing service listens on a port?")
    found: list[Any] = []
    entered = _entered(lambda: found.extend(index.candidates(plan)))
    assert len(found) == 100
    assert entered <= 2, entered  # (the read transaction's, not one per record)
    cache = RecallCache(index)
    assert _entered(cache.refresh) <= 2
    stats = cache.stats((*plan.focus, *plan.context))
    assert _entered(lambda: cache.candidates(plan, stats)) <= 2


def test_a_record_whose_fields_cannot_be_decoded_is_damage() -> None:
    index = _index(150)
    db = index.db
    (rowid, *row), = db.execute(
        "SELECT rowid, item_id, kind, status, origin, created_at, text, body_count, evidence,"
        " source FROM recall_records WHERE item_id = 'm7'")
    broken = b'{"body": ["w:bill"'  # (its checksum right: only decoding can tell)
    db.execute("UPDATE recall_records SET fields = ?, checksum = ? WHERE rowid = ?",
               (broken, checksum(row, broken), rowid))
    plan = direct_plan("which billing service listens on a port?")
    with pytest.raises(ProjectionDamaged, match=r"^a recall record cannot be decoded"):
        index.candidates(plan)
    with pytest.raises(ProjectionDamaged, match=r"^a recall record cannot be decoded"):
        RecallCache(index).refresh()
