"""A loop of symbolic links (``Path.resolve()`` raises ``RuntimeError`` on it, not
``OSError``) in personal memory or a project's engineering docs is a file Waymarks cannot
read: named, skipped or refused, never a traceback that stops every plan and hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from waymarks.service.app import Waymarks

LOOP = "a link to something other than an entry file of the directory"


def test_a_looping_link_in_personal_memory_is_named_and_stops_nothing(
        cli: Callable[..., dict], home: Path) -> None:
    saved = cli("personal", "save", "--name", "Editor", "--", "I use helix.")
    memory = home / "memory"
    (memory / "loop.md").symlink_to("loop.md")
    (memory / "b1.md").symlink_to("b2.md")
    (memory / "b2.md").symlink_to("b1.md")
    listed = cli("personal", "list")
    assert [e["slug"] for e in listed["entries"]] == [saved["slug"]]
    assert listed["unread"] == [{"file": name, "reason": LOOP}
                                for name in ("b1.md", "b2.md", "loop.md")]
    plan = json.dumps(cli("plan", "--prompt", "which editor do I use"))
    assert "Editor" in plan
    for args in (("show", "loop"), ("save", "--slug", "loop", "--", "text"),
                 ("forget", "b1")):
        refused = cli("personal", *args, expect=2)
        assert refused["code"] == "not_an_entry" and "refusing to use it" in \
            refused["message"]
    assert cli("personal", "index")["entries"] == 1
    assert (memory / "loop.md").is_symlink() and (memory / "b1.md").is_symlink()
    assert os.readlink(memory / "loop.md") == "loop.md"


def test_the_prompt_hook_still_gives_pins_past_a_looping_personal_link(
        home: Path, project: Path) -> None:
    """The UserPromptSubmit hook printed nothing (``claude_code_hook_skipped``,
    ``RuntimeError``): every prompt in every project went without pins or memory."""
    sid = str(uuid.uuid4())

    def hook(event: str, **extra: str) -> str:
        payload = {"session_id": sid, "transcript_path": str(project / "transcript.jsonl"),
                   "cwd": str(project), "hook_event_name": event, **extra}
        done = subprocess.run(
            [str(Path(sys.executable).parent / "waymarks"), "--home", str(home), "hook",
             "claude-code", event], input=json.dumps(payload), text=True,
            env={**os.environ, "WAYMARKS_CC_HELPER": "off"}, capture_output=True,
            timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    hook("SessionStart", source="startup")
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Always run the linters")
    (home / "memory").mkdir()
    (home / "memory" / "loop.md").symlink_to("loop.md")
    context = json.loads(hook("UserPromptSubmit", prompt="lint my change"))
    assert '"Always run the linters"' in context["hookSpecificOutput"]["additionalContext"]
