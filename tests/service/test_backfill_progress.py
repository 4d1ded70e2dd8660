"""The background worker's progress file, as ``waymarks status`` reads it.

The file is the worker's, written atomically, but another version's worker or a hand edit
can leave anything there: ``status`` read it as is (a file without ``state`` raised
``KeyError`` in the status text; a ``state`` of any JSON value was printed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.service import semantic_backfill


@pytest.mark.parametrize("content", [
    '{"pid": 1, "embedded": 3}', '{"state": {"a": 1}}', '{"state": null}',
    '{"state": "exploded"}', "[1, 2]", '"done"', "null", "{", "", '{"state": ["done"]}'])
def test_a_progress_file_without_a_known_state_is_no_progress(
        tmp_path: Path, content: str) -> None:
    (tmp_path / semantic_backfill.PROGRESS_FILE).write_text(content, encoding="utf-8")
    assert semantic_backfill.progress(tmp_path) is None


def test_fields_of_another_type_are_left_out(tmp_path: Path) -> None:
    (tmp_path / semantic_backfill.PROGRESS_FILE).write_text(json.dumps({
        "state": "done", "pid": 12, "embedded": "many", "total": True, "records": 4,
        "cpu_s": 1.5, "cpu_total_s": "NaN", "started": "2026-01-01T00:00:00Z",
        "error": {"nested": 1}, "secret": "claim text"}), encoding="utf-8")
    assert semantic_backfill.progress(tmp_path) == {
        "state": "done", "pid": 12, "records": 4, "cpu_s": 1.5,
        "started": "2026-01-01T00:00:00Z"}


def test_a_running_state_with_no_worker_reads_as_interrupted(tmp_path: Path) -> None:
    (tmp_path / semantic_backfill.PROGRESS_FILE).write_text(
        '{"state": "running", "pid": 999999, "embedded": 1, "total": 4}', encoding="utf-8")
    assert semantic_backfill.progress(tmp_path) == {
        "state": "interrupted", "pid": 999999, "embedded": 1, "total": 4}
