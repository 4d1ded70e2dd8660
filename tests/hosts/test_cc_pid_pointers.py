"""The Claude Code process a hook notes its session under, and that an MCP server looks
up (``spawn.parent.claude_pid``, ``claude_code.pid_pointer``): real processes, Linux."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from waymarks.hosts.claude_code import pid_pointer

PROBE = "from waymarks.spawn.parent import claude_pid; print(claude_pid())"
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")


def test_the_shell_that_runs_a_hook_is_seen_through() -> None:
    # "; true": the shell stays (it cannot exec the last command), as Claude Code's does
    done = subprocess.run(["sh", "-c", f'{sys.executable} -c "{PROBE}"; true'],
                          capture_output=True, text=True, check=True, timeout=60)
    assert int(done.stdout) == os.getpid()
    direct = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                            check=True, timeout=60)
    assert int(direct.stdout) == os.getpid()


def test_claude_code_as_pid_1_of_a_container_is_found() -> None:
    """A re-review: a shell whose parent is PID 1 was taken for Claude Code, so in a
    container (``docker run … claude``) each hook wrote a pointer under its own shell's
    PID, never read and never removed."""
    unshare = shutil.which("unshare")
    script = (f"import subprocess, sys; print(subprocess.run(['sh', '-c', "
              f"'{sys.executable} -c \"{PROBE}\"; true'], capture_output=True, text=True)"
              ".stdout.strip())")
    if unshare is None:
        pytest.skip("no unshare")
    done = subprocess.run([unshare, "--pid", "--fork", "--mount-proc", sys.executable, "-c",
                           script], capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        pytest.skip(f"no PID namespace here: {done.stderr.strip()[:200]}")
    assert done.stdout.strip() == "1"


def test_a_pointer_that_cannot_be_written_does_not_cost_the_prompt(tmp_path: Path) -> None:
    """A re-review: a directory (or a link) where a process's pointer goes made the hook
    fail, and the prompt lost its context; a FIFO there would have hung it."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    pid_pointer(home, os.getpid()).mkdir(parents=True)
    session = str(uuid.uuid4())
    payload = {"session_id": session, "transcript_path": str(project / "t.jsonl"),
               "cwd": str(project), "hook_event_name": "UserPromptSubmit",
               "prompt": "what port?"}
    waymarks = Path(sys.executable).parent / "waymarks"
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([str(waymarks), "--home", str(home), "hook", "claude-code",
                           "UserPromptSubmit"], input=json.dumps(payload).encode(), env=env,
                          cwd=project, capture_output=True, timeout=60, check=False)
    assert done.returncode == 0
    assert (home / "claude-code").is_dir()
    logged = (home / "logs" / "waymarks.jsonl").read_text() \
        if (home / "logs" / "waymarks.jsonl").exists() else ""
    assert "claude_code_hook_skipped" not in logged, logged[-500:]
