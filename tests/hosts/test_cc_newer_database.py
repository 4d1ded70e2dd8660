"""A home whose database a newer release wrote (another installation shares the home, or
Waymarks was downgraded): every Claude Code prompt's hook added nothing and said nothing,
so the person's pins silently stopped reaching the model (only the log said
``schema_too_new``). The prompt's hook now says so, in the error's own words (the fix:
upgrade), with the helper and without it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.hosts.test_cc_bad_config import _hook, _logged, _session_with_a_pin, _two_prompts
from waymarks.store.migrations import LATEST_VERSION


@pytest.mark.slow
def test_a_database_of_a_newer_release_is_named_on_each_prompt(home: Path,
                                                               project: Path) -> None:
    sid = _session_with_a_pin(home, project)
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    db.execute("INSERT INTO schema_migrations VALUES (?, 'a later release', 0)",
               (LATEST_VERSION + 1,))
    db.close()
    for out in _two_prompts(home, project, sid):
        said = json.loads(out)
        message = said["systemMessage"]
        assert message.startswith("Waymarks added no context"), message
        assert f"schema version {LATEST_VERSION + 1}, newer than this Waymarks" in message
        assert "upgrade Waymarks" in message and "Always tag" not in out
        assert said["hookSpecificOutput"]["additionalContext"] == message
    assert _hook(home, project, sid, "SessionEnd", reason="exit") == ""  # (prompts only)
    assert [e["code"] for e in _logged(home) if e["event"] == "claude_code_hook_skipped"
            and e["kind"] == "UserPromptSubmit"] == ["schema_too_new"] * 2
