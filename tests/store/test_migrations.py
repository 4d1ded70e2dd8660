"""Schema migrations keep the rows of older schemas."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from waymarks.store.migrations import LATEST_VERSION, MIGRATIONS, migrate


def test_upgrading_from_v5_keeps_sources_and_mutations(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT"
               " NULL, applied_at INTEGER NOT NULL) STRICT")
    for step in MIGRATIONS[:5]:  # a database written by the release before migration 6
        step.apply(db)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", (step.version, step.name))
    db.execute("INSERT INTO sources (session_id, path, cwd, byte_offset, lines, entries,"
               " updated_at) VALUES ('s1', '/x/s1.jsonl', '/work/p', 10, 1, 1, 5)")
    db.execute("INSERT INTO mutations (seq, session_id, entry_id, entry_index, timestamp_ms,"
               " mutation_id, kind, operation, target_id, payload, effect) VALUES"
               " (1, 's1', 'e1', 0, 1, 'm1', 'memory', 'add', 'i1', x'7b7d', 'applied')")
    assert migrate(db, 0) == list(range(6, LATEST_VERSION + 1))
    assert db.execute("SELECT session_id, project, status FROM sources").fetchall() == [
        ("s1", "/work/p", "available")]
    assert db.execute("SELECT mutation_id, parent_id FROM mutations").fetchall() == [
        ("m1", None)]
    assert migrate(db, 0) == []  # idempotent


def test_a_v6_database_gains_checksums_and_is_not_taken_for_damage(tmp_path: Path) -> None:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import Committed
    from waymarks.store.integrity import verify_all

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        for n in range(5):
            assert isinstance(app.pin(f"Pin {n}", scope=("session", "project")[n % 2]),
                              Committed)
            assert isinstance(app.remember(f"Service {n} uses port {n}"), Committed)
        app.recall("port")
        before = [v.to_json() for v in app.items("pin") + app.items("memory")]
    # the same database as the release before migration 7 left it
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    for table in ("items", "mutations", "recall_records"):
        db.execute(f"ALTER TABLE {table} DROP COLUMN checksum")
    db.execute("DROP TABLE item_groups")
    db.execute("DELETE FROM schema_migrations WHERE version = 7")
    db.close()
    with Waymarks(home, cwd=str(project)) as again:
        assert [v.to_json() for v in again.items("pin") + again.items("memory")] == before
        assert again.recovered is None and not list(home.glob("waymarks.db.damaged-*"))
        assert verify_all(again.projection.db) == []
        assert again.recall("which port does service 3 use").selected
        assert again.health()["ok"]
