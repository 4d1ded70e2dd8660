"""A home whose ``waymarks.db`` is a directory (or another file of the database is not a
regular file): every command refuses with the file and the ``mv`` that fixes it, but
each Claude Code prompt's hook added nothing and said nothing, so the person's pins
silently stopped reaching the model (only the log said ``database_error``). The prompt's
hook now says so in the error's own words, with the helper and without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hosts.test_cc_bad_config import _logged, _session_with_a_pin, _two_prompts


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
