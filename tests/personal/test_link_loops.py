"""A loop of symbolic links (``Path.resolve()`` raises ``RuntimeError`` on it, not
``OSError``) in personal memory or a project's engineering docs is a file Waymarks cannot
read: named, skipped or refused, never a traceback that stops every plan and hook."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.inprocess import claude_code_hook, waymarks
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


@pytest.mark.parametrize("loop", ["home/memory/loop.md",
                                  "project/docs/engineering/loop.md"])
def test_the_prompt_hook_still_gives_pins_past_a_looping_link(
        home: Path, project: Path, loop: str) -> None:
    """The UserPromptSubmit hook printed nothing (``claude_code_hook_skipped``,
    ``RuntimeError``): one looping link in the personal folder left every prompt in every
    project without pins or memory, and one committed in a trusted repository's docs
    switched its context off."""
    sid = str(uuid.uuid4())

    def hook(event: str, **extra: str) -> str:
        payload = {"session_id": sid, "transcript_path": str(project / "transcript.jsonl"),
                   "cwd": str(project), "hook_event_name": event, **extra}
        done = claude_code_hook(home, payload)  # in this process: not about a process
        assert done.returncode == 0, done.stderr
        return done.stdout

    hook("SessionStart", source="startup")
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Always run the linters")
    assert waymarks("--home", str(home), "trust", str(project)).returncode == 0
    link = home.parent / loop
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(link.name)
    context = json.loads(hook("UserPromptSubmit", prompt="lint my change"))
    assert '"Always run the linters"' in context["hookSpecificOutput"]["additionalContext"]


def test_a_looping_link_in_a_trusted_projects_docs_is_skipped(
        cli: Callable[..., dict], project: Path) -> None:
    """A committed ``docs/engineering/loop.md -> loop.md`` made every plan of the trusted
    project fail: the other docs are served, and the loop is named with the docs."""
    cli("trust", str(project))
    docs = project / "docs" / "engineering"
    (docs / "decisions").mkdir(parents=True)
    (docs / "kafka.md").write_text("# Retention\nWe keep kafka events seven days.\n")
    (docs / "loop.md").symlink_to("loop.md")
    (docs / "decisions" / "ADR-0002-loop.md").symlink_to("ADR-0002-loop.md")
    plan = cli("plan", "--prompt", "how long do we keep kafka events")
    assert [e["id"] for e in plan["manifest"]["entries"]] == [
        "docs/engineering/kafka.md#Retention"]
    assert [d["path"] for d in cli("team", "status")["docs"]] == [
        "docs/engineering/decisions/ADR-0002-loop.md", "docs/engineering/kafka.md",
        "docs/engineering/loop.md"]


def test_adr_new_refuses_a_looping_decisions_folder(
        cli: Callable[..., dict], project: Path) -> None:
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "decisions").symlink_to("decisions")
    refused = cli("adr", "new", "Use WAL", expect=2)
    assert refused["code"] == "invalid_argument"
    assert refused["message"] == ("docs/engineering/decisions is a loop of symbolic links; "
                                  "make it a folder of the project; nothing was created")
    assert sorted(p.name for p in docs.iterdir()) == ["decisions"]
    assert os.readlink(docs / "decisions") == "decisions"
