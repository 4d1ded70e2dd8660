"""A damaged evolution ledger (empty, bytes before its header, not a regular file) is
canonical: nothing moves or rewrites it. Plans and recall go on without learned memory and
say why in one line; the learning commands refuse with that line (``learn status`` reports
it, with the fix: it is what a person runs to find out); ``health`` names it; the
Claude Code prompt hook still injects the pins. Real files, real SQLite, the real CLI and
the real hook entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.learning import ledger_path

WAYMARKS = Path(sys.executable).parent / "waymarks"
PIN = "Always run the linters before committing"


def _damage(home: Path, how: str) -> bytes | None:
    path = ledger_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "empty":
        path.write_bytes(b"")
    elif how == "garbage_header":
        path.write_bytes(os.urandom(64).replace(b"\n", b"x") + b"\n" + b'{"type":"custom"}\n')
    elif how == "directory":
        path.mkdir()
        return None
    elif how == "fifo":
        os.mkfifo(path)
        return None
    return path.read_bytes()


@pytest.fixture
def pinned(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.pin(PIN, scope="project")


@pytest.mark.parametrize("how", ["empty", "garbage_header", "directory", "fifo"])
def test_plan_and_recall_go_on_without_learned_memory(
        how: str, home: Path, project: Path, pinned: None, cli: Callable[..., dict]) -> None:
    before = _damage(home, how)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    plan = cli("plan", "--prompt", "how do we lint?")
    assert [m["kind"] for m in plan["messages"]] == ["pins", "request"]
    assert PIN in plan["messages"][0]["content"]
    [note] = plan["manifest"]["notes"]
    assert str(ledger_path(home)) in note and "move it aside" in note
    recalled = cli("recall", "lint")
    assert recalled["notes"] == [note]
    # a learning command refuses with the same one line (exit 1: the home, not the request)
    for args in (["learn", "list"], ["evolve"], ["evolution", "status"]):
        refused = cli(*args, expect=1)
        assert (refused["code"], refused["message"]) == ("bad_state", note)
    # except `learn status`: what a person runs to find out what is wrong (and the fix)
    status = cli("learn", "status")
    assert status["learning"] is True and status["ledgerProblem"] == note
    assert f"mv {ledger_path(home)} {ledger_path(home)}.aside" in note
    rebuilt = cli("rebuild-index")
    assert rebuilt["unreadable"] == [note] and rebuilt["mutations"] == 1
    report = cli("health")
    assert report["ok"] is False and note in report["problems"]
    # canonical: never moved, deleted or rewritten
    path = ledger_path(home)
    assert os.path.lexists(path)
    if before is not None:
        assert path.read_bytes() == before


def test_learn_status_names_the_damage_and_the_fix_in_text(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from waymarks.cli.main import main

    _damage(home, "garbage_header")
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["learn", "status"]) == 0
    out = capsys.readouterr().out
    assert "learning: off" in out
    assert f"problem: {ledger_path(home)}: the learned ledger cannot be read" in out
    assert f"mv {ledger_path(home)} {ledger_path(home)}.aside" in out


def test_the_prompt_hook_still_injects_the_pins(home: Path, project: Path,
                                                pinned: None) -> None:
    _damage(home, "empty")
    sid = str(uuid.uuid4())
    payload = {"session_id": sid, "cwd": str(project), "hook_event_name": "UserPromptSubmit",
               "transcript_path": str(project / "t.jsonl"), "prompt": "how do we lint?"}
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code",
                           "UserPromptSubmit"], input=json.dumps(payload), env=env, cwd=project,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert PIN in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert ledger_path(home).read_bytes() == b""
