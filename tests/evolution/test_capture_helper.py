"""The Stop hook through the real warm helper: the client queues a capture request and the
helper (a real process) answers at once, then stores the statement; the hook prints
nothing and the spool ends empty."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.test_capture import trust_project
from waymarks.hosts.cc_helper import socket_path
from waymarks.service.capture_spool import pending
from waymarks.service.evolution import Evolution

STATEMENT = "Remember: the staging database is Postgres 16 from now on."


@pytest.mark.slow
def test_stop_through_the_helper_is_captured_after_the_answer(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "uuid": "u1", "message": {
        "role": "user", "content": STATEMENT}}) + "\n" + json.dumps(  # and the reply: a
        {"type": "assistant", "uuid": "a1", "message": {  # Stop's turn is in the file
            "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}}) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"CLAUDE_PROJECT_DIR": "", "WAYMARKS_CC_HELPER_IDLE": "60"})
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=env, cwd=home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket_path(home)):
            assert time.monotonic() < deadline and helper.poll() is None
            time.sleep(0.05)
        payload = {"session_id": str(uuid.uuid4()), "cwd": str(project),
                   "hook_event_name": "Stop", "transcript_path": str(transcript)}
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home",
                               str(home), "hook", "claude-code", "Stop"],
                              input=json.dumps(payload), env=env, cwd=project,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout == "", done.stderr
        deadline = time.monotonic() + 60
        while True:  # bounded wait for the helper's drain (not a timing assertion)
            with Evolution(home) as evo:
                texts = [s.text for s in evo.store.sources()] if (
                    home / "evolution" / "ledger.jsonl").is_file() else []
            if STATEMENT in texts and not pending(home):
                break
            assert time.monotonic() < deadline, (texts, pending(home))
            time.sleep(0.1)
        assert helper.poll() is None  # the helper lives on
        assert texts.count(STATEMENT) == 1
    finally:
        helper.terminate()
        helper.wait(timeout=30)


@pytest.mark.slow
def test_tool_hooks_through_the_helper_answer_first_and_stop_finds_every_record(
        tmp_path: Path) -> None:
    """Issue 19: the helper answers ``PostToolUse``/``PostToolUseFailure`` before it records
    (the hook process leaves at once); it takes one connection at a time, so the turn's
    ``Stop``, sent right after, still closes the turn with every record."""
    home, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    trust_project(home, project)  # an untrusted project's work is not captured
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"CLAUDE_PROJECT_DIR": str(project), "WAYMARKS_CC_HELPER_IDLE": "60"})
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=env, cwd=home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def hook(event: str, extra: dict[str, object]) -> None:
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": event,
                   "transcript_path": str(tmp_path / "none.jsonl"), **extra}
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home",
                               str(home), "hook", "claude-code", event],
                              input=json.dumps(payload), env=env, cwd=project,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout == "", done.stderr

    session = str(uuid.uuid4())
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket_path(home)):
            assert time.monotonic() < deadline and helper.poll() is None
            time.sleep(0.05)
        hook("UserPromptSubmit", {"prompt": "commit the shop release"})
        calls = 6
        for k in range(calls):
            hook("PostToolUse", {"tool_name": "Bash", "tool_use_id": f"t{k}",
                                 "tool_input": {"command": "git status"},
                                 "tool_response": {"stdout": "clean", "stderr": ""}})
        hook("PostToolUseFailure", {"tool_name": "Bash", "tool_use_id": "t-push",
                                    "tool_input": {"command": "git push"},
                                    "error": "remote rejected"})
        hook("Stop", {})
        deadline = time.monotonic() + 60
        while True:  # bounded wait for the helper's capture (not a timing assertion)
            path = home / "evolution" / "last-capture.json"
            last = json.loads(path.read_text()) if path.is_file() else {}
            if last.get("host") == "claude-code":
                break
            assert time.monotonic() < deadline and helper.poll() is None
            time.sleep(0.1)
        # every call recorded before Stop read them: the turn saw all seven, linked
        assert last["scan"]["calls"] == calls + 1 and last["scan"]["linked"] == calls + 1
        assert last["decision"] == "no_target" and last["intent"] == "none"
        [ledger] = list((home / "sessions").rglob("*.jsonl"))
        records = [json.loads(line)["data"]["id"] for line in ledger.read_text().splitlines()
                   if "waymarks-tool-observation-v1" in line]
        assert records == [f"t{k}" for k in range(calls)] + ["t-push"]
        assert helper.poll() is None
    finally:
        helper.terminate()
        helper.wait(timeout=30)


@pytest.mark.slow
def test_a_stop_waiting_for_its_turn_is_taken_at_the_next_prompt(tmp_path: Path) -> None:
    """``claude -p --resume``: the transcript gets the turn after the ``Stop`` hook, before
    the process exits. The helper's drain at the ``Stop`` finds the file still ending with
    the turn before, and the request waits; the next run's prompt, answered, takes it
    (left for the next ``Stop``, it was replaced by that turn's and the session fell one
    turn behind for good)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    second = "From now on the release branch is cut on Thursdays."

    def entry(kind: str, key: str, text: str) -> str:
        content: object = text if kind == "user" else [{"type": "text", "text": text}]
        return json.dumps({"type": kind, "uuid": key,
                           "message": {"role": kind, "content": content}}) + "\n"

    transcript = tmp_path / "t.jsonl"
    transcript.write_text(entry("user", "u1", STATEMENT) + entry("assistant", "a1", "Noted."))
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"CLAUDE_PROJECT_DIR": str(project), "WAYMARKS_CC_HELPER_IDLE": "60",
                "WAYMARKS_SEMANTIC": "off"})
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=env, cwd=home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    session = str(uuid.uuid4())

    def hook(event: str, **extra: object) -> None:
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": event,
                   "transcript_path": str(transcript), **extra}
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home",
                               str(home), "hook", "claude-code", event],
                              input=json.dumps(payload), env=env, cwd=project,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    def sources() -> list[str]:
        if not (home / "evolution" / "ledger.jsonl").is_file():
            return []
        with Evolution(home) as evo:
            return [s.text for s in evo.store.sources()]

    def settled(check: Callable[[], bool]) -> None:  # bounded wait (not a timing check)
        deadline = time.monotonic() + 60
        while not check():
            assert time.monotonic() < deadline, (sources(), pending(home))
            time.sleep(0.1)

    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket_path(home)):
            assert time.monotonic() < deadline and helper.poll() is None
            time.sleep(0.05)
        hook("Stop")  # turn 1, in the file
        settled(lambda: STATEMENT in sources() and not pending(home))
        hook("Stop")  # turn 2: not in the file yet
        settled(lambda: bool(pending(home)))
        with transcript.open("a") as handle:  # claude -p writes it, then exits
            handle.write(entry("user", "u2", second) + entry("assistant", "a2", "Thursdays."))
        hook("UserPromptSubmit", prompt="what did we decide about releases?")
        # the helper takes one connection at a time: once this prompt is answered, the
        # drain after the one before has ended (the recovery tick's first look, 15 s after
        # the start, would have taken the request too)
        hook("UserPromptSubmit", prompt="and which day is the tag?")
        assert second in sources() and not pending(home)
        assert helper.poll() is None
    finally:
        helper.terminate()
        helper.wait(timeout=30)


