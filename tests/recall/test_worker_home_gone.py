"""The background embedding worker never brings back a home deleted under it.

A reviewer ran ``memory add`` a few times (or ``rebuild-index``), then ``rm -rf`` of the
home: seconds later the home was there again, with the worker's progress, its foreground
lock and an empty rebuilt database, because the worker opened ``Waymarks`` on the missing
home (which creates it) to look for records written meanwhile. A real worker process
(``semantic_worker.run``, its test embedder paused at a file barrier after one committed
batch), a real ``rm -rf``; no timing assertion.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from waymarks.service import semantic_worker
from waymarks.service.app import Waymarks
from waymarks.service.semantic_recall import BATCH

ROOT = Path(__file__).resolve().parents[2]


def paused_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: str
                  ) -> tuple[Path, Path, subprocess.Popen[str]]:
    """A home of two batches of claims and a worker paused embedding the second (the
    first committed), or loading the model before it opens the home's database (``at``
    ``load``): ``(home, barrier, worker)``."""
    home, project, barrier = tmp_path / "home", tmp_path / "project", tmp_path / "barrier"
    project.mkdir()
    barrier.mkdir()
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")  # no worker but the test's
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(BATCH + 8):
            app.remember(f"Service {n} listens on port {5000 + n}.")
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.recall.paused_worker", str(home), str(barrier), at],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]),
             "WAYMARKS_SEMANTIC": "on"})
    for _ in range(1200):  # bounded: one batch committed, paused embedding the next
        if (barrier / "paused").exists() or worker.poll() is not None:
            break
        time.sleep(0.05)
    assert (barrier / "paused").exists(), worker.communicate(timeout=5)
    return home, barrier, worker


@pytest.mark.slow  # a worker process
@pytest.mark.parametrize("at", ["load", "batch"])
def test_a_home_deleted_under_the_worker_does_not_come_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: str) -> None:
    home, barrier, worker = paused_worker(tmp_path, monkeypatch, at)
    try:
        assert (home / "semantic-backfill.json").exists()  # its progress was written there
        shutil.rmtree(home)
    finally:
        (barrier / "go").touch()
        _out, err = worker.communicate(timeout=120)
    assert not home.exists(), sorted(p.name for p in home.iterdir())
    assert worker.returncode == 0, err  # it stopped quietly


@pytest.mark.slow  # a worker process
@pytest.mark.parametrize("at", ["load", "batch"])
def test_a_home_replaced_under_the_worker_is_left_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: str) -> None:
    """The home moved away and another directory put at its path (another home, restored
    from a backup): mid-batch, the worker wrote its notes over the new home's
    (``semantic-skipped.json``), and its commit, finding the database replaced, was
    "recovered" by opening the one at the path, so creating a database (and its lock, the
    foreground lock) in the new home. It now stops there, writing nothing."""
    home, barrier, worker = paused_worker(tmp_path, monkeypatch, at)
    notes = b'{"model": "another", "skipped": {"m1": {"hash": "h", "why": "crashed"}}}'
    try:
        home.rename(tmp_path / "home.old")
        home.mkdir()
        (home / "semantic-skipped.json").write_bytes(notes)  # the new home's own
    finally:
        (barrier / "go").touch()
        _out, err = worker.communicate(timeout=120)
    assert sorted(p.name for p in home.iterdir()) == ["semantic-skipped.json"]
    assert (home / "semantic-skipped.json").read_bytes() == notes
    assert worker.returncode == 0, err  # it stopped quietly


def test_a_worker_started_for_a_home_deleted_meanwhile_creates_nothing(
        tmp_path: Path) -> None:
    home = tmp_path / "home"  # woken, then the home removed before the worker ran
    assert semantic_worker.run(home) == 0
    assert not home.exists()


def test_a_directory_made_again_at_the_home_is_another_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    place = semantic_worker.Home(home)
    try:
        assert place.check() == home
        home.rmdir()  # rm -rf, then a new home at the path (often with the same inode
        home.mkdir()  # number: compared by (device, inode) alone it was the same)
        with pytest.raises(semantic_worker.HomeGone):
            place.check()
        home.rmdir()
        with pytest.raises(semantic_worker.HomeGone):
            place.check()
    finally:
        place.close()
