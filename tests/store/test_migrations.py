"""Schema migrations keep the rows of older schemas, from the first schema on.

Every starting point is taken from the migration registry (``MIGRATIONS``), so a migration
added later is covered without touching this file: a database exactly as each earlier
release left it (the real ``migrate`` with the registry cut at that release's newest step),
holding rows, is upgraded and compared with a blank database migrated to the latest
schema; and a real home whose database is replaced by such an older one must answer the
same listings after the upgrade and after ``rebuild-index``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from waymarks.cli.main import main
from waymarks.store import migrations
from waymarks.store.integrity import SOURCE_FIELDS, ProjectionDamaged, verify_source
from waymarks.store.migrations import LATEST_VERSION, MIGRATIONS, migrate

VERSIONS = [step.version for step in MIGRATIONS]

#: the tables of the first schema and their columns, as migration 1 creates them
FIRST_SCHEMA = {
    "sources": "session_id, path, cwd, byte_offset, lines, entries, updated_at",
    "mutations": "seq, session_id, entry_id, entry_index, timestamp_ms, mutation_id, kind,"
                 " operation, target_id, payload, effect, note",
    "items": "rowid, id, kind, scope, partition, project_path, key, classification, text, norm,"
             " polarity_base, polarity_sign, status, reason, superseded_by, supersedes,"
             " conflicts_with, session_id, entry_id, branch_leaf_id, created_at, seq, record",
    "anomalies": "session_id, line, entry_id, kind, detail",
    "meta": "name, value",
}


@contextlib.contextmanager
def release_at(version: int) -> Iterator[None]:
    """The registry as the release whose newest migration was ``version`` shipped it."""
    saved = (migrations.MIGRATIONS, migrations.LATEST_VERSION)
    migrations.MIGRATIONS = tuple(s for s in saved[0] if s.version <= version)
    migrations.LATEST_VERSION = version
    try:
        yield
    finally:
        migrations.MIGRATIONS, migrations.LATEST_VERSION = saved


def database_at(path: Path, version: int) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    with release_at(version):
        assert migrate(db, 1) == list(range(1, version + 1))
    return db


def insert(db: sqlite3.Connection, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """Rows into the first schema's tables (later columns take their defaults)."""
    for table, columns in FIRST_SCHEMA.items():
        marks = ", ".join("?" * len(columns.split(",")))
        db.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows.get(table, []))
    # the schemas before 16 have the first schema's full-text index of items (dropped by 16)
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_fts'").fetchone():
        db.execute("INSERT INTO items_fts (items_fts) VALUES ('rebuild')")


def first_schema_rows(db: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    return {table: db.execute(f"SELECT {columns} FROM {table} ORDER BY 1, 2").fetchall()
            for table, columns in FIRST_SCHEMA.items()}


def schema(db: sqlite3.Connection) -> dict[str, Any]:
    """Tables, columns, indexes and triggers, as SQLite reports them."""
    objects = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"
                         " ORDER BY type, name").fetchall()
    tables = [name for kind, name, _, _ in objects if kind == "table"]
    indexes = [name for kind, name, _, _ in objects if kind == "index"]
    return {
        "objects": objects,
        "columns": {t: db.execute(f"PRAGMA table_xinfo('{t}')").fetchall() for t in tables},
        # by name, without the position: that is the order they were created in (a bulk
        # load drops and creates some again), not a property of the schema
        "indexes": {t: sorted(row[1:] for row in db.execute(f"PRAGMA index_list('{t}')"))
                    for t in tables},
        "index_columns": {i: db.execute(f"PRAGMA index_xinfo('{i}')").fetchall()
                          for i in indexes},
        "versions": db.execute("SELECT version, name FROM schema_migrations"
                               " ORDER BY version").fetchall(),
    }


def blank_latest(path: Path) -> dict[str, Any]:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(db, 1) == VERSIONS
        return schema(db)
    finally:
        db.close()


