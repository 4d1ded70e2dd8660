"""The background embedder paused mid-batch while other processes renumber the recall
records under it (an exclusion's re-fold, ``rebuild-index``) and write more.

Vectors are keyed by item ID and carry their text's hash; each model's watermark
(``vectors_done:MODEL`` in ``meta``) says every record up to that row has a current
vector. A worker that chose its batch before the reset commits it after: its vectors must
belong to the claims whose text they were made from, and the watermark must not vouch for
a renumbered record that has none (it would never be embedded). A real worker process
(``semantic_worker.run``) with a test embedder that waits at a file barrier, the other
processes real CLI runs; no timing assertion."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from tests.recall.paused_worker import MODEL, vector
from waymarks.service.app import Waymarks
from waymarks.store.recall_vectors import VectorStore

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a worker process and four CLI runs


def cli(home: Path, project: Path, session: str, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--cwd", str(project), "--session", session, "--json", *args],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "WAYMARKS_SEMANTIC_BACKFILL": "off"})
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_vectors_committed_across_a_reset_belong_to_their_claims(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, project, barrier = tmp_path / "home", tmp_path / "project", tmp_path / "barrier"
    project.mkdir()
    barrier.mkdir()
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")  # no worker but the test's
    with Waymarks(home, cwd=str(project), ids=CountingIds(1)) as first:
        first.trust(str(project))
        first.session_new()
        for n in range(40):
            first.remember(f"Sibling claim {n}: service {n} uses port {4000 + n}",
                           scope="project")
        sibling = first.current_session().session_id  # type: ignore[union-attr]
    with Waymarks(home, cwd=str(project), ids=CountingIds(2)) as second:
        second.session_new()
        for n in range(40):
            second.remember(f"Own claim {n}: job {n} runs at {n % 24}:00")
        mine = second.current_session().session_id  # type: ignore[union-attr]
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.recall.paused_worker", str(home), str(barrier)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]),
             "WAYMARKS_SEMANTIC": "on"})
    try:
        for _ in range(1200):  # one batch committed, the next chosen: paused embedding it
            if (barrier / "paused").exists() or worker.poll() is not None:
                break
            time.sleep(0.05)
        assert (barrier / "paused").exists(), worker.communicate(timeout=5)
        # under it: an exclusion re-folds (the sibling's project claims leave the index,
        # every later record is renumbered), a rebuild renumbers again, a claim is added
        assert cli(home, project, mine, "memory", "exclude", sibling, "noisy")
        assert cli(home, project, mine, "rebuild-index")["mutations"] == 80
        assert cli(home, project, mine, "memory", "add", "--",
                   "The release train leaves on Thursdays")["outcome"] == "committed"
    finally:
        (barrier / "go").touch()
        _out, err = worker.communicate(timeout=120)
    assert worker.returncode == 0, err
    db = sqlite3.connect(home / "waymarks.db")
    try:
        rows = db.execute("SELECT r.rowid, r.item_id, r.text, v.model, v.vector FROM"
                          " recall_records r LEFT JOIN recall_vectors v ON"
                          " v.item_id = r.item_id ORDER BY r.rowid").fetchall()
        assert len(rows) == 41  # the own claims and the new one: the sibling's left out
        wrong = [(item, text) for _r, item, text, model, blob in rows
                 if model != MODEL or bytes(blob) != vector(text)]
        assert wrong == []  # each record has the vector of its own text
        store = VectorStore(db)
        assert store.missing(MODEL, 100) == []
        assert store.done(MODEL) == rows[-1][0]  # the watermark vouches for all, no more
    finally:
        db.close()
