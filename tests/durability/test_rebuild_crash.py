"""A rebuild killed midway (SIGKILL: a crash, an OOM kill, a closed laptop) leaves the
projection it was replacing, whole and usable.

The rebuild writes the whole database in one transaction. Its page cache is bounded
(:data:`waymarks.store.bulk.BULK_CACHE_KIB`), so a large rebuild writes pages of the
uncommitted transaction into the log before its commit; those must never be taken for
the database. The child here bounds the cache to a few pages, so a small home spills too,
and waits, mid-rebuild, to be killed: the test checks the log did grow, then kills it.
"""

from __future__ import annotations

import os
import select
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.test_rebuild import snapshot
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

CHILD = """
import sys
from pathlib import Path

import waymarks.store.bulk as bulk
from waymarks.service.app import Waymarks
from waymarks.store.recall_index import RecallIndex

bulk.BULK_CACHE_KIB = -64  # a few pages: the uncommitted rebuild spills into the log
indexed = RecallIndex.index_states


def then_wait(self, states):
    count = indexed(self, states)
    print("REBUILDING", flush=True)  # every row written, nothing committed
    sys.stdin.readline()  # killed here
    return count


RecallIndex.index_states = then_wait
with Waymarks(Path(sys.argv[1]), cwd=sys.argv[2]) as app:
    app.rebuild_index()
print("DONE", flush=True)
"""


def state(db_path: Path) -> dict[str, list[tuple]]:
    """The derived rows, and what a rebuild changes beyond them: the schema (its indexes
    are dropped while the rows go in) and ``meta`` (the recall generation counts up). The
    rows alone cannot tell: a rebuild of the same ledgers writes the same rows."""
    db = sqlite3.connect(db_path)
    try:
        extra = {"schema": db.execute("SELECT type, name, sql FROM sqlite_master"
                                      " ORDER BY name").fetchall(),
                 "meta": db.execute("SELECT name, value FROM meta ORDER BY name").fetchall()}
    finally:
        db.close()
    return {**snapshot(db_path), **extra}


@pytest.mark.slow  # a home of 61 writes and a child process: seconds
def test_a_rebuild_killed_midway_leaves_the_old_projection(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Run the linters before merging.")
        for n in range(60):
            assert isinstance(app.remember(f"the service {n} listens on port {6000 + n}"),
                              Committed)
    before = state(home / "waymarks.db")
    wal = Path(f"{home / 'waymarks.db'}-wal")
    logged = wal.stat().st_size if wal.exists() else 0
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home), str(project)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
    try:
        assert child.stdout is not None
        # (a child that hangs before its line fails the test, not the whole run)
        ready, _, _ = select.select([child.stdout], [], [], 120)
        line = child.stdout.readline() if ready else b"(nothing in 120 s)"
        assert line == b"REBUILDING\n", (line, child.stderr.read() if child.stderr else b"")
        # the rebuild's pages did reach the file before any commit
        assert wal.stat().st_size > logged
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()  # (already killed: no-op; on a failed assertion it ends the child)
        child.communicate()
    assert child.returncode == -signal.SIGKILL
    db = sqlite3.connect(home / "waymarks.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        db.close()
    assert state(home / "waymarks.db") == before
    with Waymarks(home, cwd=str(project)) as app:
        assert app.health()["ok"] is True
        assert app.recovered is None  # read as it was, not set aside as damaged
    assert not list(home.glob("waymarks.db.damaged-*"))
    assert state(home / "waymarks.db") == before
