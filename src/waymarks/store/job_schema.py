"""The schema of ``evolution.db`` (the job queue's operational state): its steps, in order.

Split from :mod:`waymarks.store.jobs` so the queue's operations and its schema history are
each one idea. What must stay true: version n is ``MIGRATIONS[n-1]``; new steps are added at
the end and old ones are never edited (a file written by any earlier version migrates
forward step by step); a file whose version is newer than :data:`SCHEMA_VERSION` is refused
before any DDL (:class:`SchemaTooNewError`, raised by the store).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Final

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SchemaTooNewError"]


class SchemaTooNewError(Exception):
    """``evolution.db`` was written by a newer Waymarks; upgrade rather than lose its state."""


def _v1(db: sqlite3.Connection) -> None:
    db.execute("""CREATE TABLE jobs (
        source_id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        classification TEXT NOT NULL,
        captured_at TEXT NOT NULL,
        state TEXT NOT NULL,
        attempt INTEGER NOT NULL DEFAULT 0,
        calls INTEGER NOT NULL DEFAULT 0,
        models TEXT NOT NULL DEFAULT '[]',
        spent_ms INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        output_failures INTEGER NOT NULL DEFAULT 0,
        retry_at INTEGER NOT NULL DEFAULT 0,
        checked_at INTEGER NOT NULL DEFAULT 0,
        owner TEXT,
        lease_until INTEGER,
        last_error TEXT,
        wait_reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    ) STRICT""")
    db.execute("CREATE INDEX jobs_due ON jobs (state, retry_at, checked_at)")
    db.execute("""CREATE TABLE model_calls (
        id INTEGER PRIMARY KEY,
        source_id TEXT NOT NULL,
        owner TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        reserved_at INTEGER NOT NULL,
        finished_at INTEGER,
        outcome TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        estimated_usd REAL,
        duration_ms INTEGER NOT NULL DEFAULT 0
    ) STRICT""")
    db.execute("CREATE INDEX model_calls_time ON model_calls (reserved_at)")
    db.execute("""CREATE TABLE route_health (
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        cooldown_until INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        transport_failures INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (provider, model)
    ) STRICT""")


def _v2(db: sqlite3.Connection) -> None:
    # the worker's forced attempts (``evolve SOURCE``) are recorded, so status can tell a
    # forced call from a scheduled one
    db.execute("ALTER TABLE model_calls ADD COLUMN forced INTEGER NOT NULL DEFAULT 0")


def _v3(db: sqlite3.Connection) -> None:
    # cost accounting (item 66): what the provider reported beside the estimate, and
    # reasoning usage; one notice per fallback route pair per hour
    db.execute("ALTER TABLE model_calls ADD COLUMN reported_usd REAL")
    db.execute("ALTER TABLE model_calls ADD COLUMN reasoning_tokens INTEGER NOT NULL "
               "DEFAULT 0")
    db.execute("""CREATE TABLE recovery_notices (
        id INTEGER PRIMARY KEY,
        from_provider TEXT NOT NULL,
        from_model TEXT NOT NULL,
        to_provider TEXT NOT NULL,
        to_model TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at INTEGER NOT NULL
    ) STRICT""")
    db.execute("CREATE INDEX recovery_notices_pair ON recovery_notices (from_provider, "
               "from_model, to_provider, to_model, created_at)")


def _v4(db: sqlite3.Connection) -> None:
    # a job's `models` list names routes ([provider, model] as JSON text), no longer bare
    # model names (the same model served by another provider is another route), and the
    # wait reasons `source_models` and `origin_config_invalid` exist: a release before
    # them read such rows as damaged and skipped their sources, and counted a model
    # twice, so it now refuses the file as newer (upgrade), as for any step. A name the
    # source's own calls give a provider becomes that route's key; one they do not stays,
    # matched by its name (`job_rows.route_entry`)
    import json

    for source_id, models in db.execute("SELECT source_id, models FROM jobs").fetchall():
        try:
            names = json.loads(models)
        except ValueError:
            continue  # a damaged row stays as it is: the store names it
        if not isinstance(names, list):
            continue
        keyed = []
        for name in names:
            if not isinstance(name, str) or name.startswith("["):
                keyed.append(name)
                continue
            found = db.execute("SELECT provider FROM model_calls WHERE source_id = ? AND "
                               "model = ? ORDER BY id LIMIT 1", (source_id, name)).fetchone()
            keyed.append(json.dumps([found[0], name]) if found else name)
        if keyed != names:
            db.execute("UPDATE jobs SET models = ? WHERE source_id = ?",
                       (json.dumps(keyed), source_id))


def _v5(db: sqlite3.Connection) -> None:
    # a call has the outcome `interrupted` (its lease expired while it was reserved: its
    # process died mid-call) and a reserved call carries its worst-case estimated cost
    # (the daily ceiling counts calls in flight). A release before read such a row as
    # damaged, so it refuses the file as newer (upgrade). Calls an earlier release left
    # reserved under a lease that is gone end `interrupted` here (their cost unknown: the
    # estimate was never stored); one under a live lease is its worker's to finish
    db.execute(
        "UPDATE model_calls SET outcome = 'interrupted', finished_at = reserved_at WHERE "
        "outcome = 'reserved' AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.source_id = "
        "model_calls.source_id AND jobs.state = 'leased' AND jobs.owner = "
        "model_calls.owner AND jobs.attempt = model_calls.attempt)")


#: schema steps, version n at index n-1; add new ones at the end, never edit old ones
MIGRATIONS: Final[tuple[Callable[[sqlite3.Connection], None], ...]] = (
    _v1, _v2, _v3, _v4, _v5)
SCHEMA_VERSION: Final = len(MIGRATIONS)
