"""Issue 20 item 2: the hosts pass the conversation to recall, and dropped names are barriers.

Claude Code through the real ``waymarks hook claude-code`` entry point: the prompts the
hook already recorded in the session ledger are the history of the next one. The barrier
rule (EVOLUTION.md item 17) through ``waymarks recall --history``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from waymarks.hosts.claude_code import HISTORY_TAIL_BYTES, recent_prompts
from waymarks.recall.plan import plan_query
from waymarks.service.app import Waymarks

WAYMARKS = Path(sys.executable).parent / "waymarks"
SQLITE = "The SQLite database listens on port 5433."
POSTGRES = "The PostgreSQL database listens on port 5432."


def hook(home: Path, project: Path, sid: str, event: str, **extra: Any) -> str:
    body = {"session_id": sid, "transcript_path": str(project / "transcript.jsonl"),
            "cwd": str(project), "hook_event_name": event, **extra}
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code", event],
                          input=json.dumps(body).encode(), env=env, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def context_of(output: str) -> str:
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"]) if output else ""


@pytest.fixture
def session(home: Path, project: Path) -> str:
    sid = str(uuid.uuid4())
    hook(home, project, sid, "SessionStart", source="startup")
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.remember(SQLITE)
        app.remember(POSTGRES)
    return sid


@pytest.mark.slow
def test_claude_code_follow_up_keeps_the_subject(home: Path, project: Path,
                                                 session: str) -> None:
    first = context_of(hook(home, project, session, "UserPromptSubmit",
                            prompt="Let's look at SQLite today"))
    assert SQLITE in first and POSTGRES not in first
    follow = context_of(hook(home, project, session, "UserPromptSubmit",
                             prompt="and the port?"))
    assert SQLITE in follow and POSTGRES not in follow


def test_claude_code_without_history_the_port_alone_matches_both(
        home: Path, project: Path, session: str) -> None:
    """The same follow-up as a session's first prompt: nothing to inherit, both claims."""
    alone = context_of(hook(home, project, session, "UserPromptSubmit",
                            prompt="and the port?"))
    assert SQLITE in alone and POSTGRES in alone


@pytest.mark.slow
def test_claude_code_a_dropped_name_is_a_barrier(home: Path, project: Path,
                                                 session: str) -> None:
    """Inherited, "what about Go?" would match the SQLite claim alone; as a barrier nothing
    matches, and the planner shows its recent-continuity memories (both claims) instead."""
    hook(home, project, session, "UserPromptSubmit", prompt="What is the SQLite port?")
    for prompt in ("what about Go?", "continue"):
        shown = context_of(hook(home, project, session, "UserPromptSubmit", prompt=prompt))
        assert SQLITE in shown and POSTGRES in shown
        assert "recall matched" not in shown and "no memory matched" in shown


@pytest.mark.slow
def test_recent_prompts_reads_only_the_persons_turns(home: Path, project: Path,
                                                     session: str) -> None:
    for prompt in ("Let's look at SQLite today", "/compact", "and the port?"):
        hook(home, project, session, "UserPromptSubmit", prompt=prompt)
    with Waymarks(home, cwd=str(project), session=session) as app:
        log = app.current_session()
        assert log is not None
        assert recent_prompts(log, "and the port?") == ["Let's look at SQLite today"]
        assert recent_prompts(log, "something new") == ["Let's look at SQLite today",
                                                        "and the port?"]


def test_tool_observations_do_not_push_the_subject_out_of_the_history(
        home: Path, project: Path) -> None:
    """With learning on, each tool call is recorded in the ledger: 90 calls printing
    32 KB filled the 2 MiB the hook read, and "what port?" lost its subject (every
    service's port was injected). The ledger is read further back for the prompts."""
    output = "".join(f"line {i}: building the gateway image layer\n" for i in range(700))
    with Waymarks(home, cwd=str(project)) as app:
        app.session_say("Let's look at the Redis cache")
        for call in range(90):
            app.append_record("waymarks-tool-observation-v1",
                              {"id": f"toolu_{call}", "tool": "Bash", "response": output})
        app.session_say("what port?")
        log = app.current_session()
        assert log is not None and log.offset > HISTORY_TAIL_BYTES
        assert recent_prompts(log, "what port?") == ["Let's look at the Redis cache"]


