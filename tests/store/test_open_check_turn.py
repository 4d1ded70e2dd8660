"""Opening a small database checks it whole without waiting for the writers' turn.

A database up to ``OPEN_CHECK_MAX_BYTES`` is checked on open, FTS5's check of the recall
index included, which is a write statement to SQLite. It ran in a write transaction,
so it took the writers' turn (``waymarks.db.lock``): every read of a small home queued
behind writers, and with one writer stopped holding its turn (Ctrl-Z) ``pins``,
``memory list``, ``export`` and ``status`` failed after two busy timeouts (the open was
tried again after the first failed) and ``health`` after three, where a large home's
reads did not wait at all. Now the check runs only when the turn is free at once. A real
process holds the lock; the test counts the waits for the turn that gave up, and the
checks, not the time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.store import projection, writer_lock

HOLD = ("import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many waits for the writers' turn gave up, and how many FTS checks ran."""
    counts = {"waits": 0, "fts_checks": 0}
    take, check = writer_lock.flock_within, projection.fts_problems

    def flock_within(fd: int, timeout_s: float) -> bool:
        taken = take(fd, timeout_s)
        counts["waits"] += not taken and timeout_s > 0
        return taken

    def fts_problems(*args: object) -> list[str]:
        counts["fts_checks"] += 1
        return check(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(writer_lock, "flock_within", flock_within)
    monkeypatch.setattr(projection, "fts_problems", fts_problems)
    return counts


def small_home(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.pin("Use tabs in the Makefile.", scope="project")
        app.remember("The dev database listens on 5432.", scope="project")
        app.recall("database")  # the recall index caught up: nothing left to bring up
    return home, project


def test_reads_of_a_small_home_do_not_wait_for_a_stopped_writer(
        tmp_path: Path, counted: dict[str, int]) -> None:
    home, project = small_home(tmp_path)
    checks = counted["fts_checks"]  # (its opens, the turn free, checked it)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, f"{home}/waymarks.db.lock"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        for read in ("pins", "memory", "status", "health"):
            with Waymarks(home, cwd=str(project), busy_timeout_ms=1000) as app:
                if read == "pins":
                    assert [i.text for i in app.items("pin")] == [
                        "Use tabs in the Makefile."]
                elif read == "memory":
                    assert len(app.items("memory")) == 1
                else:
                    assert getattr(app, read)()
            assert counted["waits"] == 0, read
            if read == "status":  # (health checks a scratch copy too, its turn free)
                assert counted["fts_checks"] == checks  # not without the turn: the next open
    finally:
        holder.communicate("")
    checks = counted["fts_checks"]
    with Waymarks(home, cwd=str(project)) as app:  # the turn free: checked on open
        app.items("pin")
    assert counted["fts_checks"] == checks + 1
