"""Claude Code hook and helper defects a review of the integration found (each test
failed before its fix):

1. closing a work turn (``Stop``, in the helper) waited the learned ledger's 30 s lock
   default: the helper stalled for 30 s and every hook meanwhile waited its 4 s for it.
   It waits ``CAPTURE_BUSY_MS`` now, and a busy ledger leaves the turn for the next
   ``Stop``.
2. whether a hook was a subagent's was read from the helper's own environment: a
   subagent's ``PreCompact`` answered by the helper was captured, and a helper a
   subagent's hook started (with ``PI_SUBAGENT_AGENT_ID`` in its environment) recorded
   no tool call of any session for its whole life. Every request says it now, and the
   helper is started without the variable.
3. a helper whose socket path another helper took over (it stalled past a hook's wait;
   or, with two installations on one home, each answers the other's ping "protocol")
   waited on its unlinked socket for its 30 idle minutes: with two installations, every
   hook started one more. It exits once ``helper.sock`` is no longer its own.
4. a lone surrogate (half an emoji, JSON-escaped) in a tool's output failed the record
   (``UnicodeEncodeError``): the observation was lost, and in the helper every warm
   session was closed. It is U+FFFD now, as in a prompt.
5. a NUL in a ``Stop``'s ``transcript_path`` (no helper) was queued in the capture spool,
   and starting the detached process with it raised: a traceback, exit 1. It is bad
   input now (logged, exit 0, nothing queued), and a spawn that cannot start is skipped.
6. reinstalling under another home, then uninstalling, left the empty ``.claude/`` the
   first install created: which folders an install created was noted in its home only.
   An install that replaces another home's hooks takes that home's note over.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import isolated_python
from tests.evolution.test_capture import SESSION, _sources, _transcript, trust_project
from tests.hosts.test_cc_helper_stalled import (  # noqa: F401 (a fixture)
    ENTRY,
    TOOL,
    _kinds,
    _payload,
    learning,
)
from waymarks.hosts import cc_client, cc_helper, claude_code, work_turns
from waymarks.hosts.claude_code_turnmark import pending_turn
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution

#: holds an exclusive lock on a file until killed, or for ``argv[2]`` seconds at most
HOLDER = ("import fcntl, os, sys, time\n"
          "fd = os.open(sys.argv[1], os.O_RDWR)\n"
          "fcntl.flock(fd, fcntl.LOCK_EX)\n"
          "print('held', flush=True)\n"
          "time.sleep(float(sys.argv[2]))\n")


def _log(home: Path) -> list[dict[str, Any]]:
    path = home / "logs" / "waymarks.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] \
        if path.is_file() else []


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_busy_learned_ledger_leaves_the_turn_for_the_next_stop_within_the_capture_wait(
        learning: Path, project: Path,  # noqa: F811
        make_app: Callable[..., Waymarks]) -> None:
    sid = str(uuid.uuid4())
    trust_project(learning, project)  # an untrusted project's work is not captured
    app = make_app()
    claude_code.handle("UserPromptSubmit", _payload(sid, str(project), "UserPromptSubmit",
                                                    prompt="run the tests"), learning, app)
    claude_code.handle("PostToolUse", _payload(sid, str(project), "PostToolUse", **TOOL),
                       learning, app)
    with Evolution(learning) as evo:
        ledger = evo.ledger.path  # (created)
    raw = json.dumps(_payload(sid, str(project), "Stop")).encode()
    # a lock held far longer than the capture's wait (2 s), for a while only: a close that
    # waited the 30 s default got it when the holder ended, and captured
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ledger), "20"],
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        cc_helper._close_work_turn(learning, raw, str(project), sid)
        still_held = holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    try:
        assert still_held  # it gave up while the ledger was busy
        assert {"event": "claude_code_hook_skipped", "kind": "Stop",
                "code": "SessionBusy"}.items() <= _log(learning)[-1].items()
        assert pending_turn(str(learning), sid)[0]  # not marked: the next Stop retries
        cc_helper._close_work_turn(learning, raw, str(project), sid)  # the lock is free
        assert not pending_turn(str(learning), sid)[0]
        last = json.loads((learning / "evolution" / "last-capture.json").read_text())
        assert last["host"] == "claude-code" and last["scan"]["calls"] == 1
    finally:
        evo = work_turns._WARM.pop(learning, None)
        if evo is not None:
            evo.close()


def _wait(check: Callable[[], object], what: str) -> Any:
    """``check()`` once it is true (a bound on waiting, not a timing assertion)."""
    deadline = time.monotonic() + 60
    while not (found := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


def _environ(subagent: bool, **extra: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("WAYMARKS_CC_HELPER", "PI_SUBAGENT_AGENT_ID")}
    environ.update({"WAYMARKS_CC_HELPER_IDLE": "60", "CLAUDE_PROJECT_DIR": "", **extra})
    if subagent:
        environ["PI_SUBAGENT_AGENT_ID"] = "agent1"
    return environ


def _entry_hook(home: Path, event: str, body: dict[str, Any], *,
                subagent: bool = False) -> None:
    """A hook as ``claude-code install`` writes it, the helper on (a subagent's: with
    ``PI_SUBAGENT_AGENT_ID`` in its environment)."""
    done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(home),
                           "hook", "claude-code", event], input=json.dumps(
                               {**body, "hook_event_name": event}), text=True,
                          capture_output=True, env=_environ(subagent), timeout=120)
    assert done.returncode == 0, done.stderr


def _answering(home: Path) -> bool:
    """The helper answers (it takes one connection at a time: every request sent before
    is done, the records of tool calls answered first included)."""
    return cc_client._ask(home, "ping", b"") is not None


@contextmanager
def _helper(home: Path, environ: dict[str, str]) -> Iterator[None]:
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=environ, cwd=home, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(lambda: _answering(home) or helper.poll() is not None, "no helper")
        assert helper.poll() is None
        yield
    finally:
        helper.terminate()
        helper.wait(30)


@pytest.mark.slow
def test_a_subagents_precompact_through_the_helper_captures_nothing(
        learning: Path, project: Path, tmp_path: Path) -> None:  # noqa: F811
    body = {"session_id": SESSION, "cwd": str(project), "trigger": "auto",
            "transcript_path": str(_transcript(tmp_path / "t.jsonl"))}
    with _helper(learning, _environ(subagent=False)):
        _entry_hook(learning, "PreCompact", body, subagent=True)
        assert _answering(learning)
        assert _sources(learning) == []
        # (the compaction itself is recorded, by the helper; the person's is captured)
        assert [line.get("customType") for line in _kinds_raw(learning, SESSION)] == \
            ["waymarks-compaction-v1"]
        _entry_hook(learning, "PreCompact", body)
        assert _answering(learning)
        assert [kind for kind, _text in _sources(learning)] == ["statement", "statement"]


def _kinds_raw(home: Path, sid: str) -> list[dict[str, Any]]:
    [ledger] = list((home / "sessions").rglob(f"*_{sid}.jsonl"))
    return [json.loads(line) for line in ledger.read_text().splitlines()[1:]]


@pytest.mark.slow
def test_a_helper_in_a_subagents_environment_still_records_the_persons_tool_calls(
        learning: Path, project: Path) -> None:  # noqa: F811
    sid = str(uuid.uuid4())
    with _helper(learning, _environ(subagent=True)):  # as a subagent's hook started one
        _entry_hook(learning, "PostToolUse", _payload(sid, project, "PostToolUse", **TOOL))
        assert _answering(learning)
        assert _kinds(learning, sid) == ["tool:toolu_01"]


def _helpers_of(home: Path) -> list[int]:
    """The helpers serving ``home`` (their command line ends with it; a background
    process has ``--background`` before it)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    line = handle.read()
            except OSError:
                continue
            if b"waymarks.hosts.cc_helper" in line and line.endswith(
                    b"\0" + str(home).encode() + b"\0") and b"--background" not in line:
                found.append(int(entry))
    return found


