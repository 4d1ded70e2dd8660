"""``WAYMARKS_CC_HELPER_IDLE`` (each test failed before its fix): the Claude Code helper
read it with a bare ``float()``, so ``30m`` or ``-5`` ended every helper it started with a
traceback nobody saw (each hook then started another), and ``0`` made its socket
non-blocking and ended it the same way. The value is read as the CLI helper's is now:
not a number of seconds is logged and the default taken; ``0`` is no helper at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from waymarks.hosts import cc_client, cc_helper


def _helper(home: Path, idle: str) -> subprocess.Popen[str]:
    env = {**os.environ, "WAYMARKS_CC_HELPER_IDLE": idle, "HOME": str(home.parent)}
    return subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.mark.parametrize("idle", ["30m", "-5", "nan", "0.001"])
def test_an_idle_time_that_is_not_seconds_is_logged_and_the_helper_serves(
        tmp_path: Path, idle: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    helper = _helper(home, idle)
    socket = Path(cc_helper.socket_path(home))
    try:
        deadline = time.monotonic() + 30
        # until it answers: its socket's path is there from its bind, before it listens
        # (a ping in between is refused: a helper preempted there on a loaded machine)
        while cc_helper._ask(home, "ping", b"") is None and helper.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert helper.poll() is None, helper.communicate()[1]  # it serves
        assert socket.exists()
        assert cc_helper._ask(home, "ping", b"") is not None
    finally:
        helper.kill()
        _, stderr = helper.communicate()
    assert "Traceback" not in stderr
    events = [json.loads(line)["event"]
              for line in (home / "logs").glob("*").__next__().read_text().splitlines()]
    assert "claude_code_helper_bad_idle" in events


def test_an_idle_time_of_zero_is_no_helper(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    helper = _helper(home, "0")
    _, stderr = helper.communicate(timeout=60)
    assert helper.returncode == 0, stderr
    assert not Path(cc_helper.socket_path(home)).exists()
    # and the hooks neither ask nor start one
    monkeypatch.setenv("WAYMARKS_CC_HELPER_IDLE", "0")
    assert cc_client._helper_on() is False
    monkeypatch.setenv("WAYMARKS_CC_HELPER_IDLE", "inf")
    assert cc_client._helper_on() is True
    monkeypatch.setenv("WAYMARKS_CC_HELPER_IDLE", "30m")
    assert cc_client._helper_on() is True  # (the helper logs it and takes the default)


def test_the_idle_time_reading_is_the_clis() -> None:
    from waymarks.spawn.switches import seconds

    assert seconds("", 7.0) == 7.0
    assert seconds(" 2.5 ", 7.0) == 2.5
    assert seconds("inf", 7.0) == float("inf")
    for bad in ("30m", "-1", "nan", "seconds"):
        assert seconds(bad, 7.0) is None
    # a helper idle for less than a second ended between two prompts: each hook started
    # another (a process start each, the cost the helper is there to spare)
    for short in ("0.001", "1e-9", "0.999"):
        assert seconds(short, 7.0) is None, short
    assert seconds("1", 7.0) == 1.0 and seconds("1e9", 7.0) == 1e9


@pytest.mark.parametrize("args", [["missing"], []])
def test_a_helper_for_a_home_that_is_not_there_says_so_without_a_traceback(
        tmp_path: Path, args: list[str]) -> None:
    """``python -m waymarks.hosts.cc_helper`` with a home that does not exist (removed
    since the hook started it, a typo by hand) or none ended in a traceback; it says what
    is wrong and creates nothing."""
    where = [str(tmp_path / arg) for arg in args]
    done = subprocess.run([sys.executable, "-m", "waymarks.hosts.cc_helper", *where],
                          env={**os.environ, "HOME": str(tmp_path)}, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "usage: python -m waymarks.hosts.cc_helper HOME" in done.stderr
    if args:
        assert "no such folder" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
