"""Reading pi-memory-evolution's ``memory.sqlite`` without ever modifying it (item 81).

The original is never opened by SQLite: its bytes (and a ``-wal`` file beside it, so
committed writes not yet checkpointed are seen) are copied into a private temporary
directory and the copy is read. Opening the original, even read-only, could create or
touch ``-shm``/``-wal`` files or checkpoint them; a copy cannot. The copy is deleted when
the read ends.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path


class LegacySqliteError(Exception):
    """The database cannot be read as a pi-memory-evolution store (no content quoted)."""


@dataclass(frozen=True, slots=True)
class LegacySnapshot:
    schema: str
    #: (id, scope, hash, data) of every ``memories`` row
    rows: list[tuple[str, str, str, str]]


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
    return LegacySnapshot(schema, rows)
