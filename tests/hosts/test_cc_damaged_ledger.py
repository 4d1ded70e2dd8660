"""A Claude Code session whose ledger's first line was damaged (a hand edit, a bad byte)
went silent for good: every later prompt got no context and was not recorded, with only
``SessionFileError`` in the log, and the CLI no longer listed the session. The person and
the model now hear it in one line naming the file (never what it holds) and `waymarks
health`, which says how to go on: set the file aside (kept), and the session's next
prompt starts a new ledger; with the helper and without it."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.hosts.fake_cc_window import memory_add_over_mcp
from tests.hosts.test_cc_bad_config import _hook, _logged, _session_with_a_pin
from tests.hosts.test_cc_helper_stalled import _kinds
from tests.hosts.test_cc_review_hooks import _environ, _helper


def _damage(home: Path, sid: str) -> Path:
    """The session ledger's first line with a byte that is not UTF-8 in it."""
    [ledger] = list((home / "sessions").rglob(f"*_{sid}.jsonl"))
    lines = ledger.read_bytes().split(b"\n", 1)
    ledger.write_bytes(lines[0].replace(b'"version":3', b'"version":3\xff') + b"\n"
                       + lines[1])
    return ledger


def _said_unreadable(out: str, ledger: Path, home: Path) -> None:
    said = json.loads(out or "{}")
    message = said.get("systemMessage")
    assert message == ("Waymarks added no context and did not record this prompt: this "
                       f"session's ledger cannot be read ({ledger}); `waymarks --home {home} "
                       "health` in this project says what to fix."), out
    assert said["hookSpecificOutput"]["additionalContext"] == message
    assert "Always tag" not in out


def _cli(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *args], cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "WAYMARKS_CLI_HELPER": "off"})


@pytest.mark.slow
def test_a_damaged_ledger_header_is_named_and_the_session_goes_on(home: Path,
                                                                  project: Path) -> None:
    sid = _session_with_a_pin(home, project)
    assert "Always tag" in _hook(home, project, sid, "UserPromptSubmit", prompt="tag it")
    ledger = _damage(home, sid)
    damaged = ledger.read_bytes()
    _said_unreadable(_hook(home, project, sid, "UserPromptSubmit", prompt="tag it"), ledger,
                     home)
    with _helper(home, _environ(subagent=False)):
        _said_unreadable(_hook(home, project, sid, "UserPromptSubmit", "on",
                               prompt="and push it"), ledger, home)
    assert ledger.read_bytes() == damaged  # nothing appended to it, nothing rewritten
    assert [(e["kind"], e["code"]) for e in _logged(home) if e["event"] ==
            "claude_code_hook_skipped"] == [("UserPromptSubmit", "bad_session")] * 2
    # the command named says how to go on; done, the session goes on in a new ledger
    told = _cli(home, project, "health")
    assert told.returncode == 1, told
    fix = f"mv {shlex.quote(str(ledger))} {shlex.quote(str(ledger))}.aside"
    assert fix in told.stdout and "Always tag" not in told.stdout, told.stdout
    subprocess.run(shlex.split(fix), check=True)
    assert _cli(home, project, "rebuild-index").returncode == 0
    assert _cli(home, project, "health").returncode == 0
    assert _hook(home, project, sid, "UserPromptSubmit", prompt="go on") == ""
    assert _kinds(home, sid) == ["said:go on"]
    assert Path(f"{ledger}.aside").read_bytes() == damaged  # kept as it was


@pytest.mark.slow
def test_the_mcp_server_acts_on_no_other_session(home: Path, project: Path) -> None:
    """``waymarks mcp --claude-code`` passed over the ledger it follows when its header was
    damaged: the model's confirmed write went to a session made for it, reported
    committed, where Claude Code's hooks never read it. It is unavailable now, nothing
    written anywhere (the hook's line names the file to the person and the model)."""
    sid = str(uuid.uuid4())
    _hook(home, project, sid, "SessionStart")
    _hook(home, project, sid, "UserPromptSubmit", prompt="staging uses port 5433")
    ledger = _damage(home, sid)
    damaged = ledger.read_bytes()
    added = memory_add_over_mcp(str(home), str(project), "Staging uses port 5433",
                                dict(os.environ))
    assert added["outcome"] == "unavailable", added
    assert [p.name for p in ledger.parent.glob("*.jsonl")] == [ledger.name]
    assert ledger.read_bytes() == damaged


def test_the_hook_names_the_command_for_its_own_home(home: Path, project: Path,
                                                     tmp_path: Path) -> None:
    """The hooks run with the ``--home H`` install wrote; the person's shell need not use
    H (no ``WAYMARKS_HOME``, or another): the bare `waymarks health` the message named
    looked at another home and said OK. The command named is the one that finds it."""
    from tests.inprocess import waymarks

    sid = str(uuid.uuid4())
    hook = ["--home", str(home), "hook", "claude-code"]
    for event, extra in (("SessionStart", {}), ("UserPromptSubmit", {"prompt": "hello"})):
        done = waymarks(*hook, event, cwd=project,
                        input=json.dumps({"session_id": sid, "cwd": str(project),
                                          "hook_event_name": event, **extra}))
        assert done.returncode == 0, done.stderr
    ledger = _damage(home, sid)
    done = waymarks(*hook, "UserPromptSubmit", cwd=project, input=json.dumps(
        {"session_id": sid, "cwd": str(project), "hook_event_name": "UserPromptSubmit",
         "prompt": "tag it"}))
    message = json.loads(done.stdout)["systemMessage"]
    named = message.split("`")[1]
    assert named == shlex.join(["waymarks", "--home", str(home), "health"]), message
    shell = {"WAYMARKS_HOME": str(tmp_path / "another")}  # the person's shell's home
    told = waymarks(*shlex.split(named)[1:], env=shell, cwd=project)
    assert told.returncode == 1 and str(ledger) in told.stdout, told.stdout
