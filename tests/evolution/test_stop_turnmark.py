"""The Claude Code ``Stop`` hook closes a work turn only when a tool observation was
recorded since the last close (:mod:`waymarks.hosts.claude_code_turnmark`): the byte
search on real ledgers, and the real entry point, whose ``python -X importtime`` shows
whether the Claude Code host module was imported at all (the 50 ms it cost every
``Stop`` without the helper)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from waymarks.hosts.claude_code_turnmark import (
    CHUNK,
    OBSERVATION_MARK,
    mark_closed,
    pending_turn,
    session_ledger,
)
from waymarks.service.capture_spool import pending

SESSION = "7a7a7a7a-7a7a-4a7a-8a7a-7a7a7a7a7a7a"


def _ledger(home: Path, session: str = SESSION) -> Path:
    directory = home / "sessions" / "--p--"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"2026-12-01T10-00-00-000Z_{session}.jsonl"
    path.touch()
    return path


def _append(path: Path, entry: dict[str, object]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, separators=(",", ":")) + "\n")


OBSERVATION = {"type": "custom", "customType": "waymarks-tool-observation-v1",
               "data": {"id": "t1", "tool": "Bash"}}
PROMPT = {"type": "message", "message": {"role": "user", "content": "go on"}}


def test_the_search_answers_from_the_bytes_since_the_mark(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert pending_turn(str(home), SESSION) == (False, None)  # no ledger: nothing recorded
    ledger = _ledger(home)
    assert session_ledger(str(home), SESSION) == str(ledger)
    assert session_ledger(str(home), "00000000-0000-4000-8000-000000000000") is None
    _append(ledger, PROMPT)
    pending, seen = pending_turn(str(home), SESSION)
    assert pending is False and seen is not None and seen[2] == ledger.stat().st_size
    mark_closed(str(home), SESSION, seen)
    assert pending_turn(str(home), SESSION) == (False, None)  # the mark stands

    _append(ledger, OBSERVATION)
    pending, seen = pending_turn(str(home), SESSION)
    assert pending is True
    mark_closed(str(home), SESSION, seen)
    assert pending_turn(str(home), SESSION)[0] is False

    # a mention of the record type inside text is escaped JSON: not a record
    _append(ledger, {"type": "message", "message": {
        "role": "user", "content": 'what is "waymarks-tool-observation-v1"?'}})
    assert OBSERVATION_MARK not in ledger.read_bytes()[seen[2]:]
    assert pending_turn(str(home), SESSION)[0] is False


def test_a_rewritten_or_unmarked_ledger_is_searched_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ledger = _ledger(home)
    _append(ledger, OBSERVATION)
    _append(ledger, {"type": "message", "message": {"role": "user", "content": "x" * CHUNK}})
    # the record lies in the first chunk, far before the end, and no mark exists
    assert pending_turn(str(home), SESSION)[0] is True
    _, seen = pending_turn(str(home), SESSION)
    mark_closed(str(home), SESSION, seen)
    assert pending_turn(str(home), SESSION)[0] is False
    # replaced by another file (new inode), even a longer one: the mark no longer applies
    replacement = ledger.with_suffix(".new")
    replacement.write_bytes(ledger.read_bytes() + b"\n")
    os.replace(replacement, ledger)
    assert pending_turn(str(home), SESSION)[0] is True


def test_a_record_split_across_chunks_is_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ledger = _ledger(home)
    half = len(OBSERVATION_MARK) // 2
    ledger.write_bytes(b"x" * (CHUNK - half) + OBSERVATION_MARK + b"\n")
    assert pending_turn(str(home), SESSION)[0] is True


def _hook(home: Path, project: Path, event: str, payload: dict[str, object]) -> str:
    """The real entry point, as Claude Code runs it without a helper; its import log."""
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(project)})
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "waymarks.cli.main", "--home", str(home),
         "hook", "claude-code", event],
        input=json.dumps({**payload, "hook_event_name": event}), env=env, cwd=project,
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


def _imported(log: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in log.splitlines() if "|" in line}


def _events(home: Path) -> str:
    """The home's event log (codes only, never content): why a close did not happen."""
    from waymarks.service.logs import LOG_DIR, LOG_FILE

    path = home / LOG_DIR / LOG_FILE
    return path.read_text(encoding="utf-8")[-2000:] if path.exists() else "(no event log)"


