"""A home whose ``waymarks.db`` is a directory (or another file of the database is not a
regular file): every command refuses with the file and the ``mv`` that fixes it, but
each Claude Code prompt's hook added nothing and said nothing, so the person's pins
silently stopped reaching the model (only the log said ``database_error``). The prompt's
hook now says so in the error's own words, with the helper and without it; so it does
for a full disk and a database or home that cannot be written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.hosts.test_cc_bad_config import _logged, _session_with_a_pin, _two_prompts
from waymarks.hosts.claude_code import unusable_home
from waymarks.service.recovery import database_error


@pytest.mark.slow
@pytest.mark.parametrize("name", ["waymarks.db", "waymarks.db-wal"])
def test_a_database_file_that_is_a_directory_is_named_on_each_prompt(
        home: Path, project: Path, name: str) -> None:
    sid = _session_with_a_pin(home, project)
    for companion in home.glob("waymarks.db*"):
        if companion.name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
            companion.unlink()
    (home / name).mkdir()
    for out in _two_prompts(home, project, sid):
        said = json.loads(out)
        message = said["systemMessage"]
        assert message.startswith("Waymarks added no context"), message
        assert f"{home / name} is a directory, not a regular file" in message
        assert f"mv {home / name} {home / name}.aside" in message and "Always tag" not in out
        assert said["hookSpecificOutput"]["additionalContext"] == message
    assert [e["code"] for e in _logged(home) if e["event"] == "claude_code_hook_skipped"
            and e["kind"] == "UserPromptSubmit"] == ["database_error"] * 2


def _sqlite_error(message: str, name: str) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorname = name  # type: ignore[attr-defined]
    return error


def test_a_full_disk_or_a_read_only_database_is_said_and_a_busy_one_only_logged(
        tmp_path: Path) -> None:
    """A full disk, or a database or file system that cannot be written, lasts until the
    person acts: each prompt went without context in silence (a read-only home could not
    even log why). A database busy for a moment passes by itself: logged only."""
    db = tmp_path / "waymarks.db"
    full = database_error(_sqlite_error("database or disk is full", "SQLITE_FULL"), db)
    read_only = database_error(_sqlite_error("attempt to write a readonly database",
                                             "SQLITE_READONLY"), db)
    busy = database_error(_sqlite_error("database is locked", "SQLITE_BUSY"), db)
    for error, words in ((full, "is full. Free disk space"), (read_only, str(db))):
        assert error.code == "database_error"  # (the code scripts read is unchanged)
        told = unusable_home("UserPromptSubmit", error)
        assert told is not None, error
        message = told["systemMessage"]
        assert message.startswith("Waymarks added no context and did not record this "
                                  "prompt: ") and words in message, message
    assert busy.code == "database_error" and unusable_home("UserPromptSubmit", busy) is None
    assert unusable_home("Stop", full) is None  # (prompts only)


def test_the_fix_a_prompt_is_told_is_a_command_that_runs_in_a_home_with_a_space(
        tmp_path: Path, project: Path) -> None:
    """The hook tells the person (and the model) the ``mv`` or ``chmod`` that fixes the
    home; with a space in the home's path (macOS's own: ``~/Library/Application
    Support/waymarks``) the command shown split it in two words: pasted, ``mv`` said its
    target was no directory, and a ``;`` in a folder's name would have run. The paths are
    quoted as every other suggested command's (``shell_command``)."""
    import shlex
    import uuid

    from tests.inprocess import claude_code_hook

    home = tmp_path / "Application Support" / "waymarks"
    sid = str(uuid.uuid4())
    started = {"session_id": sid, "cwd": str(project), "transcript_path": ""}
    assert claude_code_hook(home, {**started, "hook_event_name": "SessionStart",
                                   "source": "startup"}).returncode == 0
    for companion in home.glob("waymarks.db*"):
        if companion.name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
            companion.unlink()
    (home / "waymarks.db").mkdir()
    ran = claude_code_hook(home, {**started, "hook_event_name": "UserPromptSubmit",
                                  "prompt": "tag the release"})
    message = json.loads(ran.stdout)["systemMessage"]
    assert "Move it aside: " + shlex.join(
        ["mv", str(home / "waymarks.db"), f"{home / 'waymarks.db'}.aside"]) in message, message


def test_the_chmod_a_prompt_is_told_for_a_read_only_database_quotes_its_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``chmod`` the hook tells for a database this user may not write, in a home with
    a space: one word for the path, as for the ``mv`` above. (``os.access`` says the file
    is read-only: as root it never is.)"""
    import shlex

    from waymarks.service import recovery

    home = tmp_path / "Application Support" / "waymarks"
    home.mkdir(parents=True)
    db = home / "waymarks.db"
    db.write_bytes(b"")
    monkeypatch.setattr(recovery.os, "access", lambda path, mode: Path(path) != db)
    error = database_error(_sqlite_error("attempt to write a readonly database",
                                         "SQLITE_READONLY"), db)
    assert shlex.join(["chmod", "u+rw", str(db)]) in str(error), error
    monkeypatch.setattr(recovery.os, "access", lambda path, mode: Path(path) != home)
    error = database_error(_sqlite_error("attempt to write a readonly database",
                                         "SQLITE_READONLY"), db)
    assert shlex.join(["chmod", "u+w", str(home)]) in str(error), error
