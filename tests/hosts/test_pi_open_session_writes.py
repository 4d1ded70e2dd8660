"""A write from outside Pi to a session file a running Pi holds open is refused.

``waymarks --session <a Pi session file> pin …`` (and the MCP write path) appended into
the file while Pi had it open (its bridge holding ``bridges/<sid>.lock``), reported the pin
committed and "applies on the active branch", yet Pi's plans never included it while that
session ran; docs/hosts.md says Waymarks never writes a file Pi holds open. Only the bridge
looked at the lock. Now every append to a session file looks first (without waiting), and
refuses with exit 2 and nothing written while a bridge holds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hosts.test_bridge import HEADER, BridgeProcess, user
from waymarks.core.decisions import Rejected
from waymarks.ledger.bridge_lock import bridge_lock_path, held_by_bridge
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, ServiceError

WAYMARKS = Path(sys.executable).parent / "waymarks"


def _pi_session(tmp_path: Path, project: Path) -> Path:
    """A session file as Pi writes it, in Pi's own session folder."""
    folder = tmp_path / "agent" / "sessions" / "x"
    folder.mkdir(parents=True)
    path = folder / f"2026-11-30T10-00-00-000Z_{HEADER['id']}.jsonl"
    lines = [{**HEADER, "cwd": str(project)}, user("a1", None, "hi")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _pin(home: Path, project: Path, session: Path, text: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "HOME": str(home.parent),
           "PI_CODING_AGENT_DIR": str(home.parent / "agent"), "WAYMARKS_SEMANTIC": "off",
           "WAYMARKS_CLI_HELPER": "off"}
    return subprocess.run([str(WAYMARKS), "--session", str(session), "pin", "--", text],
                          cwd=project, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_the_cli_does_not_write_a_session_a_running_pi_holds(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    session = _pi_session(tmp_path, project)
    before = session.read_bytes()
    bridge = BridgeProcess(home, project)
    try:
        opened = bridge.call("initialize", cwd=str(project), sessionFile=str(session),
                             header={**HEADER, "cwd": str(project)},
                             entries=[user("a1", None, "hi")], leafId="a1", hasUI=False)
        assert opened["result"]["heldBack"] is None  # this Pi serves it
        refused = _pin(home, project, session, "CLI rule two")
        assert refused.returncode == 2, refused.stderr
        assert "open in a running Pi" in refused.stderr + refused.stdout
        assert session.read_bytes() == before  # nothing appended
    finally:
        bridge.close()
    done = _pin(home, project, session, "CLI rule two")  # Pi has ended: it may be written
    assert done.returncode == 0, done.stderr
    assert b"CLI rule two" in session.read_bytes()[len(before):]


def test_writes_to_a_held_session_file_append_nothing(
        tmp_path: Path, home: Path, project: Path,
        make_app: Callable[..., Waymarks]) -> None:
    import fcntl

    session = _pi_session(tmp_path, project)
    before = session.read_bytes()
    lock = bridge_lock_path(home, HEADER["id"])
    assert lock is not None and held_by_bridge(home, str(HEADER["id"])) is None
    lock.parent.mkdir(parents=True)
    held = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)  # as the bridge holds it
    try:
        app = make_app(session=str(session))
        refused = app.pin("Always run ruff")
        assert isinstance(refused, Rejected) and refused.code == "open_in_pi"
        with pytest.raises(ServiceError) as said:
            app.session_say("a note")
        assert said.value.refusal and "open in a running Pi" in str(said.value)
        # the model's capture_note says why too (a bare "unavailable" read as a broken
        # home, and a model retried)
        from waymarks.personal.bridge_tools import capture_note

        noted = capture_note(app, "deno is also fine")
        assert (noted["outcome"], noted["category"]) == ("rejected", "open-in-pi")
        assert "running Pi" in noted["message"] and str(home) not in noted["message"]
        assert session.read_bytes() == before
    finally:
        os.close(held)
    assert isinstance(make_app(session=str(session)).pin("Always run ruff"), Committed)


@pytest.mark.parametrize("session_id", ["2026.11.30:main", "sessão-1", "a/../b", "x" * 300,
                                        "\udc80bad"])
def test_a_session_id_of_any_shape_is_held_by_one_bridge(home: Path, session_id: str) -> None:
    """A session ID outside ``[A-Za-z0-9_-]`` got no lock: a second Pi served the session
    beside the first (each knowing only its own entries), and writes from outside Pi were
    not refused."""
    from waymarks.hosts.pi_claim import claim

    session_file = home / "sessions" / "x" / "s.jsonl"  # the home's own: never a clone's
    session_file.parent.mkdir(parents=True)
    session_file.write_text("")
    first = claim(home, str(session_file), session_id, str(home), None)
    try:
        assert first.why is None and first.fd is not None
        lock = held_by_bridge(home, session_id)
        assert lock is not None and lock.parent == home / "bridges"
        second = claim(home, str(session_file), session_id, str(home), None)
        assert second.fd is None and "another Pi process has this session open" in str(
            second.why)
        assert held_by_bridge(home, session_id + "x") is None  # another session's is free
    finally:
        first.release()
    # (the second's waiter takes the lock for an instant once it is let go: by design)
    third = claim(home, str(session_file), session_id, str(home), None)
    assert third.why is None and third.fd is not None  # a Pi started after the first ended
    third.release()