def test_the_warm_helper_captures_into_a_ledger_the_person_deleted_or_restored(
        tmp_path: Path) -> None:
    """The helper keeps one ``Evolution`` open between turns. The person deleted the
    learned ledger to start over (or restored an older copy): the warm one went on reading
    the old file, and every later capture failed and was set aside after its tries,
    while a new process captured into the new ledger."""
    from waymarks.hosts import cc_helper

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    transcript = tmp_path / "t.jsonl"
    stop = json.dumps({"session_id": str(uuid.uuid4()), "cwd": str(project),
                       "hook_event_name": "Stop", "transcript_path": str(transcript)})

    def turn(n: int, text: str) -> list[str]:
        with transcript.open("a") as handle:
            for role, said in (("user", text), ("assistant", "Noted.")):
                handle.write(json.dumps({"type": role, "uuid": f"{role}{n}", "message": {
                    "role": role, "content": said}}) + "\n")
        cc_helper._queue_stop(home, stop.encode(), str(project))  # as the helper does
        assert not pending(home)
        with Evolution(home) as evo:  # what a new process finds
            evo.sync()
            return [s.text for s in evo.store.sources()]

    assert turn(1, STATEMENT) == [STATEMENT]
    kept = (home / "evolution" / "ledger.jsonl").read_bytes()
    shutil.rmtree(home / "evolution")
    later = "Remember: we deploy with Kamal, never with Capistrano."
    assert turn(2, later) == [later]
    restored = home / "evolution" / "restored"
    restored.write_bytes(kept)
    os.replace(restored, home / "evolution" / "ledger.jsonl")
    last = "Remember: tabs, not spaces, in the Makefile."
    assert turn(3, last) == [STATEMENT, last]
