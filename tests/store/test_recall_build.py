"""The recall index is built by ``rebuild`` (in batches), and equals the one built lazily.

Before, a rebuild emptied the recall index and the first recall afterwards re-indexed every
memory (about 17 s at 100k memories). Now the rebuild writes it in the same transaction;
what it writes must be exactly what the lazy path (``catch_up``) writes, row for row.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.store import recall_index
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput

CLAIMS = [
    "The billing service listens on port 8443.",
    "Deploys of the gateway go to staging first.",
    "数据库端口是 5433。",
    "The config lives in /etc/waymarks/app.toml and conf/billing-2.toml.",
    "Alice prefers tabs over spaces.",
    "The search cache ttl is 10 minutes.",
]


def index_rows(db: sqlite3.Connection) -> list[tuple[object, ...]]:
    records = db.execute(
        "SELECT rowid, item_id, kind, status, origin, created_at, text, fields, body_count,"
        " evidence, source, checksum FROM recall_records ORDER BY rowid").fetchall()
    vocab = db.execute("SELECT term, doc, cnt FROM recall_vocab ORDER BY term").fetchall()
    counts = db.execute("SELECT term, docs FROM recall_df ORDER BY term").fetchall()
    return [*records, *vocab, *counts]


def run_cli(home: Path, cwd: Path, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json", *args],
        cwd=cwd, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_rebuild_index_builds_the_recall_index_the_lazy_path_would(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    run_cli(home, project, "session", "new")
    for claim in CLAIMS:
        run_cli(home, project, "memory", "add", "--", claim)
    run_cli(home, project, "pin", "--", "Run the tests before every commit.")
    assert run_cli(home, project, "rebuild-index")["mutations"] == len(CLAIMS) + 1

    db = sqlite3.connect(home / "waymarks.db")
    try:
        index = RecallIndex(db)
        assert not index.behind()  # nothing left for the first recall to index
        built = index_rows(db)
        assert len(db.execute("SELECT 1 FROM recall_records").fetchall()) == len(CLAIMS)
        # the lazy path from the same items: reset, then catch up as a recall would
        db.execute("BEGIN")
        recall_index.reset(db)
        assert index.behind()
        assert index.catch_up() == len(CLAIMS)
        db.execute("COMMIT")
        assert index_rows(db) == built
    finally:
        db.close()
    answer = run_cli(home, project, "recall", "what port does billing listen on?")
    assert "8443" in json.dumps(answer)


def fresh_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, 0)
    return db


def records(count: int) -> list[RecordInput]:
    return [RecordInput(id=f"m{i:04d}", text=f"{CLAIMS[i % len(CLAIMS)]} (note {i})",
                        origin=f"session:s{i % 3}", created_at=i) for i in range(count)]


def test_batched_add_writes_what_one_at_a_time_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # one record per call: each batch is one record, as the old row-by-row insert was
    one = fresh_db(tmp_path / "one.db")
    one.execute("BEGIN")
    for record in records(23):
        assert RecallIndex(one, items_backed=False).add([record]) == 1
    one.execute("COMMIT")
    # batches of 5 across the same records, with repeats inside and across batches
    monkeypatch.setattr(recall_index, "ADD_BATCH", 5)
    many = fresh_db(tmp_path / "many.db")
    many.execute("BEGIN")
    index = RecallIndex(many, items_backed=False)
    assert index.add(records(10)) == 10
    again = records(23)
    assert index.add([again[3], *again, again[20]]) == 13  # repeats keep their first row
    assert index.add(records(23)) == 0
    many.execute("COMMIT")
    assert index_rows(many) == index_rows(one)
    one.close()
    many.close()


def schema(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"
                          " ORDER BY type, name").fetchall()
    finally:
        db.close()


@pytest.mark.slow
def test_rebuild_leaves_the_schema_of_a_fresh_database(tmp_path: Path) -> None:
    """Rebuild drops indexes to load in bulk (items, mutations, entries): every one is back."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    run_cli(home, project, "session", "new")
    run_cli(home, project, "memory", "add", "--", CLAIMS[0])
    fresh = tmp_path / "fresh.db"
    fresh_db(fresh).close()
    assert run_cli(home, project, "rebuild-index")["mutations"] == 1
    rebuilt = schema(home / "waymarks.db")
    assert ("index", "entries_by_id", "entries",
            "CREATE UNIQUE INDEX entries_by_id ON entries (session_id, id)") in rebuilt
    assert rebuilt == schema(fresh)
