"""A prompt Claude Code sends with a lone surrogate (``"\\ud83d"``: an emoji cut in half,
escaped in its JSON, which Python's ``json`` reads as is) got no context and was not
recorded: the hook logged ``UnicodeEncodeError``, and through the warm helper the same
failure closed every warm app. The prompt is now made well formed when the input is read
(U+FFFD in the half's place), as the transcript capture already did."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from tests.hosts.test_claude_code import PIN_BEGIN, hook, ledger, payload, start_with_helper
from waymarks.service.app import Waymarks


@pytest.fixture
def sid() -> str:
    return str(uuid.uuid4())


@pytest.mark.parametrize("helper", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_prompt_with_half_an_emoji_gets_its_context_and_is_recorded(
        home: Path, project: Path, sid: str, helper: bool) -> None:
    socket = start_with_helper(home, project, sid) if helper else None
    if socket is None:
        hook(home, "SessionStart", payload(sid, project, "SessionStart"))
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Prefer small commits")
    raw = json.dumps(payload(sid, project, "UserPromptSubmit", prompt="fix it \ud83d"))
    assert "\\ud83d" in raw  # the escape itself, as Claude Code writes it
    done = hook(home, "UserPromptSubmit", None, raw=raw.encode(), helper=helper)
    assert done.returncode == 0, done.stderr
    assert PIN_BEGIN in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    prompts = [e["message"]["content"][0]["text"] for e in ledger(home, project, sid)
               if e["type"] == "message"]
    assert prompts == ["fix it \ufffd"]
    log = home / "logs" / "waymarks.jsonl"
    assert not log.exists() or "UnicodeEncodeError" not in log.read_text()
    if socket is not None:  # the helper goes on serving: the next prompt is answered warm
        again = hook(home, "UserPromptSubmit", payload(
            sid, project, "UserPromptSubmit", prompt="and the tests"), helper=True)
        assert PIN_BEGIN in json.loads(again.stdout)["hookSpecificOutput"][
            "additionalContext"]
        for _ in range(400):  # it exits when idle (5 s)
            if not socket.exists():
                break
            time.sleep(0.05)
