"""The hosts' side of work observations (issue 19): Pi's ``workTurn`` shape, Claude Code's
``PostToolUse``/``PostToolUseFailure`` records (bounded, redacted, memory tools left out,
nothing at all while learning is off), ``Stop`` closing an interrupted turn, and the
diagnostics through the real ``waymarks`` entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.conftest import wait_for_decision
from waymarks.core.evolution.observations import (
    MAX_SCAN,
    AssistantText,
    ToolCall,
    ToolResult,
    UserText,
)
from waymarks.core.model_port import ModelReply
from waymarks.hosts.work_turns import from_pi, observation_record
from waymarks.service.evolution import Evolution

TOKEN = "ghp_" + "h" * 36
SESSION = "5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e"


def test_pi_turn_shape_becomes_items() -> None:
    items = from_pi([
        {"role": "user", "text": "commit it"},
        {"role": "assistant", "text": "", "stop": "toolUse",
         "calls": [{"id": "c1", "name": "bash", "args": {"command": "git commit -m x"}},
                   "junk", {"id": "c2"}]},
        {"role": "toolResult", "id": "c1", "text": "[main 1a] x", "isError": False},
        {"role": "toolResult", "text": "no id"},
        "junk",
        {"role": "assistant", "text": "Done", "stop": "aborted", "calls": []}])
    assert items == [UserText("commit it"), ToolCall("c1", "bash", {"command": "git commit -m x"}),
                     AssistantText("", "toolUse"), ToolResult("c1", "[main 1a] x", False),
                     AssistantText("Done", "aborted")]
    assert from_pi("not a list") == []


def test_claude_code_records_are_bounded_redacted_and_skip_memory_tools() -> None:
    record = observation_record({
        "tool_name": "Bash", "tool_use_id": "toolu_1",
        "tool_input": {"command": f"git push https://x:{TOKEN}@h/r", "description": "push",
                       "timeout": 5},
        "tool_response": {"stdout": "x" * 100_000 + "\nEND", "stderr": "", "interrupted": False}})
    assert record is not None
    assert TOKEN not in json.dumps(record)
    assert set(record["args"]) == {"command"}  # only what a work observation reads
    assert len(record["output"].encode()) <= 24_576 + 1 and record["output"].endswith("END")
    assert record["isError"] is False
    assert observation_record({"tool_name": "mcp__waymarks__memory_recall",
                               "tool_use_id": "t", "tool_response": "x"}) is None
    assert observation_record({"tool_name": "Bash", "tool_input": {}}) is None  # no ID
    assert observation_record({"tool_name": "Bash", "tool_use_id": "t", "agent_id": "sub-1",
                               "tool_input": {"command": "git push"}}) is None  # subagent


def _hook(home: Path, cwd: Path, event: str, payload: dict[str, Any]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(cwd)})
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "hook",
         "claude-code", event], input=json.dumps({**payload, "hook_event_name": event}),
        env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    if event != "UserPromptSubmit":  # the tool hooks and Stop answer nothing
        assert done.stdout == ""


def _cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_learning_off_records_nothing(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    _hook(home, project, "PostToolUse", {
        "session_id": SESSION, "cwd": str(project), "tool_name": "Bash", "tool_use_id": "t1",
        "tool_input": {"command": "git commit -m x"}, "tool_response": {"stdout": "ok"}})
    assert not (home / "sessions").exists()


@pytest.mark.slow
def test_an_interrupted_claude_code_turn_and_the_diagnostics(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    _cli(home, project, "learn", "on")
    _cli(home, project, "trust", str(project))  # an untrusted one's work is not captured
    origin = str(project.resolve())
    content = "The shop release is not committed yet"
    with Evolution(home) as evo:
        said = evo.capture(origin, "statement", f"Remember: {content}", session="s", key="k")
        assert said is not None
        evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            {"kind": "project_state", "content": content}]}), "f", "f"),
            "2030-01-01T00:00:00.000Z")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(e) for e in [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Pushed the shop release!"}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "[Request interrupted by user]"}]}}]) + "\n")
    base = {"session_id": SESSION, "cwd": str(project), "transcript_path": str(transcript)}
    _hook(home, project, "UserPromptSubmit", {**base, "prompt": "commit the shop release"})
    _hook(home, project, "PostToolUse", {**base, "tool_name": "Bash", "tool_use_id": "t1",
                                         "tool_input": {"command": "git commit -am release"},
                                         "tool_response": {"stdout": "[main 9f] release",
                                                           "stderr": "", "interrupted": False}})
    _hook(home, project, "PostToolUseFailure", {**base, "tool_name": "Bash",
                                                "tool_use_id": "t2",
                                                "tool_input": {"command": "git push"},
                                                "error": f"rejected; token {TOKEN}",
                                                "is_interrupt": False})
    _hook(home, project, "Stop", base)
    wait_for_decision(home)
    [ledger] = list((home / "sessions").rglob("*.jsonl"))
    assert TOKEN not in ledger.read_text()
    records = [json.loads(line)["data"] for line in ledger.read_text().splitlines()
               if "waymarks-tool-observation-v1" in line]
    assert [(r["id"], r["isError"]) for r in records] == [("t1", False), ("t2", True)]

    learning = json.loads(_cli(home, project, "--json", "evolution", "learning").stdout)
    last = learning["lastCapture"]
    assert last["decision"] == "captured" and last["scan"]["completion"] == "interrupted"
    with Evolution(home) as evo:  # "commit the shop release" is no statement
        evo.sync()
        assert [s for s in evo.store.sources() if s.kind == "statement" and s.session != "s"] == []
        source = evo.store.view.source(last["sourceId"])
        assert source is not None
        doc = json.loads(source.text)
    assert doc["completion"] == "interrupted" and doc["report"] is None
    assert [o["ok"] for o in doc["observations"]] == [True, False]

    text = _cli(home, project, "evolution", "learning").stdout
    assert "Last turn (claude-code" in text and "captured as a work source" in text
    assert "request: no statement to learn (an ordinary request)" in text
    assert "completion interrupted" in text and "processed is not learned" in text
    for body in (content, "commit the shop release", "Pushed the shop", "rejected"):
        assert body not in text
    status = _cli(home, project, "evolution", "status").stdout
    assert "Processed 1 sources: 1 changed learned memory" in status


def test_a_credential_split_by_the_record_cut_leaves_no_fragment() -> None:
    """Regression (review i19 #1): the record cut by raw bytes and redacted the joined
    text, so a key split at the cut was stored as half a key."""
    head_cut, tail_keep = 24_576 // 3, (2 * 24_576) // 3
    for secret in ("AKIAIOSFODNN7EXAMPLE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"):
        for shift in range(1, len(secret), 3):  # the cut falls inside the secret
            head = "w " * ((head_cut - shift) // 2) + "w" * ((head_cut - shift) % 2)
            head = head[:-1] + " " if head.endswith("w") else head
            middle = " y" * 8_000 + " "
            tail = " " + "z " * ((tail_keep - len(secret) + shift) // 2) + "END"
            output = head + secret + middle + secret + tail
            data = output.encode()
            assert secret not in data[:head_cut].decode() and secret[:shift] in \
                data[:head_cut].decode()[-len(secret):]  # the head cut splits it
            record = observation_record({
                "tool_name": "Bash", "tool_use_id": "t1",
                "tool_input": {"command": "git push " + "a " * (8_192 // 6 - shift)
                               + secret + " b" * 6_000},
                "tool_response": {"stdout": output}})
            assert record is not None
            stored = json.dumps(record)
            for piece in (secret[:8], secret[-8:], secret[4:12]):
                assert piece not in stored, (secret, shift, piece)
            assert record["output"].endswith("END")


@pytest.mark.slow
def test_a_claude_code_turn_of_many_calls_keeps_its_request(tmp_path: Path) -> None:
    """Regression (review i19 #7): the turn kept its prompt and 4,095 records, but each
    record is two items, so a turn of 2,048 or more tool calls lost the request from the
    scan window (no_request)."""
    from waymarks.hosts.claude_code_observe import MAX_RECORDS
    from waymarks.ledger.session_file import SessionFile

    assert 1 + 2 * MAX_RECORDS + 1 <= MAX_SCAN  # prompt, call + result each, final reply
    home, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    _cli(home, project, "learn", "on")
    _cli(home, project, "trust", str(project))  # an untrusted one's work is not captured
    origin = str(project.resolve())
    content = "The shop release is not committed yet"
    with Evolution(home) as evo:
        said = evo.capture(origin, "statement", f"Remember: {content}", session="s", key="k")
        assert said is not None
        evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            {"kind": "project_state", "content": content}]}), "f", "f"),
            "2030-01-01T00:00:00.000Z")
    base = {"session_id": SESSION, "cwd": str(project)}
    _hook(home, project, "UserPromptSubmit", {**base, "prompt": "commit the shop release"})
    [path] = list((home / "sessions").rglob("*.jsonl"))
    session = SessionFile.open(path)
    counter = iter(range(1, 10_000))
    with session.locked():
        for k in range(2_100):
            session.append({"type": "custom", "customType": "waymarks-tool-observation-v1",
                            "timestamp": "2030-01-01T00:00:01.000Z",
                            "data": {"id": f"ls{k}", "tool": "Bash", "args": {"command": "ls"},
                                     "output": "a b", "isError": False}},
                           lambda: f"f{next(counter):07x}")
    _hook(home, project, "PostToolUse", {**base, "tool_name": "Bash", "tool_use_id": "t1",
                                         "tool_input": {"command": "git commit -am release"},
                                         "tool_response": {"stdout": "[main 9f] release"}})
    _hook(home, project, "Stop", base)
    wait_for_decision(home)
    last = json.loads(_cli(home, project, "--json", "evolution", "learning").stdout
                      )["lastCapture"]
    assert last["decision"] == "captured", last
    assert last["scan"]["scanLimited"] is True  # older records were left out, and it says so
    with Evolution(home) as evo:
        source = evo.store.view.source(last["sourceId"])
        assert source is not None
        doc = json.loads(source.text)
    assert doc["request"] == "commit the shop release"
    assert [o["kind"] for o in doc["observations"]][-1] == "commit"


def _pi_long_turn(project: Path, calls: int) -> list[dict[str, Any]]:
    """A Pi ``workTurn``: the request, an early commit, ``calls`` inspections, the reply."""
    turn: list[dict[str, Any]] = [
        {"role": "user", "text": "commit the shop release"},
        {"role": "assistant", "text": "", "stop": "toolUse", "calls": [
            {"id": "c-commit", "name": "bash",
             "args": {"command": f"cd {project} && git commit -am release"}}]},
        {"role": "toolResult", "id": "c-commit", "text": "[main 9f] release", "isError": False}]
    for k in range(calls):
        turn.append({"role": "assistant", "text": "", "stop": "toolUse", "calls": [
            {"id": f"ls{k}", "name": "bash", "args": {"command": f"git -C {project} status"}}]})
        turn.append({"role": "toolResult", "id": f"ls{k}", "text": "clean", "isError": False})
    turn.append({"role": "assistant", "text": "Committed.", "stop": "stop", "calls": []})
    return turn


def test_a_pi_turn_longer_than_the_bound_keeps_its_request() -> None:
    """Regression (issue 19): the bridge kept the newest 4,096 messages, so a Pi turn of
    more lost the person's request (no_request: nothing captured)."""
    from waymarks.hosts.work_turns import MAX_TURN_MESSAGES, pi_turn

    project = Path("/srv/shop")
    turn = _pi_long_turn(project, 2_500)  # 5,004 messages
    items, limited = pi_turn(turn)
    assert limited and items[0] == UserText("commit the shop release")
    # the request and the newest 4,095 messages: the early commit fell out
    assert sum(isinstance(i, ToolResult) for i in items) == (MAX_TURN_MESSAGES - 2) // 2
    assert ToolCall("c-commit", "bash", {"command": f"cd {project} && git commit -am release"}) \
        not in items
    # what the extension sends for the same turn: the request, an ``omitted`` entry, the
    # newest 4,095 messages; the bridge reads it as limited, the marker is no item
    sent = [turn[0], {"role": "omitted", "count": len(turn) - MAX_TURN_MESSAGES},
            *turn[-(MAX_TURN_MESSAGES - 1):]]
    items_sent, limited_sent = pi_turn(sent)
    assert limited_sent and items_sent == items
    # a short turn: nothing cut, the request at index 0 is not repeated
    short, cut = pi_turn(turn[:3] + turn[-1:])
    assert not cut and short[0] == UserText("commit the shop release")
    assert sum(isinstance(i, UserText) for i in short) == 1 and len(short) == 5
    # no user message at all: the newest messages, still bounded
    none, cut = pi_turn(turn[1:])
    assert cut and not any(isinstance(i, UserText) for i in none)


@pytest.mark.slow
def test_the_pi_bridge_captures_a_long_turn_and_notes_a_statement_turn(
        tmp_path: Path) -> None:
    """Through the real bridge process: a 5,000-message work turn is captured (its request
    kept, the scan reported as limited); a later turn with no tool call (a statement) is
    noted in the snapshot with its intent and the statements captured, no body."""
    from tests.hosts.test_pi_evolve import Bridge, _entry, _initialize

    home, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    _cli(home, project, "learn", "on")
    _cli(home, project, "trust", str(project))  # an untrusted one's work is not captured
    origin = str(project.resolve())
    content = "The shop release is not committed yet"
    with Evolution(home) as evo:
        said = evo.capture(origin, "statement", f"Remember: {content}", session="s", key="k")
        assert said is not None
        evo.apply(said.source_id, ModelReply(json.dumps({"claims": [
            {"kind": "project_state", "content": content}]}), "f", "f"),
            "2030-01-01T00:00:00.000Z")
    bridge = Bridge(home, project)
    try:
        _initialize(bridge, project, tmp_path / "s.jsonl",
                    [_entry("u0", None, "user", "commit the shop release")])
        turn = _pi_long_turn(project.resolve(), 2_500)
        done = bridge.call("learn", {"event": "agent_end", "turn": turn})
        assert done["work"] == "captured", done
        last = json.loads(_cli(home, project, "--json", "evolution", "learning").stdout
                          )["lastCapture"]
        assert last["scan"]["scanLimited"] is True and last["scan"]["scanned"] == MAX_SCAN
        assert last["intent"] == "none" and last["targets"], last

        statement = "Remember: we always squash commits before merging"
        _initialize(bridge, project, tmp_path / "s.jsonl", [
            _entry("u0", None, "user", "commit the shop release"),
            _entry("u1", "u0", "user", statement)])
        done = bridge.call("learn", {"event": "agent_end", "turn": [
            {"role": "user", "text": statement},
            {"role": "assistant", "text": "Noted.", "stop": "stop", "calls": []}]})
        assert done["captured"] == 1 and done["work"] == "no_observation", done
        learning = _cli(home, project, "--json", "evolution", "learning").stdout
        last = json.loads(learning)["lastCapture"]
        assert (last["decision"], last["intent"], last["statementsCaptured"]) == (
            "no_observation", "explicit", 1)
        assert "squash" not in learning and content not in learning
        text = _cli(home, project, "evolution", "learning").stdout
        assert "request: an explicit statement to learn" in text
        assert "1 statement(s) captured beside it" in text and "squash" not in text
    finally:
        bridge.close()


@pytest.mark.slow
def test_a_claude_code_turn_without_tool_calls_is_noted_with_its_intent(
        tmp_path: Path) -> None:
    """Item 46 through the hook entry points: a prompt that states a preference and uses no
    tool leaves the snapshot saying so (intent, no observation), not an older turn's."""
    home, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    _cli(home, project, "learn", "on")
    transcript = tmp_path / "t.jsonl"
    base = {"session_id": SESSION, "cwd": str(project), "transcript_path": str(transcript)}
    said = "Our conventions are: squash every merge and sign the tags"
    # the turn as Claude Code writes it (a Stop whose transcript is missing waits for it)
    transcript.write_text("\n".join(json.dumps(e) for e in [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": said}},
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Noted."}]}}]) + "\n")
    _hook(home, project, "UserPromptSubmit", {**base, "prompt": said})
    _hook(home, project, "Stop", base)
    wait_for_decision(home)
    learning = _cli(home, project, "--json", "evolution", "learning").stdout
    last = json.loads(learning)["lastCapture"]
    assert (last["host"], last["decision"], last["intent"]) == (
        "claude-code", "no_observation", "natural"), last
    assert "squash" not in learning
