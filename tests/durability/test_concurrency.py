"""Durability under concurrency: many processes writing through the real service at once.

Each scenario runs once per module (``run_scenario`` in ``concurrency_worker``): writer
processes, each with its own ``Waymarks``, make unique writes while reader processes check
every list they get; then the home is verified. ``shared``: all writers append to one
session file. ``siblings``: each writer has its own session of one trusted project.

Small by default so the suite stays fast; scale with ``WAYMARKS_DURABILITY_WRITERS`` and
``WAYMARKS_DURABILITY_WRITES`` (``benchmarks/concurrency.py`` runs 8 x 250 and times it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.durability.concurrency_worker import SCENARIOS, _read_ledger, check_views, run_scenario

WRITERS = int(os.environ.get("WAYMARKS_DURABILITY_WRITERS", "4"))
WRITES = int(os.environ.get("WAYMARKS_DURABILITY_WRITES", "40"))
READERS = 2


# every scenario starts writer and reader processes: seconds each, so the tests that
# read its report are slow (the checkers below them are not)
@pytest.fixture(scope="module", params=[pytest.param(s, marks=pytest.mark.slow) for s in SCENARIOS])
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> dict[str, Any]:
    root = tmp_path_factory.mktemp(f"concurrency-{request.param}")
    return run_scenario(root, request.param, writers=WRITERS, writes=WRITES, readers=READERS,
                        timeout=120)


def test_every_worker_ran_to_the_end_without_a_stall(report: dict[str, Any]) -> None:
    assert report["problems"] == []
    assert report["acknowledged"] > 0


def test_every_write_was_committed_without_a_database_error(report: dict[str, Any]) -> None:
    # unique texts: nothing may come back as a duplicate, a conflict or an exception
    # ("database is locked" included), and no commit may carry a projection warning
    assert report["not_committed_samples"] == []
    assert report["acknowledged"] == WRITERS * WRITES
    assert report["warnings"] == []


def test_nothing_acknowledged_is_lost_or_duplicated(report: dict[str, Any]) -> None:
    checks = report["checks"]
    assert (checks["lost"], checks["duplicates"], checks["unacknowledged_items"]) == (0, 0, 0)
    assert checks["mutations_vs_acknowledged"] == [report["acknowledged"]] * 2
    assert checks["wrong_state"] == 0  # each item has its text, scope and status


def test_no_line_is_corrupt_and_health_is_clean(report: dict[str, Any]) -> None:
    checks = report["checks"]
    assert checks["corrupt_lines"] == 0
    assert checks["anomalies"] == 0
    assert checks["ignored_mutations"] == 0
    assert checks["integrity"] == "ok"


def test_each_session_file_is_one_linear_chain(report: dict[str, Any]) -> None:
    checks = report["checks"]
    expected_files = 1 if report["scenario"] == "shared" else WRITERS
    assert checks["session_files"] == expected_files
    assert checks["chain_breaks"] == 0
    assert checks["duplicate_entry_ids"] == 0


def test_readers_never_saw_a_torn_or_shrinking_list(report: dict[str, Any]) -> None:
    assert report["reader_checks"] >= 2 * READERS  # at least the final read of each
    assert report["reader_errors"] == []
    assert report["reader_violation_samples"] == []
    assert report["checks"]["final_consistency_violations"] == 0


def test_the_projection_equals_a_rebuild_from_the_ledgers(report: dict[str, Any]) -> None:
    checks = report["checks"]
    assert checks["rebuild_diff_rows"] == {}
    assert checks["rebuild_matches"]
    assert checks["rebuild_sources"] == checks["session_files"]


# -- the checks themselves catch what they claim to ----------------------------------------


def _view(item_id: str, **fields: Any) -> SimpleNamespace:
    base = {"id": item_id, "kind": "memory", "scope": "session", "status": "active",
            "key": None, "superseded_by": None, "supersedes": None, "text": item_id,
            "session_id": "s1"}
    return SimpleNamespace(**{**base, **fields})


def test_check_views_reports_torn_and_impossible_lists() -> None:
    old = _view("a", status="superseded", superseded_by="b", key="port")
    new = _view("b", supersedes="a", key="port")
    assert check_views([old, new], "/p") == []
    assert check_views([old], "/p")  # superseded by an item the list does not hold
    assert check_views([_view("a", key="port"), new], "/p")  # old still active: torn
    assert check_views([_view("a", key="k"), _view("b", key="k")], "/p")  # one key, twice
    assert check_views([_view("a"), _view("a", text="x")], "/p")  # one id, twice
    assert check_views([_view("a", text="Same"), _view("b", text="same")], "/p")
    # other partitions may share a key
    assert check_views([_view("a", key="k"), _view("b", key="k", session_id="s2")], "/p") == []


def test_ledger_check_reports_corrupt_lines_and_broken_chains(tmp_path: Path) -> None:
    lines = [{"type": "session", "id": "s"}, {"type": "custom", "id": "e1", "parentId": None},
             {"type": "custom", "id": "e2", "parentId": "e1"},
             {"type": "custom", "id": "e3", "parentId": "e1"}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"torn\n{"half',
                    encoding="utf-8")
    checked = _read_ledger(path)
    assert len(checked["chain_breaks"]) == 1
    assert len(checked["corrupt"]) == 2  # the torn line and the unterminated tail
