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


def test_the_log_is_bounded_keeping_the_newest_lines_and_the_file_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plan logs the IDs it included and left out (~2.4 KB a prompt at 1k memories
    and 50 pins), and nothing ever shortened the file: a year of a warm helper's prompts
    grew it by hundreds of MB. Past its limit it becomes ``waymarks.jsonl.1`` (the one
    before replaced) and the next event starts a new file."""
    from waymarks.service import logs

    monkeypatch.setattr(logs, "LOG_LIMIT_BYTES", 4096, raising=False)
    home = tmp_path / "home"
    for n in range(200):
        log_event(home, NOW, "plan", included=[f"item-{n}-{'x' * 40}"], tokens=n)
    path = home / LOG_DIR / LOG_FILE
    kept = path.with_name(LOG_FILE + ".1")
    line = len(path.read_bytes().splitlines()[0]) + 1
    assert path.stat().st_size <= 4096 + line and kept.stat().st_size <= 4096 + line
    newest = [json.loads(x)["tokens"] for x in (kept.read_text() + path.read_text()).split(
        "\n") if x]
    assert newest == list(range(200 - len(newest), 200)) and len(newest) > 4096 // line
    assert sorted(p.name for p in path.parent.iterdir()) == [LOG_FILE, LOG_FILE + ".1"]


def test_the_helpers_last_problem_is_still_found_once_its_log_was_set_aside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`status` names the last problem a Claude Code helper logged, from the log's end: one
    logged just before the log was set aside is in ``waymarks.jsonl.1``."""
    from waymarks.service import logs
    from waymarks.service.helper_status import _last_problem

    monkeypatch.setattr(logs, "LOG_LIMIT_BYTES", 4096, raising=False)
    home = tmp_path / "home"
    log_event(home, NOW, "claude_code_helper_unavailable", code="PermissionError")
    n = 0
    while not (home / LOG_DIR / f"{LOG_FILE}.1").exists():
        log_event(home, NOW, "plan", included=[f"item-{n}-{'x' * 40}"], tokens=n)
        n += 1
        assert n < 1000, "the log was never set aside"
    log_event(home, NOW, "plan", tokens=n)  # the new log holds no problem
    assert _last_problem(home) == {"event": "claude_code_helper_unavailable",
                                   "code": "PermissionError", "at": NOW.isoformat()}


def test_two_events_that_filled_the_log_together_never_set_aside_the_new_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes' events both filled the log and both found it at its path; the first
    moved it to ``.1``, a third event started a new log, and the second then moved that
    new one over ``.1``: the full log was lost (a few times in 6,000 events of four real
    processes under a 1 KB limit). Here the second's check is followed, before its move,
    by the first's event and a third's: every line logged is still in one of the files."""
    import types

    from waymarks.service import logs

    home = tmp_path / "home"
    for n in range(40):
        log_event(home, NOW, "plan", tokens=n)
    path = home / LOG_DIR / LOG_FILE
    monkeypatch.setattr(logs, "LOG_LIMIT_BYTES", 1024, raising=False)
    first, second = (os.open(path, os.O_WRONLY | os.O_APPEND) for _ in range(2))
    real_stat, meanwhile = os.stat, []

    def stat(target: object, *args: object, **kwargs: object) -> os.stat_result:
        found = real_stat(target, *args, **kwargs)  # type: ignore[arg-type]
        if not meanwhile:  # (once: the second's check, what happens before its move)
            meanwhile.append(target)
            logs._set_aside(path, first)  # the first event's
            log_event(home, NOW, "plan", tokens=40)  # a third's
        return found

    monkeypatch.setattr(logs, "os", types.SimpleNamespace(**{
        **{name: getattr(os, name) for name in dir(os) if not name.startswith("__")},
        "stat": stat}))
    try:
        logs._set_aside(path, second)
    finally:
        monkeypatch.undo()
        os.close(first)
        os.close(second)
    kept = [path.with_name(LOG_FILE + ".1"), path]
    logged = sorted(json.loads(line)["tokens"] for file in kept if file.exists()
                    for line in file.read_text().splitlines())
    assert logged == list(range(41)), logged
