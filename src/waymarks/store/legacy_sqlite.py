"""Reading pi-memory-evolution's ``memory.sqlite`` without ever modifying it (item 81).

The original is never opened by SQLite: its bytes (and a ``-wal`` file beside it, so
committed writes not yet checkpointed are seen) are copied into a private temporary
directory and the copy is read. Opening the original, even read-only, could create or
touch ``-shm``/``-wal`` files or checkpoint them; a copy cannot. The copy is deleted when
the read ends.

Besides the ``memories`` rows it reads what the import needs to keep the old store's
meaning: the ``legacy_import`` marker and whether a migration event exists (whether the
JSONL ledgers beside it were consumed: item 80), the ``sources`` job state and the
``events`` history (item 81). Tables an old schema lacks read as empty.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


class LegacySqliteError(Exception):
    """The database cannot be read as a pi-memory-evolution store (no content quoted)."""


@dataclass(frozen=True, slots=True)
class LegacySnapshot:
    schema: str
    #: (id, scope, hash, data) of every ``memories`` row
    rows: list[tuple[str, str, str, str]]
    #: the ``legacy_import`` metadata value (the JSONL import's marker), if any
    import_marker: str | None = None
    #: whether ``events`` holds a migration event (a JSONL import that wrote records)
    migration_event: bool = False
    #: (id, data, state, failures, last_error) of every ``sources`` row (job state)
    sources: list[tuple[str, str, str, int, str]] = field(default_factory=list)
    #: (id, data) of every ``events`` row (history), in ID order
    events: list[tuple[str, str]] = field(default_factory=list)


def read_legacy_sqlite(path: Path) -> LegacySnapshot:
    """The schema marker and every ``memories`` row of the database at ``path``."""
    with tempfile.TemporaryDirectory(prefix="waymarks-legacy-") as tmp:
        copy = Path(tmp) / "memory.sqlite"
        try:
            shutil.copyfile(path, copy)
            wal = path.with_name(path.name + "-wal")
            if wal.is_file():
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        except OSError as exc:
            raise LegacySqliteError(f"cannot be read ({type(exc).__name__})") from exc
        db = sqlite3.connect(copy, isolation_level=None)
        try:
            return _read(db)
        except sqlite3.DatabaseError as exc:
            raise LegacySqliteError(f"is not a readable SQLite database "
                                    f"({type(exc).__name__})") from exc
        finally:
            db.close()


def _read(db: sqlite3.Connection) -> LegacySnapshot:
    tables = {str(n) for (n,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"metadata", "memories"} <= tables:
        raise LegacySqliteError("has no metadata and memories tables (not a "
                                "pi-memory-evolution database)")
    marker = db.execute("SELECT value FROM metadata WHERE key = 'schema'").fetchone()
    schema = "" if marker is None else str(marker[0])
    rows = [(str(i), str(s), str(h), str(d)) for i, s, h, d in db.execute(
        "SELECT id, scope, hash, data FROM memories ORDER BY id")]
    found = db.execute("SELECT value FROM metadata WHERE key = 'legacy_import'").fetchone()
    marker = None if found is None else str(found[0])
    events: list[tuple[str, str]] = []
    migration = False
    if "events" in tables:
        events = [(str(i), str(d)) for i, d in db.execute(
            "SELECT id, data FROM events ORDER BY id")]
        migration = any(_actor(data) == "migration" for _i, data in events)
    sources: list[tuple[str, str, str, int, str]] = []
    if "sources" in tables:  # schemas before 3 have no failure columns: zero, unknown
        columns = {str(r[1]) for r in db.execute("PRAGMA table_info(sources)")}
        failures = "failures" if "failures" in columns else "0"
        error = "last_error" if "last_error" in columns else "''"
        sources = [(str(i), str(d), str(st), int(f or 0), str(e or "")) for i, d, st, f, e in
                   db.execute(f"SELECT id, data, state, {failures}, {error} FROM sources"
                              " ORDER BY id")]
    return LegacySnapshot(schema, rows, marker, migration, sources, events)


def _actor(data: str) -> str:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return ""
    return str(value.get("actor", "")) if isinstance(value, dict) else ""
