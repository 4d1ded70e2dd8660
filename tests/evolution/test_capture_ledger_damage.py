"""A damaged learned ledger (empty, bytes before its header, not a regular file) does not
lose the person's captures: a capture request waits in the spool, its tries uncounted
(no drain can succeed until the person moves the ledger aside, so 20 drains must not set
it aside), and is stored by the first drain after the repair. A direct capture (Pi's
bridge, the Claude Code helper) that meets the damage queues its request instead of
failing. Real files, real SQLite, the real spool."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from waymarks.hosts.pi_capture import PiCapture
from waymarks.ledger.log import header_line
from waymarks.ledger.session_file import SessionFile
from waymarks.service.capture_spool import MAX_TRIES, pending, set_aside, spool_dir, write_request
from waymarks.service.evolution import Evolution, drain_captures, ledger_path

STATEMENT = "Remember: we deploy with Kamal, not Capistrano."
REPLY = {"type": "assistant", "uuid": "a1", "message": {
    "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}}


def _home(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    return home, project


def _damage(home: Path, how: str) -> None:
    path = ledger_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "empty":
        path.write_bytes(b"")
    elif how == "garbage_header":
        path.write_bytes(b"\x00\x01 not a header\n")
    else:
        path.mkdir()


def _repair(home: Path) -> None:
    """What the refusal tells the person to do: move it aside (kept)."""
    path = ledger_path(home)
    os.rename(path, path.with_name("ledger.jsonl.aside"))


def _statements(home: Path) -> list[str]:
    with Evolution(home) as evo:
        return [s.text for s in evo.store.sources() if s.kind == "statement"]


def _transcript(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": "u1", "message": {
        "role": "user", "content": STATEMENT}}) + "\n" + json.dumps(REPLY) + "\n")
    return path


@pytest.mark.parametrize("how", ["empty", "garbage_header", "directory"])
def test_a_queued_capture_waits_for_the_repair_and_is_then_stored(
        tmp_path: Path, how: str) -> None:
    home, project = _home(tmp_path)
    _damage(home, how)
    assert write_request(home, "claude-code", "Stop", "s1", str(_transcript(tmp_path)),
                         str(project))
    for _ in range(MAX_TRIES + 2):
        drained = drain_captures(home)
        assert drained["kept"] == 1 and drained["set_aside"] == 0, drained
        assert drained["errors"] == {"ledger_damaged": 1}
    [name] = pending(home)
    request = json.loads(Path(spool_dir(home), name).read_text())
    assert request["error"] == "ledger_damaged" and request["tries"] == 0
    assert set_aside(home) == []
    _repair(home)
    drained = drain_captures(home)
    assert (drained["done"], drained["captured"], pending(home)) == (1, 1, [])
    assert _statements(home) == [STATEMENT]


def test_pi_capture_on_a_damaged_ledger_queues_and_stores_after_the_repair(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_SUBAGENT_AGENT_ID", raising=False)
    home, project = _home(tmp_path)
    _damage(home, "empty")
    path = tmp_path / "pi-session.jsonl"
    entry = {"type": "message", "id": "a2", "parentId": None,
             "timestamp": "2026-11-30T10:00:01.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": STATEMENT}]}}
    path.write_bytes(header_line("3c3c3c3c-0000-4000-8000-000000000001",
                                 "2026-11-30T10:00:00.000Z", str(project))
                     + json.dumps(entry).encode() + b"\n")
    capture = PiCapture(home)
    try:
        done = capture.capture("agent_end", SessionFile.open(path), str(project))
        assert done == {"captured": 0, "queued": True}
        assert len(pending(home)) == 1
        _repair(home)
        again = capture.capture("agent_end", SessionFile.open(path), str(project))
        assert again["retried"] == 1
    finally:
        capture.close()
    assert not pending(home) and _statements(home) == [STATEMENT]


@pytest.mark.parametrize("warm", [False, True])
def test_a_claude_code_capture_on_a_damaged_ledger_is_queued(
        tmp_path: Path, warm: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks.hosts.claude_code_capture import capture, drop_warm

    monkeypatch.delenv("PI_SUBAGENT_AGENT_ID", raising=False)
    home, project = _home(tmp_path)
    _damage(home, "empty")
    payload = {"session_id": "s1", "transcript_path": str(_transcript(tmp_path))}
    try:
        assert capture("Stop", payload, home, str(project), warm=warm) == {
            "captured": 0, "queued": True}
    finally:
        drop_warm(home)
    _repair(home)
    assert drain_captures(home)["captured"] == 1
    assert _statements(home) == [STATEMENT]
