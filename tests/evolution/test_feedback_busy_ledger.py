"""A Claude Code hook on the learned memory waits within its own bound: a feedback prompt
(``memory <id> is incorrect.``) and ``PreCompact``'s capture waited the learned ledger's
30 s default for its lock, held by another process, past Claude Code's 10 s hook timeout.
They now give up after the hook's wait (``HOOK_BUSY_TIMEOUT_MS``), say so in the log, and
the rest of the hook runs: the prompt's plan, and the capture queued for the next drain."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.evolution.test_aging import days_ago, learn
from tests.evolution.test_end_to_end import _cli, _hook
from waymarks.hosts.claude_code import HOOK_BUSY_TIMEOUT_MS
from waymarks.service.capture_spool import pending
from waymarks.service.evolution import Evolution, ledger_path

SESSION = "5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e"

#: another process holding the learned ledger's lock (a capture or an edit in progress)
HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@contextmanager
def held(path: Path) -> Iterator[None]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def _logged(home: Path) -> list[dict[str, object]]:
    log = home / "logs" / "waymarks.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() \
        else []


def test_the_learned_ledger_lock_is_waited_for_as_long_as_the_database(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Evolution(home, busy_timeout_ms=HOOK_BUSY_TIMEOUT_MS) as evo:
        assert evo.ledger.lock_wait_s == HOOK_BUSY_TIMEOUT_MS / 1000
    with Evolution(home) as evo:  # no bound given: the ledger's own default
        assert evo.ledger.lock_wait_s == 30.0


def _pinned_project(tmp_path: Path) -> tuple[Path, Path]:
    """A home and a trusted project with one project pin (what a plan must still hold)."""
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    _cli(home, project, "trust", str(project))
    _cli(home, project, "pin", "--scope", "project", "--", "Always run the linters first")
    return home, project


@pytest.mark.slow
def test_feedback_on_a_held_ledger_gives_up_says_so_and_the_plan_runs(
        tmp_path: Path) -> None:
    home, project = _pinned_project(tmp_path)
    claim = learn(home, str(tmp_path / "a"), {
        "kind": "decision", "content": "Deployments use Kamal",
        "searchTerms": ["kamal"]}, days_ago(14))
    with held(ledger_path(home)):
        out = _hook(home, project, "UserPromptSubmit", {
            "session_id": SESSION, "cwd": str(project),
            "prompt": f"memory {claim} is incorrect."})
    told = json.loads(out)
    assert "not recorded (ledger_busy)" in told["systemMessage"]
    assert "PINNED CONTEXT" in told["hookSpecificOutput"]["additionalContext"]
    assert {"event": "claude_code_feedback_failed", "kind": "UserPromptSubmit",
            "code": "ledger_busy"} in [{k: v for k, v in e.items() if k != "ts"}
                                       for e in _logged(home)]
    assert _cli(home, project, "evolution", "show", claim)["state"] == "provisional"


@pytest.mark.slow
def test_precompact_on_a_held_ledger_queues_its_capture_and_logs_why(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    _cli(home, project, "learn", "on")
    learn(home, str(project), {"kind": "fact", "content": "The staging port is 8080",
                               "searchTerms": ["staging"]}, days_ago(14))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(x) for x in [
        {"type": "user", "uuid": "u1", "message": {
            "role": "user", "content": "From now on, deploy with Kamal."}},
        {"type": "assistant", "uuid": "a1", "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Understood."}]}},
    ]) + "\n")
    with held(ledger_path(home)):
        _hook(home, project, "PreCompact", {"session_id": SESSION, "cwd": str(project),
                                            "transcript_path": str(transcript),
                                            "trigger": "auto"})
    assert {"event": "evolution_capture_queued", "kind": "claude-code",
            "code": "ledger_busy"} in [{k: v for k, v in e.items() if k != "ts"}
                                       for e in _logged(home)]
    assert len(pending(home)) == 1  # queued for the next drain


@pytest.mark.slow
def test_feedback_on_a_damaged_ledger_says_so_and_the_plan_runs(tmp_path: Path) -> None:
    """A learned ledger that cannot be read made a feedback prompt skip the whole hook:
    no pins, no receipt (the damage is the ledger's, not the prompt's)."""
    home, project = _pinned_project(tmp_path)
    ledger_path(home).parent.mkdir(parents=True, exist_ok=True)
    ledger_path(home).write_text("garbage\n")
    out = _hook(home, project, "UserPromptSubmit", {
        "session_id": SESSION, "cwd": str(project),
        "prompt": "memory 0123456789abcdef01234567 is incorrect."})
    told = json.loads(out)
    assert "not recorded (ledger_damaged)" in told["systemMessage"]
    assert "PINNED CONTEXT" in told["hookSpecificOutput"]["additionalContext"]
