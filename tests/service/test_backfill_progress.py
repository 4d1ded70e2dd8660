"""The background worker's progress file, as ``waymarks status`` reads it.

The file is the worker's, written atomically, but another version's worker or a hand edit
can leave anything there: ``status`` read it as is (a file without ``state`` raised
``KeyError`` in the status text; a ``state`` of any JSON value was printed)."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
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


def bounded(call: Callable[[], object]) -> object:
    """``call()`` in a daemon thread, given a bounded time to answer: a read blocked on a
    FIFO never does (the thread is then left behind, blocked; the test fails)."""
    answer: list[object] = []
    thread = threading.Thread(target=lambda: answer.append(call()), daemon=True)
    thread.start()
    thread.join(30)
    assert answer, "blocked reading the progress file"
    return answer[0]


def test_a_fifo_at_the_progress_file_is_no_progress_not_a_hang(tmp_path: Path) -> None:
    """Found in review: ``waymarks status`` opened the progress file as is, so a FIFO there
    stopped it for ever, and so it did every worker woken in that home (reading its
    predecessors' CPU time) while it held the home's lock: ``--wait`` said it was still
    running, and no other worker could start."""
    from waymarks.service import semantic_worker

    fifo = tmp_path / semantic_backfill.PROGRESS_FILE
    os.mkfifo(fifo)
    assert bounded(lambda: semantic_backfill.progress(tmp_path)) is None
    assert bounded(lambda: semantic_worker._earlier_cpu(tmp_path)) == 0.0
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # left as it was


def test_a_worker_resumes_counting_from_its_predecessors_progress(tmp_path: Path) -> None:
    from waymarks.service import semantic_worker

    (tmp_path / semantic_backfill.PROGRESS_FILE).write_text(
        json.dumps({"state": "done", "cpu_total_s": 2.5}))
    assert semantic_worker._earlier_cpu(tmp_path) == 2.5
    (tmp_path / semantic_backfill.PROGRESS_FILE).write_text('{"state": "done", "cpu_total_s": NaN}')
    assert semantic_worker._earlier_cpu(tmp_path) == 0.0
