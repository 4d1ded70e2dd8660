"""The warm helper answered a prompt's hook only after the prompt's ledger line was
``fsync``ed (7-19 ms on a loaded disk, on every prompt's wall time). The line is now
written before the answer and flushed after it is sent (``ledger/flush_later.py``): here
the ledger's flush is held, and the hook's client still gets its answer; released, the
line is flushed and in the ledger."""

from __future__ import annotations

import json
import os
import threading
import uuid
from pathlib import Path

import pytest

from waymarks.hosts import cc_client, cc_helper


def _ask(home: Path, project: Path, sid: str, event: str, **body: str) -> str | None:
    raw = json.dumps({"session_id": sid, "cwd": str(project), "hook_event_name": event,
                      **body}).encode()
    return cc_client._ask(home, event, raw, str(project))


def test_the_prompt_is_answered_before_its_ledger_line_is_flushed(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held = threading.Event()  # set: ledger flushes go through
    flushed: list[str] = []  # the ledger files flushed, in order
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        if path.endswith(".jsonl") and threading.current_thread() is served:
            held.wait(90)  # (on the old path the client gave up first: no answer)
            flushed.append(path)
        real_fsync(fd)

    # a client that waits long enough for a loaded machine (a hook's gives up after 4 s)
    monkeypatch.setattr(cc_client, "ANSWER_TIMEOUT_S", 60.0)
    served = threading.Thread(target=cc_helper.serve, args=(home, 600.0), daemon=True)
    sid = str(uuid.uuid4())
    sock = Path(cc_client.socket_path(home))
    served.start()
    for _ in range(6000):
        if sock.exists() or not served.is_alive():
            break
        threading.Event().wait(0.05)
    try:
        held.set()  # a first prompt, warming the session's app
        assert _ask(home, project, sid, "UserPromptSubmit", prompt="how do we ship?") \
            is not None
        assert _ask(home, project, sid, "ping") == ""  # (its flush is done by then)
        monkeypatch.setattr(os, "fsync", fsync)
        held.clear()
        answer = _ask(home, project, sid, "UserPromptSubmit", prompt="and the tests?")
        assert answer is not None  # answered while the ledger's flush is held
        assert flushed == []
        held.set()
        assert _ask(home, project, sid, "ping") == ""  # (after the flush)
        assert len(flushed) == 1 and flushed[0].startswith(os.path.realpath(home))
    finally:
        held.set()
        sock.unlink(missing_ok=True)  # the helper leaves at its next look
        served.join(300)
    assert b"and the tests?" in Path(flushed[0]).read_bytes()  # written, then flushed