@pytest.mark.slow
def test_a_subagents_hook_starts_the_helper_without_the_subagent_variable(
        learning: Path, project: Path) -> None:  # noqa: F811
    sid = str(uuid.uuid4())
    _entry_hook(learning, "UserPromptSubmit",
                _payload(sid, project, "UserPromptSubmit", prompt="hi"), subagent=True)
    [pid] = _wait(lambda: _helpers_of(learning), "the hook started no helper")
    try:
        _wait(lambda: _answering(learning), "the helper never answered")
        with open(f"/proc/{pid}/environ", "rb") as handle:
            assert b"PI_SUBAGENT_AGENT_ID=" not in handle.read()
        _entry_hook(learning, "PostToolUse", _payload(sid, project, "PostToolUse", **TOOL))
        assert _answering(learning)
        assert _kinds(learning, sid) == ["said:hi", "tool:toolu_01"]
    finally:
        os.kill(pid, signal.SIGTERM)
        _wait(lambda: not _helpers_of(learning), "the helper did not end")


@pytest.mark.slow
def test_a_helper_whose_socket_another_took_over_exits(learning: Path) -> None:  # noqa: F811
    environ = _environ(subagent=False, WAYMARKS_CC_HELPER_IDLE="inf")  # never idles
    first = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper",
                              str(learning)], env=environ, cwd=learning,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    second = None
    try:
        _wait(lambda: _answering(learning) or first.poll() is not None, "no helper")
        taken = Path(cc_client.socket_path(learning)).stat().st_ino
        first.send_signal(signal.SIGSTOP)  # stalled: the next helper takes the path over
        second = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper",
                                   str(learning)], env=environ, cwd=learning,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        _wait(lambda: Path(cc_client.socket_path(learning)).stat().st_ino != taken,
              "the second helper never took the socket over")
        _wait(lambda: _answering(learning), "the second helper never answered")
        first.send_signal(signal.SIGCONT)
        assert first.wait(60) == 0  # its socket is gone: it left
        assert second.poll() is None and _answering(learning)  # the other serves on
    finally:
        for helper in (first, second):
            if helper is not None:
                helper.send_signal(signal.SIGCONT)
                helper.terminate()
                helper.wait(30)