def _last_capture(home: Path) -> dict[str, object] | None:
    from waymarks.service.evolution_observe import last_capture

    return last_capture(home)


def _settled(home: Path) -> None:
    """Wait until the spool holds no request and no detached process runs for this home.
    Looking for the process alone raced its start: spawned but not yet showing its own
    command line, it was not found, and the request it was about to take was still
    queued (1 run in 6 after tests/test_lean_paths.py). A bound on waiting, not a timing
    assertion: a request that is never taken fails the test."""
    deadline = time.monotonic() + 90
    while True:
        _background_done(home)
        if not pending(home):
            return
        assert time.monotonic() < deadline, f"a request stayed queued: {pending(home)}"
        time.sleep(0.05)


def _background_done(home: Path) -> None:
    """Wait until no detached process of a ``Stop`` hook (``cc_helper --background HOME``)
    runs for this home: found in the process table, so the test knows the close it may
    have made is finished (a bound on waiting, not a timing assertion)."""
    needle = f"--background\0{home}\0".encode()
    deadline = time.monotonic() + 90
    while True:
        running = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as handle:
                        if needle in handle.read():
                            running.append(entry)
                except OSError:
                    continue
        if not running:
            return
        assert time.monotonic() < deadline, "the background process never ended"
        time.sleep(0.05)


def _mark(home: Path) -> tuple[int, ...] | None:
    path = home / "claude-code" / "turns" / SESSION
    return tuple(int(p) for p in path.read_text().split()) if path.exists() else None


@pytest.mark.slow
def test_stop_closes_a_turn_off_its_path_only_when_a_tool_was_observed(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "assistant", "message": {
        "role": "assistant", "content": [{"type": "text", "text": "Committed."}]}}) + "\n")
    base = {"session_id": SESSION, "cwd": str(project), "transcript_path": str(transcript)}
    heavy = ("waymarks.hosts.claude_code", "msgspec", "subprocess", "typing")

    def stop() -> set[str]:
        imported = _imported(_hook(home, project, "Stop", base))
        assert "waymarks.hosts.claude_code_turnmark" in imported
        assert not [name for name in heavy if name in imported]  # never in the hook itself
        _settled(home)
        return imported

    # a turn with no tool at all: nothing to close, nothing written
    _hook(home, project, "UserPromptSubmit", {**base, "prompt": "what port do we use?"})
    stop()
    assert _last_capture(home) is None and _mark(home) is None

    # a tool observation: this Stop closes the turn, in the detached process
    _hook(home, project, "UserPromptSubmit", {**base, "prompt": "commit the release"})
    _hook(home, project, "PostToolUse", {**base, "tool_name": "Bash", "tool_use_id": "t1",
                                         "tool_input": {"command": "git commit -am release"},
                                         "tool_response": {"stdout": "[main 9f] release"}})
    [ledger] = list((home / "sessions").rglob(f"*_{SESSION}.jsonl"))
    size = ledger.stat().st_size
    stop()
    closed = _last_capture(home)
    assert closed is not None and closed["scan"]["calls"] == 1, _events(home)  # type: ignore[index]
    assert _mark(home) is not None and _mark(home)[2] == size  # type: ignore[index]

    # Stop again with nothing recorded since: not closed again (a close would have
    # rewritten the turn's decision, as a duplicate)
    stop()
    assert _last_capture(home) == closed

    # the next turn recorded no tool: nothing to close either
    _hook(home, project, "UserPromptSubmit", {**base, "prompt": "thanks"})
    stop()
    assert _last_capture(home) == closed and _mark(home)[2] == size  # type: ignore[index]

    # a tool result after it: closed
    _hook(home, project, "PostToolUse", {**base, "tool_name": "Bash", "tool_use_id": "t2",
                                         "tool_input": {"command": "git push"},
                                         "tool_response": {"stdout": "pushed"}})
    stop()
    again = _last_capture(home)
    assert again is not None and again["at"] != closed["at"]
    assert _mark(home)[2] > size  # type: ignore[index]
