"""`waymarks status` and `health` said nothing of the Claude Code helper: whether one
runs for the home, whether a socket is left by one that ended (stale), nor the last
problem the helpers logged (one that could not listen ended unseen, every prompt then
done the slow way). They say it now, from the home alone (kinds and times, never
content); a home whose hooks never ran says nothing of it."""

from __future__ import annotations

import json
import socket
import threading
from datetime import UTC, datetime
from pathlib import Path

from tests.inprocess import waymarks
from waymarks.hosts import cc_client, cc_helper
from waymarks.service.logs import log_event


def _status(home: Path, project: Path, command: str = "status") -> tuple[dict, str]:
    data = waymarks("--home", str(home), "--json", command, cwd=project)
    text = waymarks("--home", str(home), command, cwd=project)
    return json.loads(data.stdout), text.stdout


def test_status_and_health_say_whether_the_helper_runs(home: Path, project: Path) -> None:
    data, text = _status(home, project)
    assert data["claudeCodeHelper"] is None and "Claude Code helper" not in text
    served = threading.Thread(target=cc_helper.serve, args=(home, 600.0), daemon=True)
    served.start()
    path = Path(cc_client.socket_path(home))
    for _ in range(6000):
        if path.exists() or not served.is_alive():
            break
        threading.Event().wait(0.05)
    try:
        assert cc_client._ask(home, "ping", b"") is not None
        data, text = _status(home, project)
        assert data["claudeCodeHelper"]["running"] == [path.name], data["claudeCodeHelper"]
        assert f"Claude Code helper: running ({path.name})" in text, text
        data, text = _status(home, project, "health")
        assert data["claudeCodeHelper"]["running"] == [path.name]
        assert "Claude Code helper: running" in text
    finally:
        path.unlink()
        served.join(300)


def test_a_stale_socket_and_the_last_problem_are_said(home: Path, project: Path) -> None:
    (home / "claude-code").mkdir(parents=True)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(home / "claude-code" / "helper.sock"))  # bound, never listening: dead
    left.close()
    log_event(home, datetime(2026, 12, 6, 4, 0, tzinfo=UTC), "claude_code_helper_unavailable",
              code="PermissionError")
    data, text = _status(home, project)
    helper = data["claudeCodeHelper"]
    assert helper["running"] == [] and helper["stale"] == ["helper.sock"], helper
    assert helper["lastProblem"] == {"event": "claude_code_helper_unavailable",
                                     "code": "PermissionError",
                                     "at": "2026-12-06T04:00:00+00:00"}
    assert "Claude Code helper: not running" in text and "helper.sock" in text, text
    assert "could not serve (PermissionError) at 2026-12-06T04:00:00+00:00" in text, text
