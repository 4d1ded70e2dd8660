"""Schema of the evolution projection (migration 9; see :mod:`waymarks.store.evolution`).

Its own module so the migration step and the projection both import it without a cycle.
"""

from __future__ import annotations

import sqlite3


def create_tables(db: sqlite3.Connection) -> None:
    """Schema of the evolution projection (migration 9)."""
    for statement in (
        "CREATE TABLE evo_claims (id TEXT PRIMARY KEY, origin TEXT NOT NULL,"
        " kind TEXT NOT NULL, content TEXT NOT NULL, state TEXT NOT NULL,"
        " basis TEXT NOT NULL, method TEXT NOT NULL, source_id TEXT NOT NULL,"
        " updated_at TEXT NOT NULL, seq INTEGER NOT NULL, replaces TEXT,"
        " conflicts_with TEXT, superseded_by TEXT, search_terms TEXT NOT NULL) STRICT",
        "CREATE INDEX evo_claims_by_origin ON evo_claims (origin, state, updated_at)",
        "CREATE TABLE evo_sources (source_id TEXT PRIMARY KEY, origin TEXT NOT NULL,"
        " kind TEXT NOT NULL, basis TEXT NOT NULL, text TEXT NOT NULL,"
        " classification TEXT NOT NULL, captured_at TEXT NOT NULL, session TEXT NOT NULL,"
        " seq INTEGER NOT NULL, settled TEXT, settled_at TEXT) STRICT",
        "CREATE INDEX evo_sources_unsettled ON evo_sources (seq) WHERE settled IS NULL",
        "CREATE TABLE evo_events (seq INTEGER PRIMARY KEY, entry_id TEXT NOT NULL,"
        " op TEXT NOT NULL, subject TEXT NOT NULL, applied INTEGER NOT NULL,"
        " reason TEXT NOT NULL) STRICT",
        "CREATE TABLE evo_suppressed (key TEXT PRIMARY KEY) STRICT",
        "CREATE TABLE evo_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT",
    ):
        db.execute(statement)


#: what each evolution table must have for this version to read it (checked on open: a
#: table dropped or changed is damage, set aside and rebuilt, never a traceback later)
EXPECTED_COLUMNS = {
    "evo_claims": "id, origin, kind, content, state, basis, method, source_id, updated_at,"
                  " seq, replaces, conflicts_with, superseded_by, search_terms,"
                  " reinforced_at, utility, accuracy, pinned",
    "evo_sources": "source_id, origin, kind, basis, text, classification, captured_at,"
                   " session, seq, settled, settled_at",
    "evo_events": "seq, entry_id, op, subject, applied, reason, actor, at",
    "evo_suppressed": "key",
    "evo_meta": "name, value",
    "evo_changes": "seq, claim_id, before, after",
    "evo_receipts": "source_id, claim_id, verdict, at, seq",
    "evo_analysis": "claim_id, key, body, aliases, quoted, origin, body_count",
    "evo_postings": "feature, claim_id, strong",
}


def schema_problem(db: sqlite3.Connection, expected: dict[str, str]) -> str | None:
    """The first table of ``expected`` that is missing or lacks a column, or ``None``."""
    for table, columns in expected.items():
        try:
            db.execute(f"SELECT {columns} FROM {table} LIMIT 0")
        except sqlite3.OperationalError:
            return f"table {table} does not match the schema"
    return None


#: every table the evolution projection derives from the ledger (a reset empties them all)
DERIVED_TABLES = ("evo_claims", "evo_sources", "evo_events", "evo_suppressed", "evo_changes",
                  "evo_receipts", "evo_meta")


def add_events_tables(db: sqlite3.Connection) -> None:
    """Migration 10: claims' confirmation stamp and feedback slots, each event's actor and
    time, the claims each event changed (before/after snapshots), feedback receipts. Empties
    the projection so the next sync refolds the ledger into the new shape."""
    for statement in (
        "ALTER TABLE evo_claims ADD COLUMN reinforced_at TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE evo_claims ADD COLUMN utility TEXT",
        "ALTER TABLE evo_claims ADD COLUMN accuracy TEXT",
        "CREATE INDEX evo_claims_by_content ON evo_claims (origin, content)",
        "ALTER TABLE evo_events ADD COLUMN actor TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE evo_events ADD COLUMN at TEXT NOT NULL DEFAULT ''",
        "CREATE TABLE evo_changes (seq INTEGER NOT NULL, claim_id TEXT NOT NULL,"
        " before TEXT, after TEXT NOT NULL, PRIMARY KEY (seq, claim_id)) STRICT",
        "CREATE INDEX evo_changes_by_claim ON evo_changes (claim_id, seq)",
        "CREATE TABLE evo_receipts (source_id TEXT NOT NULL, claim_id TEXT NOT NULL,"
        " verdict TEXT NOT NULL, at TEXT NOT NULL, seq INTEGER NOT NULL,"
        " PRIMARY KEY (source_id, claim_id)) STRICT",
    ):
        db.execute(statement)
    for table in DERIVED_TABLES:
        db.execute(f"DELETE FROM {table}")


#: derived analysis of learned claims (migration 11): a cache, emptied with the projection
ANALYSIS_TABLE = "evo_analysis"
#: the caches derived from the analyses (migrations 11 and 22): a reset empties them
CACHE_TABLES = (ANALYSIS_TABLE, "evo_postings")


def add_analysis_table(db: sqlite3.Connection) -> None:
    """Migration 11: the pin flag of learned claims (item 32), and each learned claim's
    analysis as ranking sees it (features by field), so a fresh process does not analyse
    every claim again. Never canonical: keyed by a
    digest of what the analysis was computed from (content, search terms, origin, the
    analyser's version); a row with another key is recomputed, and ``reset`` empties it."""
    # learned claims a person pinned (item 32); no pin record existed before: 0 is exact
    db.execute("ALTER TABLE evo_claims ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    db.execute("DROP TABLE IF EXISTS evo_analysis")  # a cache: recreated, never migrated
    db.execute("CREATE TABLE evo_analysis (claim_id TEXT PRIMARY KEY, key TEXT NOT NULL,"
               " body TEXT NOT NULL, aliases TEXT NOT NULL, quoted TEXT NOT NULL,"
               " origin TEXT NOT NULL, body_count INTEGER NOT NULL) STRICT")
