"""A helper that stalls or dies must not make a hook record the prompt or the tool call
twice.

With the warm helper stopped (SIGSTOP), a ``PostToolUse`` and a ``UserPromptSubmit`` hook
each waited for it (``ANSWER_TIMEOUT_S``), then did the work themselves; once resumed, the
helper did both requests again: the ledger held observation, prompt, observation, prompt.
The duplicate check for prompts looked only at the ledger's last entry (any append by
another process got past it), and tool calls had none. Now the helper drops a request
whose client hung up, a tool call whose answer could not be sent is not recorded, and
both records are made once: a tool call by its ``tool_use_id``, a prompt by its text
recorded since the hook started (the client's time, sent along), each decided under the
session lock."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CountingIds, StepClock, isolated_python
from waymarks.hosts import cc_client, cc_helper, claude_code
from waymarks.hosts.claude_code_observe import OBSERVATION_TYPE
from waymarks.service.app import Waymarks
from waymarks.service.ports import epoch_ms

ENTRY = Path(__file__).resolve().parents[2] / "src" / "waymarks" / "hosts" / "hook_entry.py"
TOOL = {"tool_name": "Bash", "tool_input": {"command": "pytest -q"},
        "tool_response": {"stdout": "3 passed", "stderr": "", "exitCode": 0},
        "tool_use_id": "toolu_01"}


def _lines(home: Path, sid: str) -> list[dict[str, Any]]:
    [ledger] = list((home / "sessions").rglob(f"*_{sid}.jsonl"))
    return [json.loads(line) for line in ledger.read_text().splitlines()[1:]]


def _kinds(home: Path, sid: str) -> list[str]:
    """Each entry as ``tool:ID`` or ``said:TEXT``."""
    out = []
    for line in _lines(home, sid):
        if line.get("customType") == OBSERVATION_TYPE:
            out.append(f"tool:{line['data']['id']}")
        elif line.get("type") == "message":
            out.append(f"said:{line['message']['content'][0]['text']}")
    return out


def _payload(sid: str, project: Path, event: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": sid, "cwd": str(project), "hook_event_name": event, **extra}


@pytest.fixture
def learning(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    return home


def test_a_tool_call_is_recorded_once_though_done_twice(
        learning: Path, project: Path, make_app: Callable[..., Waymarks]) -> None:
    sid = str(uuid.uuid4())
    # the hook's own process, the helper's app
    first, second = make_app(ids=CountingIds(1)), make_app(ids=CountingIds(2))
    claude_code.handle("PostToolUse", _payload(sid, project, "PostToolUse", **TOOL),
                       learning, first)
    claude_code.handle("UserPromptSubmit", _payload(sid, project, "UserPromptSubmit",
                                                    prompt="next"), learning, first)
    claude_code.handle("PostToolUse", _payload(sid, project, "PostToolUse", **TOOL),
                       learning, second)
    claude_code.handle("PostToolUse", _payload(sid, project, "PostToolUse",
                                               **{**TOOL, "tool_use_id": "toolu_02"}),
                       learning, second)
    assert _kinds(learning, sid) == ["tool:toolu_01", "said:next", "tool:toolu_02"]


def test_a_prompt_recorded_since_the_hook_started_is_not_recorded_again(
        home: Path, project: Path, make_app: Callable[..., Waymarks]) -> None:
    sid, clock = str(uuid.uuid4()), StepClock()
    first, second = make_app(clock=clock, ids=CountingIds(1)), \
        make_app(clock=clock, ids=CountingIds(2))
    prompt = _payload(sid, project, "UserPromptSubmit", prompt="now fix the bug")
    started = epoch_ms(first.clock.now())  # the hook starts; then its helper records it
    claude_code.handle("UserPromptSubmit", prompt, home, first, started_ms=started)
    first.append_record("waymarks-compaction-v1", {"trigger": "auto"})  # another append
    claude_code.handle("UserPromptSubmit", prompt, home, second, started_ms=started)
    assert _kinds(home, sid) == ["said:now fix the bug"]
    # the person saying it again later (a hook started after a model turn) counts; one
    # started in the second after it was recorded is the same hook from another scope
    claude_code.handle("UserPromptSubmit", prompt, home, second,
                       started_ms=epoch_ms(second.clock.now()) + claude_code.TWIN_HOOK_MS)
    assert _kinds(home, sid) == ["said:now fix the bug"] * 2


def test_the_helper_sees_a_client_that_hung_up() -> None:
    helper, client = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with helper:
        client.sendall(b"request")
        client.shutdown(socket.SHUT_WR)  # as the client does after its request
        assert helper.recv(64) == b"request" and helper.recv(64) == b""
        assert not cc_helper._client_gone(helper)  # still waiting for the answer
        client.close()  # it gave up
        assert cc_helper._client_gone(helper)


def _hook(home: Path, project: Path, event: str, body: dict[str, Any]) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "WAYMARKS_CC_HELPER"}
    environ.update({"WAYMARKS_CC_HELPER_IDLE": "60", "CLAUDE_PROJECT_DIR": ""})
    done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(home),
                           "hook", "claude-code", event],
                          input=json.dumps(_payload(body.pop("sid"), project, event, **body)),
                          text=True, capture_output=True, env=environ, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_stopped_helper_does_not_record_again_what_the_hooks_did(
        learning: Path, project: Path) -> None:
    home, sid = learning, str(uuid.uuid4())
    environ = {**os.environ, "WAYMARKS_CC_HELPER_IDLE": "60"}
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=environ, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if cc_client._ask(home, "ping", b"") is not None:
                break
            time.sleep(0.05)
        _hook(home, project, "UserPromptSubmit", {"sid": sid, "prompt": "run the tests"})
        assert _kinds(home, sid) == ["said:run the tests"]
        helper.send_signal(signal.SIGSTOP)
        try:  # each hook waits for the stopped helper, then does the work itself
            _hook(home, project, "PostToolUse", {"sid": sid, **TOOL})
            _hook(home, project, "UserPromptSubmit", {"sid": sid, "prompt": "now fix it"})
        finally:
            helper.send_signal(signal.SIGCONT)
        # one connection at a time: once it answers this, it has done the two before
        for _ in range(600):
            if cc_client._ask(home, "ping", b"") is not None:
                break
            time.sleep(0.05)
    finally:
        helper.terminate()
        helper.wait(30)
    assert _kinds(home, sid) == ["said:run the tests", "tool:toolu_01", "said:now fix it"]
    log = [json.loads(line) for line in (home / "logs" / "waymarks.jsonl").read_text()
           .splitlines()]
    assert sorted(e["kind"] for e in log if e["event"] == "claude_code_helper_dropped") == \
        ["PostToolUse", "UserPromptSubmit"]
