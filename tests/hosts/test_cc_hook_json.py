"""A prompt's hook in its own process (no helper) reads its input, the trust list and the
transcript's last answer, and writes the plan's log line and its answer, with ``json``'s
own results but without the ``json`` package (:mod:`waymarks.core.c_json`): its import
was ~5 M instructions of every such hook (callgrind, a 1k-memory home: 340.9 M -> 337.5 M
for the whole hook), for work the C scanner and encoder underneath do."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

from tests.conftest import isolated_python
from tests.hosts.test_cc_hook_process import ENTRY
from tests.hosts.test_cc_hook_process import PROBE as TEARDOWN_PROBE
from waymarks.hosts.claude_code import handle
from waymarks.service.app import Waymarks

#: the launcher run as ``__main__``; its ``atexit`` function says whether ``json`` came
PROBE = TEARDOWN_PROBE.replace("sys.stderr.write('atexit ran\\n')",
                               "sys.stderr.write('json: %s\\n' % ('json' in sys.modules))")


def started_session(home: Path, project: Path) -> str:
    """A new Claude Code session's ID, its ledger bound by its ``SessionStart`` hook."""
    session = str(uuid.uuid4())
    handle("SessionStart", {"session_id": session, "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"}, home)
    return session


def test_a_prompt_hook_imports_no_json_package(home: Path, project: Path) -> None:
    session = started_session(home, project)
    with Waymarks(home, cwd=str(project), session=session) as app:
        app.trust(str(project))  # (the trust list is read on every prompt)
        app.pin('Quote "paths" exactly: C:\\tmp\\é', scope="project")
        app.remember("The database port is 5433.", scope="project")
    transcript = project / "t.jsonl"
    transcript.write_text(json.dumps({"message": {
        "role": "assistant", "model": "claude-sonnet-4-5",
        "usage": {"input_tokens": 1200, "output_tokens": 30}}}) + "\n")
    event = json.dumps({"session_id": session, "cwd": str(project),
                        "hook_event_name": "UserPromptSubmit",
                        "transcript_path": str(transcript),
                        "prompt": "which port does the database use? é"}).encode()
    done = subprocess.run(
        [*isolated_python(), "-c", PROBE, str(ENTRY), "--home", str(home), "hook",
         "claude-code", "UserPromptSubmit"], input=event, cwd=project, capture_output=True,
        timeout=120, env={**os.environ, "WAYMARKS_CC_HELPER": "off"})
    assert done.returncode == 0, done.stderr
    assert "json: False" in done.stderr.decode().splitlines(), done.stderr
    answer = json.loads(done.stdout)
    # the answer as json.dumps writes it, byte for byte
    assert done.stdout.decode() == json.dumps(answer, ensure_ascii=False)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert json.dumps('Quote "paths" exactly: C:\\tmp\\é', ensure_ascii=False) in context
    assert "5433" in context
    logged = (home / "logs" / "waymarks.jsonl").read_text().splitlines()
    plan = json.loads(logged[-1])
    assert plan["event"] == "plan" and logged[-1] == json.dumps(plan, ensure_ascii=False,
                                                                sort_keys=True)
