"""What a rebuild cannot recover from the ledgers: local policy kept in a damaged database.

Source exclusions (``source_exclusions``) are local policy, not derived state: they live
only in the database, so a database set aside as damaged takes them along. A recovery reads
them back from the set-aside copy, read-only and best effort, and checks every row before
the new database takes it (a damaged row is left out and counted, never trusted): an
excluded session's project memory must not reach the model again because the file it was
recorded in broke. What cannot be read is said, never dropped in silence.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from waymarks.store.migrations import EXCLUSIONS_STEP
from waymarks.store.private import read_only_uri

Exclusion = tuple[str, str | None, int]
#: how the problem of a copy nothing could be read from starts (whether it held any
#: exclusion is then unknown)
UNREADABLE = "unreadable: "
#: longest session ID and reason a row may hold (what a write would accept and more)
_MAX_TEXT = 4096


def read_exclusions(path: Path, note: str) -> tuple[list[Exclusion], str | None]:
    """The exclusions a (damaged) database at ``path`` holds that pass their checks, and
    why some could not be read (``None``: every row was read and is sound), or, when
    they all were, why an earlier repair could not read some: its ``meta`` row ``note``,
    kept until exclusions were set again."""
    rows: list[Exclusion] = []
    problem = None
    db = None
    companions = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")]
    there = [c.exists() for c in companions]
    # never written: no companion is created beside the copy kept for inspection
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        found = db.execute("SELECT session_id, reason, excluded_at FROM source_exclusions"
                           ).fetchall()
        for row in found:
            if _sound(row):
                rows.append((str(row[0]), row[1], int(row[2])))
            else:
                problem = "a damaged row left out"
        if problem is None:  # exclusions an earlier repair lost are still to be set again
            problem = _earlier_loss(db, note)
    except (sqlite3.Error, UnicodeDecodeError, ValueError) as exc:
        if "no such table" in str(exc) and db is not None and _predates_exclusions(db):
            return [], None  # nothing was ever excluded in it (an older schema)
        # a table missing from a schema that had it (or that cannot say) held exclusions
        # as far as anyone knows: the caller's caveat follows where there were any
        problem = f"{UNREADABLE}{_missing_table(exc) or type(exc).__name__}"
    finally:
        if db is not None:
            db.close()
        for companion, existed in zip(companions, there, strict=True):
            if not existed:  # SQLite's reader made it: the copy stays as it was set aside
                companion.unlink(missing_ok=True)
    return rows, problem


def _predates_exclusions(db: sqlite3.Connection) -> bool:
    """Whether the copy's recorded schema is from before source exclusions existed (a
    copy whose history is gone or unreadable cannot say so)."""
    try:
        row = db.execute("SELECT max(version) FROM schema_migrations").fetchone()
    except (sqlite3.Error, ValueError):
        return False
    return isinstance(row[0], int) and 0 < row[0] < EXCLUSIONS_STEP


def _missing_table(exc: Exception) -> str | None:
    """'no such table: X' said in our words (SQLite's message names only the table)."""
    text = str(exc)
    if not text.startswith("no such table: "):
        return None
    name = text.removeprefix("no such table: ")
    return f"its {name} table is missing" if name.isidentifier() else "a table is missing"


def _earlier_loss(db: sqlite3.Connection, note: str) -> str | None:
    """The note of a repair before, kept in the copy until exclusions were set again."""
    try:
        row = db.execute("SELECT value FROM meta WHERE name = ?", (note,)).fetchone()
    except sqlite3.Error:
        return None  # (the exclusions were read: the note is what may be lost here)
    if row is None:
        return None
    value = row[0]
    return (f"in an earlier repair: {value[:300]}" if isinstance(value, str)
            and value.isprintable() else "in an earlier repair: its note unreadable")


def _sound(row: tuple[object, ...]) -> bool:
    sid, reason, at = row
    return (isinstance(sid, str) and 0 < len(sid) <= _MAX_TEXT and sid.isprintable()
            and (reason is None or (isinstance(reason, str) and len(reason) <= _MAX_TEXT))
            and isinstance(at, int) and at >= 0)


def restore_exclusions(db: sqlite3.Connection, rows: list[Exclusion]) -> None:
    """Put exclusions read from a set-aside copy into a new database (before its rebuild,
    inside its transaction or in autocommit)."""
    db.executemany("INSERT OR IGNORE INTO source_exclusions (session_id, reason, excluded_at)"
                   " VALUES (?, ?, ?)", rows)
