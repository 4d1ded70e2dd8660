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


def test_a_project_pointer_that_cannot_be_written_costs_neither_context_nor_record(
        tmp_path: Path) -> None:
    """The project's pointer a directory: every prompt lost its context and its record
    (the hook logged ``claude_code_hook_skipped`` NotARegularFile) and health said OK. As
    for a process's pointer, the hook goes on without it, logs it, and health names it."""
    from waymarks.hosts.claude_code import pointer_path
    from waymarks.service.app import Waymarks

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    session = str(uuid.uuid4())
    with Waymarks(home, cwd=str(project)) as app:  # (the project's path as the hook's)
        pointer = pointer_path(app.home, app.cwd)
    pointer.mkdir(parents=True)
    payload = {"session_id": session, "transcript_path": str(project / "t.jsonl"),
               "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    waymarks = Path(sys.executable).parent / "waymarks"
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(project)}

    def hook(event: str, **extra: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(waymarks), "--home", str(home), "hook", "claude-code",
                               event], input=json.dumps({**payload, "hook_event_name": event,
                                                         **extra}).encode(),
                              env=env, cwd=project, capture_output=True, timeout=60,
                              check=False)

    assert hook("SessionStart").returncode == 0
    with Waymarks(home, cwd=str(project), session=session) as app:
        app.pin("Always run the linters first")
    done = hook("UserPromptSubmit", prompt="lint my change")
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Always run the linters first" in context
    [ledger] = (home / "sessions").rglob(f"*_{session}.jsonl")
    said = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert [e["message"]["content"][0]["text"] for e in said if e["type"] == "message"
            and e["message"]["role"] == "user"] == ["lint my change"]  # recorded
    logged = [json.loads(line) for line in
              (home / "logs" / "waymarks.jsonl").read_text().splitlines()]
    assert not [r for r in logged if r["event"] == "claude_code_hook_skipped"], logged
    assert {"event": "claude_code_pointer_skipped", "kind": "project",
            "code": "NotARegularFile"} in [{k: v for k, v in r.items() if k != "ts"}
                                           for r in logged]
    assert pointer.is_dir()  # left as it was
    health = subprocess.run([str(waymarks), "--home", str(home), "--json", "health"],
                            env=env, cwd=project, capture_output=True, timeout=60,
                            check=False)
    assert health.returncode == 1, health.stdout
    problems = json.loads(health.stdout)["problems"]
    assert [p for p in problems if p.startswith(f"{pointer}: a directory")], problems
