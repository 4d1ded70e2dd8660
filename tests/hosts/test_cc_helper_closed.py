"""A warm helper killed mid-prompt closed the hook's connection without an answer, and the
client took that for "it took the request and failed": the prompt lost its context and its
record in silence. For ``UserPromptSubmit`` and ``SessionStart`` the hook now does the work
itself (a prompt the helper recorded before it died is not recorded twice) and logs it.

The helper here is a stand-in on the real socket path that reads each request and closes
without a word, as a killed helper's connection does; it holds ``helper.lock`` and answers
``ping``, so the helper the client starts afterwards leaves at once. The hook is the real
launcher (``python -I -S hook_entry.py``) in its own process."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import isolated_python
from waymarks.files.locks import open_lock
from waymarks.hosts import cc_client
from waymarks.service.app import Waymarks
from waymarks.spawn.sockets import at_socket

ENTRY = Path(__file__).resolve().parents[2] / "src" / "waymarks" / "hosts" / "hook_entry.py"
PROMPT = "how do we ship the release?"


class ClosingHelper:
    """Reads each request and closes the connection without an answer (``ping``: ok)."""

    def __init__(self, home: Path) -> None:
        path = Path(cc_client.socket_path(home))
        path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = open_lock(path.with_suffix(".lock"))
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        at_socket(str(path), self.server.bind)
        self.server.listen(8)
        self.events: list[str] = []
        #: what it does with a request before it closes (what a helper did before it died)
        self.before_close: Callable[[str], None] = lambda event: None
        self.pinged = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return  # closed
            with connection:
                data = b""
                while chunk := connection.recv(65536):
                    data += chunk
                event = json.loads(data.partition(b"\n")[0])["event"]
                self.events.append(event)
                self.before_close(event)
                if event == "ping":
                    connection.sendall(b"ok\n")
                    self.pinged.set()

    def close(self) -> None:
        self.pinged.wait(60)  # the helper the client started asked, and left
        self.server.close()
        os.close(self.lock)


@pytest.fixture
def closing(home: Path) -> Iterator[ClosingHelper]:
    helper = ClosingHelper(home)
    try:
        yield helper
    finally:
        helper.close()


def _hook(home: Path, event: str, body: dict[str, object]) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "WAYMARKS_CC_HELPER"}
    environ.update({"WAYMARKS_CC_HELPER_IDLE": "1", "CLAUDE_PROJECT_DIR": ""})
    done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(home),
                           "hook", "claude-code", event],
                          input=json.dumps({**body, "hook_event_name": event}), text=True,
                          capture_output=True, env=environ, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _closed(home: Path) -> list[tuple[str, str]]:
    log = home / "logs" / "waymarks.jsonl"
    return [(e["kind"], e["outcome"]) for e in map(json.loads, log.read_text().splitlines())
            if e["event"] == "claude_code_helper_closed"]


def _prompts(home: Path, project: Path, sid: str) -> list[str]:
    [ledger] = list((home / "sessions").rglob(f"*_{sid}.jsonl"))
    return [line["message"]["content"][0]["text"]
            for line in map(json.loads, ledger.read_text().splitlines())
            if line.get("type") == "message"]


def test_a_prompt_whose_helper_closed_is_done_by_the_hook(
        home: Path, project: Path, closing: ClosingHelper) -> None:
    sid = str(uuid.uuid4())
    start = _hook(home, "SessionStart", {"session_id": sid, "cwd": str(project)})
    assert start.stdout == "" and "SessionStart" in closing.events
    with Waymarks(home, cwd=str(project), session=sid) as app:  # bound by the hook itself
        assert app.current_session() is not None
        app.pin("Always tag releases from main")
    done = _hook(home, "UserPromptSubmit", {"session_id": sid, "cwd": str(project),
                                            "prompt": PROMPT})
    assert "UserPromptSubmit" in closing.events  # the helper was asked first
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Always tag releases from main" in context
    assert _prompts(home, project, sid) == [PROMPT]
    assert _closed(home) == [("SessionStart", "done_here"), ("UserPromptSubmit", "done_here")]


def test_a_prompt_the_helper_recorded_before_it_died_is_recorded_once(
        home: Path, project: Path, closing: ClosingHelper) -> None:
    sid = str(uuid.uuid4())
    _hook(home, "SessionStart", {"session_id": sid, "cwd": str(project)})

    def record(event: str) -> None:  # what the helper did before it was killed
        if event == "UserPromptSubmit":
            with Waymarks(home, cwd=str(project), session=sid) as app:
                app.session_say(PROMPT)

    closing.before_close = record
    done = _hook(home, "UserPromptSubmit", {"session_id": sid, "cwd": str(project),
                                            "prompt": PROMPT})
    assert done.returncode == 0
    assert _prompts(home, project, sid) == [PROMPT]
    assert _closed(home) == [("SessionStart", "done_here"), ("UserPromptSubmit", "done_here")]
