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

import pytest

from tests.inprocess import waymarks
from waymarks.hosts import cc_client, cc_helper
from waymarks.service.logs import log_event
from waymarks.spawn.sockets import at_socket


def _status(home: Path, project: Path, command: str = "status") -> tuple[dict, str]:
    data = waymarks("--home", str(home), "--json", command, cwd=project)
    text = waymarks("--home", str(home), command, cwd=project)
    return json.loads(data.stdout), text.stdout


@pytest.mark.usefixtures("steady_code")  # (tests/hosts/conftest.py)
def test_status_and_health_say_whether_the_helper_runs(home: Path, project: Path) -> None:
    data, text = _status(home, project)
    assert data["claudeCodeHelper"] is None and "Claude Code helper" not in text
    path = Path(cc_client.socket_path(home))
    served = threading.Thread(target=cc_helper.serve, args=(home, 600.0), daemon=True)
    served.start()
    answered = None
    for _ in range(600):  # (the socket's file stands from its bind, before it listens)
        if (answered := cc_client._ask(home, "ping", b"")) is not None \
                or not served.is_alive():
            break
        threading.Event().wait(0.05)
    try:
        assert answered is not None, ("helper alive", served.is_alive(), path.exists())
        data, text = _status(home, project)
        assert data["claudeCodeHelper"]["running"] == [path.name], data["claudeCodeHelper"]
        assert f"Claude Code helper: running ({path.name})" in text, text
        data, text = _status(home, project, "health")
        assert data["claudeCodeHelper"]["running"] == [path.name]
        assert "Claude Code helper: running" in text
    finally:
        path.unlink(missing_ok=True)  # (a failure above is then the one shown)
        served.join(300)


def test_a_stale_socket_and_the_last_problem_are_said(home: Path, project: Path) -> None:
    (home / "claude-code").mkdir(parents=True)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # bound, never listening: dead (by the helpers' own way past AF_UNIX's 108 bytes: a
    # test's home under the suite's temporary root is longer)
    at_socket(str(home / "claude-code" / "helper.sock"), left.bind)
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


def test_a_helper_that_takes_connections_but_never_answers_is_not_said_running(
        home: Path, project: Path) -> None:
    """A helper stopped with ``kill -STOP`` (or stuck): the kernel still takes the
    connection, so status, which only connected, said "running (helper.sock)" while every
    prompt waited 4 s for it and then did the work in its hook. Here a socket that
    listens and never accepts stands for it: status asks it and is given no answer."""
    (home / "claude-code").mkdir(parents=True)
    stopped = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    at_socket(str(home / "claude-code" / "helper.sock"), stopped.bind)
    stopped.listen(4)  # connections wait in the backlog: nobody reads them
    try:
        data, text = _status(home, project)
        helper = data["claudeCodeHelper"]
        assert helper["running"] == [] and helper["stale"] == [], helper
        assert helper["stalled"] == ["helper.sock"], helper
        assert "Claude Code helper: not answering (helper.sock" in text, text
        assert "running (helper.sock)" not in text, text
        data, text = _status(home, project, "health")
        assert data["claudeCodeHelper"]["stalled"] == ["helper.sock"]
        assert "not answering" in text
    finally:
        stopped.close()


def test_asking_whether_the_helper_answers_does_not_keep_it_from_idling(
        home: Path) -> None:
    """Status asks the helper; before, each such connection counted as use and put off
    its idle end: a script polling status kept it for ever. A helper with a short idle
    time ends while it is asked over and over (the join's bound is not a timing)."""
    from waymarks.service.helper_status import helper_status

    served = threading.Thread(target=cc_helper.serve, args=(home, 1.0), daemon=True)
    served.start()
    path = Path(cc_client.socket_path(home))
    answered = False
    for _ in range(600):  # asked every 50 ms, 30 times its idle time at most
        if not served.is_alive():
            break
        if path.exists():
            status = helper_status(home)
            answered = answered or (status is not None and status["running"] == [path.name])
        threading.Event().wait(0.05)
    ended = not served.is_alive()  # while still asked
    path.unlink(missing_ok=True)  # (one still serving ends once its socket is gone)
    served.join(60)
    assert answered and ended
