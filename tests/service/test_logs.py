"""The structured log: one whole JSON line per event, appended, content refused."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from waymarks.service.logs import LOG_DIR, LOG_FILE, log_event

NOW = datetime(2026, 12, 2, tzinfo=UTC)


def test_events_are_appended_as_lines_in_a_folder_made_on_the_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    old = os.umask(0o022)
    try:
        log_event(home, NOW, "plan", included=["a"], tokens=3)
        log_event(home, NOW, "write", id="x", outcome="committed")
    finally:
        os.umask(old)
    path = home / LOG_DIR / LOG_FILE
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["event"], r.get("tokens"), r.get("id")) for r in lines] == [
        ("plan", 3, None), ("write", None, "x")]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # as open() made it: not executable


def test_content_fields_are_refused_and_a_log_that_cannot_be_written_is_skipped(
        tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="content must never be logged"):
        log_event(tmp_path, NOW, "plan", claim="secret text")
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    log_event(blocked, NOW, "plan", tokens=1)  # best effort: no exception
    assert blocked.read_text() == "not a folder"
