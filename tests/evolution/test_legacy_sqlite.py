"""Importing pi-memory-evolution's SQLite database, schemas 2-7 (item 81), through the real
CLI: the database (and its directory) is never modified, not even its timestamps; dates,
search terms, tombstones, conflicts and pins come along; forgotten content never comes
back; an unsupported schema or a malformed row stops the import with nothing written and
no content quoted. Fixtures follow the format's public shape (metadata + memories rows
with a JSON ``data`` object), built here."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.test_legacy_import import _cli, _without_age
from waymarks.core.evolution.model import SCHEMA_VERSION, ClaimRecord, Evidence, claim_id
from waymarks.service.evolution import Evolution

T1, T2 = "2026-04-01T10:00:00.000Z", "2026-06-01T10:00:00.000Z"


def _memory(mid: str, kind: str, content: str, scope: str, status: str = "provisional",
            **extra: Any) -> dict[str, Any]:
    return {"id": mid, "kind": kind, "content": content, "scope": scope,
            "sourceEntryId": f"e-{mid}", "createdAt": T1, "updatedAt": T2, "revision": 1,
            "layer": "durable", "status": status, **extra}


ROWS = [
    _memory("m1", "fact", "The staging port is 8080", "/w/a",
            searchTerms=["staging port"], evidence={"basis": "user_statement"},
            feedback={"utility": {"verdict": "useful", "at": 1}}),
    _memory("m2", "preference", "Prefers tabs over spaces", "", "forgotten"),
    _memory("m3", "decision", "Releases are cut on Fridays", "/w/b", "confirmed",
            layer="pinned"),
    _memory("m4", "fact", "The cache is Redis 7", "/w/a", "conflicted"),
]


def _database(directory: Path, schema: str, rows: list[dict[str, Any]],
              raw: list[tuple[str, str, str, str]] = ()) -> Path:  # type: ignore[assignment]
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "memory.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE memories (id TEXT PRIMARY KEY, scope TEXT NOT NULL, hash TEXT NOT NULL,"
        " data TEXT NOT NULL);"
        "CREATE TABLE sources (id TEXT PRIMARY KEY, data TEXT NOT NULL, state TEXT NOT NULL"
        " DEFAULT 'pending', attempt INTEGER NOT NULL DEFAULT 0, lease INTEGER NOT NULL"
        " DEFAULT 0);"
        "CREATE TABLE events (id TEXT PRIMARY KEY, scope TEXT NOT NULL, data TEXT NOT NULL);"
        "CREATE TABLE blocked (scope TEXT NOT NULL, hash TEXT NOT NULL,"
        " PRIMARY KEY(scope,hash));")
    db.execute("INSERT INTO metadata VALUES ('schema', ?)", (schema,))
    for row in rows:
        db.execute("INSERT INTO memories VALUES (?, ?, ?, ?)",
                   (row["id"], row["scope"], f"h-{row['id']}", json.dumps(row)))
    db.executemany("INSERT INTO memories VALUES (?, ?, ?, ?)", list(raw))
    db.commit()
    db.close()
    return path


def _state(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}


@pytest.mark.parametrize("schema", ["3", "6"])
@pytest.mark.slow
def test_a_legacy_database_is_imported_and_never_modified(tmp_path: Path, schema: str) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _database(legacy, schema, ROWS)
    before = _state(legacy)
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    assert done["outcome"] == "done" and done["claims"] == 4 and done["schema"] == schema
    assert _state(legacy) == before  # bytes, names and timestamps: only a copy was read
    claims = {c["content"]: c for c in _cli(home, cwd, "evolution", "list")["claims"]}
    port = claims["The staging port is 8080"]
    assert port["state"] == "provisional" and port["searchTerms"] == ["staging port"]
    assert port["evidence"]["at"] == T2 and port["evidence"]["basis"] == "user_statement"
    assert port["feedback"]["utility"]["verdict"] == "useful"
    tabs = claims["Prefers tabs over spaces"]
    assert tabs["state"] == "forgotten" and tabs["origin"] == "legacy"
    friday = claims["Releases are cut on Fridays"]
    assert friday["pinned"] is True and friday["feedback"]["accuracy"]["verdict"] == "accurate"
    assert claims["The cache is Redis 7"]["state"] == "conflicted"
    # forgotten content never comes back in its origin, from any source
    with Evolution(home) as evo, evo.ledger.locked():
        text = "Prefers tabs over spaces"
        evo._append([ClaimRecord(SCHEMA_VERSION, claim_id("legacy", "fact", text), "legacy",
                                 "fact", text, Evidence("user_statement", "model", "s9", T2))])
    assert not [c for c in _cli(home, cwd, "evolution", "list")["claims"]
                if c["content"] == "Prefers tabs over spaces" and c["state"] == "provisional"]
    assert _cli(home, cwd, "evolution", "import", str(legacy), expect=2)["code"] == "duplicate"
    listed = _cli(home, cwd, "evolution", "list")
    for path in home.glob("waymarks.db*"):
        path.unlink()
    assert _without_age(_cli(home, cwd, "evolution", "list")) == _without_age(listed)


@pytest.mark.slow
def test_an_unsupported_schema_or_a_bad_row_stops_with_nothing_written(
        tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    newer = tmp_path / "newer"
    _database(newer, "9", ROWS)
    refused = _cli(home, cwd, "evolution", "import", str(newer), expect=2)
    assert refused["code"] == "bad_input" and "schema" in refused["message"]
    broken = tmp_path / "broken"
    _database(broken, "6", ROWS[:1], [("m9", "/w/a", "h", '{"id": "m9", "content": "Secret'
                                       ' plan Z"')])
    refused = _cli(home, cwd, "evolution", "import", str(broken), expect=2)
    assert refused["code"] == "bad_input" and "memories row 2" in refused["message"]
    assert "Secret" not in json.dumps(refused) and "8080" not in json.dumps(refused)
    mismatched = tmp_path / "mismatched"
    _database(mismatched, "6", [], [("m1", "/w/a", "h", json.dumps(ROWS[2]))])
    assert _cli(home, cwd, "evolution", "import", str(mismatched), expect=2)["code"] == \
        "bad_input"
    assert not (home / "evolution" / "ledger.jsonl").exists()
    not_db = tmp_path / "not-a-db"
    not_db.mkdir()
    (not_db / "memory.sqlite").write_bytes(os.urandom(64))
    assert _cli(home, cwd, "evolution", "import", str(not_db), expect=2)["code"] == "bad_input"