def test_a_lone_surrogate_in_a_tool_call_is_recorded_as_a_replacement_character(
        learning: Path, project: Path) -> None:  # noqa: F811
    trust_project(learning, project)  # an untrusted project's output is not kept
    sid = str(uuid.uuid4())
    # JSON-escaped halves of a surrogate pair, as JavaScript writes a string cut in an emoji
    raw = json.dumps({"session_id": sid, "cwd": str(project), "hook_event_name": "PostToolUse",
                      "tool_name": "BashLOW", "tool_use_id": "toolu_HIGH",
                      "tool_input": {"command": "echo HIGH"},
                      "tool_response": {"stdout": "emoji cut HIGH"}}
                     ).replace("HIGH", "\\ud83d").replace("LOW", "\\udc00")
    assert claude_code.main(["PostToolUse"], learning, raw.encode()) == 0
    assert not [e for e in _log(learning) if e["event"] == "claude_code_hook_skipped"]
    [record] = [line["data"] for line in _kinds_raw(learning, sid)]
    assert record == {"id": "toolu_\ufffd", "tool": "Bash\ufffd",
                      "args": {"command": "echo \ufffd"}, "output": "emoji cut \ufffd",
                      "isError": False}
    # a long output too (cut in two parts)
    long = raw.replace("emoji cut", "x " * 20_000).replace("toolu_", "toolu_2")
    assert claude_code.main(["PostToolUse"], learning, long.encode()) == 0
    assert not [e for e in _log(learning) if e["event"] == "claude_code_hook_skipped"]
    assert len(_kinds_raw(learning, sid)) == 2


def test_a_nul_in_a_stops_transcript_path_is_bad_input_and_queues_nothing(
        learning: Path, project: Path) -> None:  # noqa: F811
    from waymarks.service.capture_spool import pending

    sid = str(uuid.uuid4())
    body = {"session_id": sid, "cwd": str(project), "transcript_path": "/\0x"}
    done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(learning),
                           "hook", "claude-code", "Stop"], input=json.dumps(body), text=True,
                          capture_output=True, timeout=120,
                          env=_environ(subagent=False, WAYMARKS_CC_HELPER="off"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert pending(learning) == []
    assert {"event": "claude_code_hook_skipped", "kind": "Stop",
            "code": "bad_transcript_path"}.items() <= _log(learning)[-1].items()
    assert _helpers_of(learning) == []  # (switched off: none started)


def test_a_detached_process_that_cannot_start_is_skipped() -> None:
    cc_client._spawn(["--background", "/home\0with a nul", "-"])  # nothing raised


def test_uninstall_after_a_reinstall_under_another_home_removes_the_folder_install_made(
        tmp_path: Path, project: Path) -> None:
    from tests.hosts.test_cc_install_files import tree
    from waymarks.hosts import claude_code_install as cc

    first, second, user = tmp_path / "wh", tmp_path / "wh2", tmp_path / "u"
    cc.install("project", project, user, first)  # creates .claude/
    cc.install("project", project, user, second)  # replaces the first home's hooks
    assert sorted(tree(project)) == [".claude", ".claude/settings.json", ".mcp.json"]
    cc.uninstall("project", project, user, second)
    assert tree(project) == {}  # nothing of Waymarks is left
    assert cc._created(first) == [] and cc._created(second) == []
