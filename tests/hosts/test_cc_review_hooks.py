"""Claude Code hook and helper defects a review of the integration found (each test
failed before its fix):

1. closing a work turn (``Stop``, in the helper) waited the learned ledger's 30 s lock
   default: the helper stalled for 30 s and every hook meanwhile waited its 4 s for it.
   It waits ``CAPTURE_BUSY_MS`` now, and a busy ledger leaves the turn for the next
   ``Stop``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.hosts.test_cc_helper_stalled import TOOL, _payload, learning  # noqa: F401
from waymarks.hosts import cc_helper, claude_code, work_turns
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


def test_a_busy_learned_ledger_leaves_the_turn_for_the_next_stop_within_the_capture_wait(
        learning: Path, project: Path,  # noqa: F811
        make_app: Callable[..., Waymarks]) -> None:
    sid = str(uuid.uuid4())
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