SAMPLE_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "sources": [("s1", "/x/s1.jsonl", "/work/p", 1200, 4, 3, 5),
                ("s2", "/x/s2.jsonl", "/work/q", 300, 2, 1, 6)],
    "mutations": [
        (1, "s1", "e1", 0, 1, "m1", "pin", "add", "i1", b'{"text":"Use tabs"}', "applied",
         None),
        (2, "s1", "e2", 1, 2, "m2", "memory", "add", "i2", b"{}", "ignored", "conflict")],
    "items": [(1, "i1", "pin", "session", "s1", None, None, None, "Use tabs", "use tabs",
               None, 0, "active", None, None, None, None, "s1", "e1", None, 1, 1, b"{}")],
    "anomalies": [("s1", 3, None, "malformed", "not JSON")],
    "meta": [("last_order", "[1]")],
}


def test_blank_database_migrates_through_every_step(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "blank.db", isolation_level=None)
    assert migrate(db, 7) == VERSIONS == list(range(1, LATEST_VERSION + 1))
    assert db.execute("SELECT version, name, applied_at FROM schema_migrations"
                      " ORDER BY version").fetchall() == [
        (step.version, step.name, 7) for step in MIGRATIONS]
    assert migrate(db, 8) == []  # idempotent
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_a_blank_database_gets_what_the_steps_leave_in_one_transaction(
        tmp_path: Path) -> None:
    """``migrate`` creates a blank database's latest schema at once (from the steps run
    in memory): the same objects, columns, indexes and rows as the steps run one by one."""
    stepwise = sqlite3.connect(tmp_path / "steps.db", isolation_level=None)
    migrations.ensure_history(stepwise)
    assert migrations._apply_steps(stepwise, 0, 7) == VERSIONS
    at_once = sqlite3.connect(tmp_path / "once.db", isolation_level=None)
    statements: list[str] = []
    at_once.set_trace_callback(statements.append)
    assert migrate(at_once, 7) == VERSIONS
    at_once.set_trace_callback(None)
    assert statements.count("BEGIN IMMEDIATE") == 1 and statements.count("COMMIT") == 1
    assert schema(at_once) == schema(stepwise)
    for table in [name for kind, name, *_ in schema(stepwise)["objects"]
                  if kind == "table" and not name.startswith("recall_terms_")]:
        assert (at_once.execute(f"SELECT * FROM {table}").fetchall()
                == stepwise.execute(f"SELECT * FROM {table}").fetchall()), table
    assert at_once.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    # a database someone else created meanwhile is left as it is
    assert migrations._create_latest(at_once, 8) is False
    assert migrate(at_once, 8) == []


@pytest.mark.parametrize("start", VERSIONS[:-1])
def test_an_older_schema_with_rows_upgrades_to_the_blank_schema(
        tmp_path: Path, start: int) -> None:
    db = database_at(tmp_path / f"v{start}.db", start)
    insert(db, SAMPLE_ROWS)
    assert migrate(db, 2) == [v for v in VERSIONS if v > start]
    assert schema(db) == blank_latest(tmp_path / "blank.db")
    # every row of the first schema is still there (a migration that means to drop
    # derived rows must say so here)
    rows = first_schema_rows(db)
    # migration 7 adds one derived row: the generation of the (rebuildable) recall index
    rows["meta"] = [row for row in rows["meta"] if row[0] != "recall_generation"]
    assert rows == {table: sorted(rows, key=lambda r: (r[0], r[1]))
                    for table, rows in SAMPLE_ROWS.items()}
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert not db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'items_fts%'"
                          ).fetchall(), "the unread full-text index and its shadow tables"
    assert migrate(db, 3) == []


def test_upgrading_from_v5_keeps_sources_and_mutations(tmp_path: Path) -> None:
    db = database_at(tmp_path / "old.db", 5)  # the release before migration 6
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


