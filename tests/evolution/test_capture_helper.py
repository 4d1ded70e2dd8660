"""The Stop hook through the real warm helper: the client queues a capture request and the
helper (a real process) answers at once, then stores the statement; the hook prints
nothing and the spool ends empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from waymarks.hosts.cc_helper import socket_path
from waymarks.service.capture_spool import pending
from waymarks.service.evolution import Evolution

STATEMENT = "Remember: the staging database is Postgres 16 from now on."


def test_stop_through_the_helper_is_captured_after_the_answer(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "uuid": "u1", "message": {
        "role": "user", "content": STATEMENT}}) + "\n")
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