def test_the_history_read_stops_at_the_turns_the_planner_uses(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long session (20 prompts, each followed by tool observations of ~28 KB, 5.6 MB):
    the hook read on until it had 24 prompts, re-reading the whole window at each doubling
    (2, 4, then all 5.6 MB: 11.6 MB a prompt) though the planner uses 6 earlier turns. It
    stops once they are found, and reads each byte once."""
    from waymarks.ledger.session_file import SessionFile
    from waymarks.recall.plan import MAX_HISTORY_TURNS

    output = "".join(f"line {i}: building the gateway image layer\n" for i in range(600))
    with Waymarks(home, cwd=str(project)) as app:
        for turn in range(20):
            app.session_say(f"prompt number {turn}")
            for call in range(10):
                app.append_record("waymarks-tool-observation-v1",
                                  {"id": f"toolu_{turn}_{call}", "tool": "Bash",
                                   "response": output})
        app.session_say("what port?")
        log = app.current_session()
        assert log is not None and log.offset > 2 * HISTORY_TAIL_BYTES
        read: list[int] = []
        original = SessionFile._read_from

        def counted(self: SessionFile, offset: int, limit: int) -> bytes:
            data = original(self, offset, limit)
            read.append(len(data))
            return data

        monkeypatch.setattr(SessionFile, "_read_from", counted)
        prompts = recent_prompts(log, "what port?")
    assert prompts[-MAX_HISTORY_TURNS:] == [f"prompt number {turn}" for turn in range(14, 20)]
    assert sum(read) <= 2 * HISTORY_TAIL_BYTES < log.offset


@pytest.mark.parametrize(("history", "prompt"), [
    (["SQLite port?"], "what about Go?"),
    (["SQLite port?"], "and in C?"),
    (["SQLite port?"], "what about C++?"),
    (["SQLite port?", "what about Go?"], "continue"),
])
def test_dropped_names_are_barriers(history: list[str], prompt: str) -> None:
    plan = plan_query(prompt, history)
    assert plan.focus == () and plan.context == ()


@pytest.mark.parametrize(("history", "prompt", "context"), [
    (["SQLite port?"], "and the auth?", ("w:sqlite",)),
    (["Let's look at SQLite today"], "and the port?", ("w:sqlite",)),
    (["SQLite"], "And I want the port", ("w:sqlite",)),
])
def test_follow_ups_still_inherit(history: list[str], prompt: str,
                                  context: tuple[str, ...]) -> None:
    assert plan_query(prompt, history).context == context


@pytest.mark.slow
def test_cli_go_after_sqlite_recalls_nothing(home: Path, project: Path) -> None:
    env = {**os.environ, "WAYMARKS_HOME": str(home)}

    def run(*args: str) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", *args],
                              cwd=project, env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    sqlite = run("memory", "add", "--", SQLITE)["id"]
    assert run("recall", "--history", "SQLite", "and the port?")["selected"] == [sqlite]
    assert run("recall", "--history", "SQLite port?", "what about Go?")["selected"] == []


def test_pi_bridge_plans_with_the_turns_the_extension_sends(tmp_path: Path) -> None:
    """The bridge protocol in-process (the extension's side played by the test host): a plan
    request carrying the earlier user turns recalls the SQLite claim only."""
    from tests.hosts.test_bridge import Host, converse

    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": f"memory add -- {SQLITE}"}},
        {"id": 3, "method": "command", "params": {"text": f"memory add -- {POSTGRES}"}},
        {"id": 4, "method": "plan", "params": {"prompt": "and the port?",
                                               "history": ["Let's look at SQLite today"]}},
        {"id": 5, "method": "plan", "params": {"prompt": "and the port?"}},
        {"id": 6, "method": "plan", "params": {"prompt": "x", "history": "not a list"}},
        {"id": 7, "method": "shutdown"}], Host())
    assert [m["result"]["exitCode"] for m in out[1:3]] == [0, 0]

    def memories(answer: dict[str, Any]) -> str:
        return "\n".join(m["content"] for m in answer["result"]["messages"]
                         if m["kind"] == "memory")

    followed = memories(out[3])
    assert SQLITE in followed and POSTGRES not in followed
    alone = memories(out[4])
    assert SQLITE in alone and POSTGRES in alone
    assert out[5]["error"]["code"] == "invalid_argument"


def test_a_prompt_starting_with_a_path_is_a_turn_not_a_slash_command(
        home: Path, project: Path) -> None:
    """Every prompt starting with "/" was left out of the history as a slash command, so
    "and the port?" after "/srv/data/app.db is our SQLite database, let's look at it"
    lost its subject; a slash command ("/compact", "/model opus") is still left out."""
    turn = "/srv/data/app.db is our SQLite database, let's look at it"
    with Waymarks(home, cwd=str(project)) as app:
        for said in (turn, "/compact", "/model opus", "/project:fix-issue 42", "and the port?"):
            app.session_say(said)
        log = app.current_session()
        assert log is not None
        assert recent_prompts(log, "and the port?") == [turn]
    plan = plan_query("and the port?", [turn])
    assert plan.reason == "followup" and "w:sqlite" in plan.context