def test_a_v16_database_gains_source_checksums_that_verify(tmp_path: Path) -> None:
    db = database_at(tmp_path / "v16.db", 16)
    insert(db, SAMPLE_ROWS)
    assert migrate(db, 0) == list(range(17, LATEST_VERSION + 1))
    rows = db.execute(f"SELECT {SOURCE_FIELDS}, checksum FROM sources").fetchall()
    assert len(rows) == 2
    for row in rows:
        verify_source(row)
    db.execute("UPDATE sources SET byte_offset = 99 WHERE session_id = 's1'")
    with pytest.raises(ProjectionDamaged):
        verify_source(db.execute(f"SELECT {SOURCE_FIELDS}, checksum FROM sources"
                                 " WHERE session_id = 's1'").fetchone())


def test_a_v17_database_looks_up_conflicts_over_every_status(tmp_path: Path) -> None:
    db = database_at(tmp_path / "v17.db", 17)
    names = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'"
    assert "items_active_key" in {n for (n,) in db.execute(names)}
    assert migrate(db, 0) == list(range(18, LATEST_VERSION + 1))
    indexes = {n for (n,) in db.execute(names)}
    assert {"items_by_norm", "items_by_key", "items_by_polarity"} <= indexes
    assert not {n for n in indexes if n.startswith("items_active")}
    plan = " ".join(str(r[-1]) for r in db.execute(
        "EXPLAIN QUERY PLAN SELECT rowid FROM items WHERE kind = 'memory'"
        " AND partition = 'p' AND key = 'k' AND norm <> 'n'"))
    assert "items_by_key" in plan


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
    for table in ("items", "mutations", "recall_records", "sources"):  # sources: 17
        db.execute(f"ALTER TABLE {table} DROP COLUMN checksum")
    db.execute("DROP TABLE item_groups")
    db.execute("DROP TABLE entries")  # migration 8
    for table in ("evo_claims", "evo_sources", "evo_events", "evo_suppressed", "evo_meta",
                  "evo_changes", "evo_receipts"):
        db.execute(f"DROP TABLE {table}")  # migrations 9 and 10
    db.execute("DROP TABLE recall_vectors")  # migration 12
    db.execute("DROP INDEX mutations_by_target")  # migration 13
    db.execute("DROP TABLE claim_subjects")  # migration 15
    db.execute("DROP TABLE claim_terms")
    db.execute("ALTER TABLE sources DROP COLUMN ctime_ns")  # migration 20
    db.execute("DROP INDEX items_visible")  # migration 23
    db.execute("DROP INDEX items_given_key")  # migration 24
    db.execute("CREATE VIRTUAL TABLE items_fts USING fts5 (text, key, content = 'items',"
               " content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 2')")
    db.execute("INSERT INTO items_fts (items_fts) VALUES ('rebuild')")  # dropped by 16
    for name in ("items_by_norm", "items_by_key", "items_by_polarity"):  # migration 18
        db.execute(f"DROP INDEX {name}")
    db.execute("CREATE INDEX items_active_norm ON items (kind, partition, norm)"
               " WHERE status = 'active'")
    db.execute("DELETE FROM schema_migrations WHERE version >= 7")
    db.close()
    with Waymarks(home, cwd=str(project)) as again:
        assert [v.to_json() for v in again.items("pin") + again.items("memory")] == before
        assert again.recovered is None and not list(home.glob("waymarks.db.damaged-*"))
        assert verify_all(again.projection.db) == []
        assert again.recall("which port does service 3 use").selected
        assert again.health()["ok"]


