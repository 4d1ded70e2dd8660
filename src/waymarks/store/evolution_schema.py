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
