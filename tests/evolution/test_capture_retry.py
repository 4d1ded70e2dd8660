"""EVOLUTION item 11 (F20): a capture that throws is queued durably and retried.

The database is really locked: another process holds ``BEGIN EXCLUSIVE`` on the home's
``waymarks.db`` while the Stop hook (the real entry point) and Pi's capture run. Nothing
is lost: the request waits in the spool (a reference, no content) with a fixed error code,
and the next turn or the recovery tick's queue check captures it once the lock is gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymarks.hosts.pi_capture import PiCapture
from waymarks.ledger.log import header_line
from waymarks.ledger.session_file import SessionFile
from waymarks.service.capture_spool import pending, spool_dir, write_request
from waymarks.service.evolution import Evolution, drain_captures, ledger_path

STATEMENT = "Remember: we deploy with Kamal, not Capistrano."
#: the turn's reply: a Stop's transcript ends with it (a turn not yet written waits)
REPLY = json.dumps({"type": "assistant", "uuid": "a1", "message": {
    "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}}) + "\n"
LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("ROLLBACK")
"""


def _learning_on(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")


@pytest.fixture
def locked() -> Iterator[object]:
    """Holds an exclusive lock on a database in another real process while in use."""
    holders: list[subprocess.Popen[str]] = []

    def lock(db: Path) -> subprocess.Popen[str]:
        holder = subprocess.Popen([sys.executable, "-c", LOCKER, str(db)], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        holders.append(holder)
        return holder

    yield lock
    for holder in holders:
        if holder.poll() is None:
            holder.kill()
        holder.wait()


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.wait(timeout=30) == 0


def _prepare(home: Path) -> None:
    """A home whose projection exists (so there is a database to lock)."""
    with Evolution(home) as evo:
        evo.capture("/elsewhere", "statement", "Remember: the seed statement is here.",
                    session="seed", key="k0")


def _sources(home: Path) -> list[str]:
    with Evolution(home) as evo:
        return [s.text for s in evo.store.sources()]


def _request(home: Path) -> dict[str, object]:
    [name] = pending(home)
    return dict(json.loads(Path(spool_dir(home), name).read_text()))


def _stop_hook(home: Path, project: Path, transcript: Path, session: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": ""})
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": "Stop",
               "transcript_path": str(transcript)}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "hook", "claude-code", "Stop"], input=json.dumps(payload),
                          env=env, cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "", done.stderr


def _wait_for(check: object, seconds: float = 90.0) -> None:
    """Poll a background drainer's effect (a bound on waiting, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the background drain never got there"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_stop_capture_on_a_locked_database_is_queued_and_retried(
        tmp_path: Path, locked: object) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _learning_on(home)
    _prepare(home)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "uuid": "u1", "message": {
        "role": "user", "content": STATEMENT}}) + "\n" + REPLY)
    session = str(uuid.uuid4())
    size = ledger_path(home).stat().st_size
    holder = locked(home / "waymarks.db")  # type: ignore[operator]
    _stop_hook(home, project, transcript, session)
    # the hook only queued a request; its detached drainer met the lock and kept it
    _wait_for(lambda: _request(home).get("tries") == 1)
    request = _request(home)
    assert request["error"] == "sqlite_busy" and request["record"] == str(transcript)
    assert STATEMENT not in json.dumps(request)  # a reference, never the text
    assert ledger_path(home).stat().st_size == size
    log = (home / "logs").glob("*")
    assert any("evolution_capture_queued" in p.read_text() for p in log)
    _release(holder)
    # the next turn: the same hook again captures it (and the statement only once)
    _stop_hook(home, project, transcript, session)
    _wait_for(lambda: not pending(home))
    drain_captures(home)
    assert _sources(home).count(STATEMENT) == 1


@pytest.mark.slow
def test_the_queue_check_retries_a_queued_capture(tmp_path: Path, locked: object) -> None:
    """The recovery tick (any queue check: ``Evolution.unsettled``) drains the spool."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _learning_on(home)
    _prepare(home)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "uuid": "u1", "message": {
        "role": "user", "content": STATEMENT}}) + "\n" + REPLY)
    session = str(uuid.uuid4())
    assert write_request(home, "claude-code", "Stop", session, str(transcript), str(project))
    holder = locked(home / "waymarks.db")  # type: ignore[operator]
    assert drain_captures(home) == {"captured": 0, "done": 0, "dropped": 0, "kept": 1,
                                    "set_aside": 0, "errors": {"sqlite_busy": 1}}
    assert _request(home)["tries"] == 1
    status = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                             "evolution", "status"], capture_output=True, text=True,
                            timeout=120, cwd=project)
    assert "Captures waiting to be stored: 1" in status.stdout, status.stdout + status.stderr
    _release(holder)
    with Evolution(home) as evo:
        unsettled = evo.unsettled(10)
    assert not pending(home)
    assert STATEMENT in _sources(home) and len(unsettled) == 2