def test_a_v23_database_finds_the_keys_given_before_it_was_upgraded(
        home: Path, project: Path) -> None:
    """Migration 24 indexes the items whose key was given, which a plan probes before it
    looks the request's words up as keys: the claims a release before it indexed are in
    the index, and a plan naming one's key still finds it."""
    from waymarks.service.app import Waymarks
    from waymarks.service.planning import plan_request

    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.remember("We use Buildkite.", scope="project", key="ci-provider")
        app.remember("The deploy job runs at midnight.", scope="project")
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    db.execute("DROP INDEX items_given_key")
    db.execute("DELETE FROM schema_migrations WHERE version >= 24")
    db.close()
    with Waymarks(home, cwd=str(project)) as app:
        plan = plan_request(app, "which ci-provider do we have?")
        assert "Buildkite" in str(plan.messages)
        assert "Buildkite" not in str(plan_request(app, "when does the deploy job run?")
                                      .messages)
        db = app.projection.db
        assert db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] \
            == LATEST_VERSION
        assert db.execute("SELECT count(*) FROM items INDEXED BY items_given_key WHERE"
                          " instr(record, X'226b6579223a') > 0").fetchone()[0] == 1


# -- a real home whose database an older release wrote ---------------------------------


def cli(home: Path, project: Path, *args: str) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--home", str(home), "--cwd", str(project), "--json", *args])
    assert code == 0, out.getvalue()
    document = json.loads(out.getvalue())
    # rows inserted raw into a schema from 7 on carry no checksums, so the first command
    # repairs that database (and, with --json, says so): the answers are what is compared
    document.pop("recovered", None)
    return document


def listings(home: Path, project: Path) -> dict[str, Any]:
    sources = cli(home, project, "memory", "sources")
    for source in sources["sources"]:
        source.pop("lastIndexedAt")  # when this process looked: not state
    sources["sources"].sort(key=lambda s: s["sessionId"])
    return {"pins": cli(home, project, "pins"), "memory": cli(home, project, "memory"),
            "sources": sources,
            "recall": cli(home, project, "recall", "what port does the database use?")}


@pytest.mark.slow
def test_a_home_upgraded_from_every_older_schema_answers_the_same(
        home: Path, project: Path) -> None:
    cli(home, project, "trust", str(project))
    cli(home, project, "session", "new")
    cli(home, project, "pin", "--", "Run the tests before every commit.")
    cli(home, project, "pin", "--scope", "project", "--", "Use ruff for linting.")
    claim = cli(home, project, "memory", "add", "--scope", "project", "--key", "db-port", "--",
                "The database port is 5433.")
    cli(home, project, "memory", "supersede", claim["id"], "--", "The database port is 5434.")
    cli(home, project, "memory", "add", "--", "Deploys go to staging first.")
    cli(home, project, "session", "new")
    cli(home, project, "pin", "--", "A pin of the second session.")
    expected = listings(home, project)
    assert sorted(i["text"] for i in expected["pins"]["items"]) == [
        "A pin of the second session.", "Use ruff for linting."]  # the other session's: not here
    assert [(i["text"], i["status"]) for i in expected["memory"]["items"]] == [
        ("The database port is 5433.", "superseded"), ("The database port is 5434.", "active")]
    assert expected["recall"]["rows"][0]["excerpt"] == "The database port is 5434."
    path = home / "waymarks.db"
    db = sqlite3.connect(path)
    # what the first release indexed: its tables' rows (the recall index came later)
    rows = first_schema_rows(db)
    rows["meta"] = [row for row in rows["meta"] if not row[0].startswith("recall_")]
    db.close()
    latest = blank_latest(home.parent / "blank.db")
    for start in VERSIONS[:-1]:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        old = database_at(path, start)
        insert(old, rows)
        if start >= 6:  # what that release wrote in the column migration 6 added
            old.execute("UPDATE sources SET project = cwd")
        old.close()
        assert listings(home, project) == expected, f"upgraded from schema {start}"
        upgraded = sqlite3.connect(path)
        assert schema(upgraded) == latest, f"upgraded from schema {start}"
        upgraded.close()
        rebuilt = cli(home, project, "rebuild-index")
        assert rebuilt["sources"] == 2 and rebuilt["unreadable"] == []
        assert listings(home, project) == expected, f"rebuilt after schema {start}"
