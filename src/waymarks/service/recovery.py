"""Recovering from a damaged projection database: set it aside, rebuild from the ledgers.

The database is derived, so damage never costs data: the damaged file (with its ``-wal``
and ``-shm`` companions, which belong to it and must not be replayed into a new file) is
renamed to ``waymarks.db.damaged-<UTC time>`` for inspection, and a fresh projection is
built from every session file in the home. A database written by a *newer* release is
not damage: it is refused, untouched.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from waymarks.ledger.log import ProgressFn, SessionFileError, SessionLog
from waymarks.ledger.session_file import SessionFile
from waymarks.service.outcomes import ServiceError
from waymarks.store.projection import ProjectionDamaged

P = ParamSpec("P")
R = TypeVar("R")

DAMAGED_MARK = ".damaged-"
#: SQLite errors that say the *environment* is wrong (full, read-only, busy, I/O), which a
#: rebuild cannot fix; everything else from the projection is treated as damage
ENVIRONMENT_ERRORS = ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_LOCKED",
                      "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_NOMEM",
                      "SQLITE_INTERRUPT")


def is_damage(exc: Exception) -> bool:
    """Whether an error from the projection means the database itself is damaged."""
    if not isinstance(exc, sqlite3.Error):
        return True
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name.startswith(ENVIRONMENT_ERRORS):
        return False
    # errors without a code: a closed or misused connection is ours, not the file's
    return bool(name) or (isinstance(exc, sqlite3.DatabaseError) and not isinstance(
        exc, sqlite3.OperationalError | sqlite3.ProgrammingError | sqlite3.InterfaceError))
_COMPANIONS = ("", "-wal", "-shm", "-journal")


def set_aside(db_path: Path, now: datetime) -> Path:
    """Rename the database and its companions out of the way; returns the new main path."""
    stamp = now.strftime("%Y%m%dT%H%M%S%fZ")
    target = db_path.with_name(f"{db_path.name}{DAMAGED_MARK}{stamp}")
    for suffix in _COMPANIONS:
        source = Path(f"{db_path}{suffix}")
        if source.exists():
            os.replace(source, Path(f"{target}{suffix}"))
    return target


def damaged_copies(db_path: Path) -> list[str]:
    """Damaged databases set aside earlier, oldest first."""
    pattern = f"{db_path.name}{DAMAGED_MARK}*"
    return sorted(str(p) for p in db_path.parent.glob(pattern) if not p.name.endswith(
        ("-wal", "-shm", "-journal")))


def all_session_files(home: Path) -> list[Path]:
    """Every session file Waymarks keeps in ``home``, for a rebuild that knows no sources."""
    sessions = home / "sessions"
    return sorted(sessions.glob("*/*.jsonl")) if sessions.is_dir() else []


def database_error(exc: Exception, db_path: Path) -> ServiceError:
    """A clear error for a database that cannot be written (full disk, read-only home)."""
    return ServiceError(
        "database_error",
        f"{db_path}: {exc}. Free disk space or make the home writable, then retry; "
        "nothing was written to the session ledger",
    )


def recovering(method: Callable[P, R]) -> Callable[P, R]:
    """Run a read use case; if the database proves damaged, rebuild it once and retry."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        app: Any = args[0]  # the service object; typed loosely to avoid an import cycle
        try:
            return method(*args, **kwargs)
        except (sqlite3.Error, ProjectionDamaged) as exc:
            if not is_damage(exc):
                raise database_error(exc, app.db_path) from exc
            app._recover(exc)
            return method(*args, **kwargs)

    return run


def read_ledgers(home: Path, current: SessionLog | None, extra: Sequence[Path] = (),
                 progress: ProgressFn | None = None) -> tuple[list[SessionLog], list[str]]:
    """Every session file in ``home`` plus ``extra``, ``current`` re-read last.

    A second file holding the same session ID (a backup copy) is left out and reported:
    one session, one ledger; the current session wins over a copy read earlier.
    """
    paths = list(dict.fromkeys([*all_session_files(home), *extra]))
    others = [p for p in paths if current is None or p != current.path]
    total = sum(p.stat().st_size for p in others if p.is_file())
    total += current.offset if current is not None else 0
    readers: list[Callable[[ProgressFn | None], SessionLog]] = [
        partial(SessionFile.open, path) for path in others]
    if current is not None:
        readers.append(current.reopen)
    sessions: dict[str, SessionLog] = {}
    unreadable: list[str] = []
    for index, read in enumerate(readers):
        try:
            done = sum(s.offset for s in sessions.values())
            session = read(_offset_progress(progress, done, total))
        except (SessionFileError, OSError) as exc:
            unreadable.append(str(exc))
            continue
        kept = sessions.get(session.session_id)
        is_current = current is not None and index == len(readers) - 1
        if kept is not None and not is_current:
            unreadable.append(f"{session.path}: same session ID as {kept.path}; skipped")
            continue
        if kept is not None:
            unreadable.append(f"{kept.path}: same session ID as {session.path}; skipped")
        sessions[session.session_id] = session
    if progress is not None:
        progress(total, total)
    return list(sessions.values()), unreadable


def _offset_progress(progress: ProgressFn | None, done: int, total: int) -> ProgressFn | None:
    if progress is None:
        return None
    return lambda read, _size: progress(done + read, total)