@pytest.mark.slow
def test_pi_capture_on_a_locked_database_is_queued_and_retried_next_turn(
        tmp_path: Path, locked: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_SUBAGENT_AGENT_ID", raising=False)
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _learning_on(home)
    _prepare(home)
    path = tmp_path / "pi-session.jsonl"
    entry = {"type": "message", "id": "a2", "parentId": None,
             "timestamp": "2026-11-30T10:00:01.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": STATEMENT}]}}
    path.write_bytes(header_line(str(uuid.uuid4()), "2026-11-30T10:00:00.000Z",
                                 str(project)) + json.dumps(entry).encode() + b"\n")
    capture = PiCapture(home)
    holder = locked(home / "waymarks.db")  # type: ignore[operator]
    try:
        done = capture.capture("agent_end", SessionFile.open(path), str(project))
        assert done == {"captured": 0, "queued": True}
        # the retry takes this turn's entries only (an earlier turn may have been said
        # while learning was off)
        assert (_request(home)["host"], _request(home)["turn"]) == ("pi", "a2")
        _release(holder)
        # the next turn has nothing new of its own: the queued capture is retried first
        path.write_bytes(path.read_bytes() + json.dumps({
            **entry, "id": "a3", "parentId": "a2",
            "message": {"role": "user", "content": "what time is it?"}}).encode() + b"\n")
        again = capture.capture("agent_end", SessionFile.open(path), str(project))
        assert again == {"captured": 0, "retried": 1}
    finally:
        capture.close()
    assert not pending(home) and _sources(home).count(STATEMENT) == 1


def test_a_full_spool_refuses_and_bad_requests_are_dropped(tmp_path: Path) -> None:
    from waymarks.service.capture_spool import MAX_ENTRIES, drain

    home = tmp_path / "home"
    assert write_request(home, "pi", "agent_end", "s", "/nowhere", "/p")
    Path(spool_dir(home), "pi-x-agent_end.json").write_text('{"v": 9}')
    with Evolution(home) as evo:
        result = drain(home, evo).to_json()
    assert result["dropped"] == 1 and result["done"] == 1 and not pending(home)
    for n in range(MAX_ENTRIES):
        assert write_request(home, "pi", "agent_end", f"s{n}", "/nowhere", "/p")
    assert not write_request(home, "pi", "agent_end", "one-too-many", "/nowhere", "/p")
    assert write_request(home, "pi", "agent_end", "s1", "/nowhere", "/p")  # a replacement
    assert len(pending(home)) == MAX_ENTRIES


def test_the_lean_json_reader_agrees_with_json() -> None:
    from waymarks.service.capture_spool import dumps_request, loads_object

    for raw in ['{"a": "x\\u00e9\\n", "b": [1, 2.5, null, true], "c": {"d": -3e2}}',
                '  {"session_id": "3c3c", "cwd": "/tmp/\u00e9t\u00e9"}  ']:
        assert loads_object(raw.encode()) == json.loads(raw)
    for bad in [b"", b"[1]", b'{"a": 1} x', b'{"a": NaN}', b"\xff", b'{"a": "\\ud800"']:
        assert loads_object(bad) is None
    request = {"v": 1, "record": "/t/\u00e9\"q\"", "error": None, "tries": 2}
    assert json.loads(dumps_request(request)) == request
