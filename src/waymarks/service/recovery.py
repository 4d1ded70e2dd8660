"""Recovering from a damaged projection database: set it aside, rebuild from the ledgers.

The database is derived, so damage never costs data: the damaged file (with its ``-wal``
and ``-shm`` companions, which belong to it and must not be replayed into a new file) is
renamed to ``waymarks.db.damaged-<UTC time>`` for inspection, and a fresh projection is
built from every session file in the home. A database written by a *newer* release is
not damage: it is refused, untouched.

Damage and environment are told apart, because their cures differ: damage (SQLite's own
corruption errors, a row that fails its checksum or grammar, stored bytes that no longer
decode; see :mod:`waymarks.store.integrity`) is set aside and rebuilt; an environment
problem (a full disk, a read-only file, directory or file system, a lock held too long)
is reported with what to fix, named, and the reassurance that is true: the session
ledger still holds every acknowledged write. Messages never quote stored content.

A read-only ``waymarks.db`` is refused before SQLite opens it: SQLite would otherwise
open it read-only and create its ``-wal`` and ``-shm`` companions read-only too, which
keep every later command failing after the database is made writable again. Companions
left read-only that way (by an older release) are given the database's permissions.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import stat
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar

from waymarks.core.text import shell_command
from waymarks.ledger.log import ProgressFn, SessionFileError, SessionLog
from waymarks.ledger.session_file import SessionFile
from waymarks.service.database_errors import (
    LEDGER_INTACT,
    SQLITE_PATH_BYTES,
    UNDECODABLE_TEXT,
    UnusableDatabase,
    busy_error,
    database_error,
    describe,
    disk_full,
    unwritable,
)
from waymarks.service.kept_exclusions import (
    DAMAGED_MARK,
    EXCLUSIONS_USED,
    adopt,
    aside_path,
    exclusions_used,
    finish_interrupted_repair,
    note_pending,
    rename_aside,
)
from waymarks.service.outcomes import ServiceError
from waymarks.store.integrity import (
    ProjectionDamaged,
    ProjectionReplaced,
    cut_to_nothing,
)
from waymarks.store.projection import BUSY_TIMEOUT_MS, Projection
from waymarks.store.writer_lock import FileIdentity, file_identity, writer_turn

if TYPE_CHECKING:
    from waymarks.store.jobs import JobStore

__all__ = ["DAMAGED_MARK", "EXCLUSIONS_USED", "LEDGER_INTACT", "SQLITE_PATH_BYTES",
           "UnusableDatabase", "busy_error", "database_error", "describe",
           "exclusions_used", "finish_interrupted_repair", "unwritable"]

P = ParamSpec("P")
R = TypeVar("R")

#: SQLite errors that say the *environment* is wrong (full, read-only, busy, I/O), which a
#: rebuild cannot fix; everything else from the projection is treated as damage
ENVIRONMENT_ERRORS = ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_LOCKED",
                      "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_NOMEM",
                      "SQLITE_INTERRUPT")


#: what a projection call raises when the file is damaged: SQLite's errors, and
#: UnicodeDecodeError when SQLite's message quotes a damaged schema that is not text
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)
#: SQLite's generic error for a transaction misused on a sound file (a call made inside a
#: write's own transaction, say): not damage, never a reason to set the file aside
_MISUSE = ("cannot start a transaction within a transaction",
           "cannot commit - no transaction is active",
           "cannot rollback - no transaction is active")


def is_damage(exc: Exception) -> bool:
    """Whether an error from the projection means the database itself is damaged."""
    if isinstance(exc, ProjectionDamaged):
        return True
    if not isinstance(exc, sqlite3.Error):
        return True
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name.startswith(ENVIRONMENT_ERRORS):
        return False
    if str(exc).startswith(UNDECODABLE_TEXT):
        return True
    if str(exc).startswith(_MISUSE):  # SQLITE_ERROR, but the caller's: a nested BEGIN
        return False
    # errors without a code: a closed or misused connection is ours, not the file's
    return bool(name) or (isinstance(exc, sqlite3.DatabaseError) and not isinstance(
        exc, sqlite3.OperationalError | sqlite3.ProgrammingError | sqlite3.InterfaceError))


def set_aside(db_path: Path, now: datetime) -> Path:
    """Rename the database and its companions out of the way; returns the new main path."""
    target = aside_path(db_path, now)
    rename_aside(db_path, target)
    return target


def damaged_copies(db_path: Path) -> list[str]:
    """Damaged databases set aside earlier, oldest first; a companion (``-wal``, ``-shm``,
    ``-journal``) is listed only when its copy is gone: a repair killed between its
    renames, the database then deleted, left it under a name no database has, and the
    person was never told of it to delete it."""
    found = set(db_path.parent.glob(f"{db_path.name}{DAMAGED_MARK}*"))
    return sorted(str(p) for p in found if not p.name.endswith(_COMPANIONS)
                  or p.with_name(p.name.rsplit("-", 1)[0]) not in found)


_COMPANIONS = ("-wal", "-shm", "-journal")


def open_job_store(home: Path, now: datetime) -> JobStore:
    """The evolution queue's store (``<home>/evolution.db``). A file SQLite finds damaged
    is set aside like the projection (renamed ``evolution.db.damaged-<UTC time>``, kept,
    logged; only while it is still at the path, not a queue another process made since)
    and a new one is made: its jobs come back from the sources the evolution ledger holds
    unsettled at the next check (their backoff, cooldowns and call counts start afresh;
    nothing learned is lost). A name that is not a regular file is refused as the
    projection's are (:func:`refuse_irregular_files`). Another problem (a full disk, a
    read-only file) is the one-line error of :func:`database_error`."""
    from waymarks.store.job_schema import SchemaTooNewError
    from waymarks.store.jobs import DB_FILE, JobStore

    path = home / DB_FILE
    refuse_irregular_files(path, QUEUE_ROLE)
    for attempt in ("first", "again", "anew"):
        found = file_identity(path)  # (another process may replace it meanwhile)
        try:
            return JobStore.open(home)
        except SchemaTooNewError as exc:  # a newer release's: kept as it is, said in a line
            # (before: a traceback from `health`, `evolution status` and `evolve`)
            raise ServiceError("schema_too_new", str(exc)) from exc
        except sqlite3.Error as exc:
            if not is_damage(exc):
                raise database_error(exc, path) from exc
            if attempt == "anew":
                raise ServiceError("database_error", f"{path}: made anew, it still fails "
                                   f"({describe(exc)}); run `waymarks health`") from exc
            if attempt == "again":  # not just replaced by another process: damaged
                set_queue_aside(path, now, found)
    raise AssertionError("unreachable")


def set_queue_aside(path: Path, now: datetime, found: FileIdentity | None = None) -> None:
    """Set the queue's damaged database at ``path`` aside (kept, logged); the next open
    makes a new one. Under the writer's turn: an opener meanwhile removes what it takes
    for a gone database's companions under it (store/private.py). With ``found`` (the file
    a store found damaged in use), only if that file is still at the path: another process
    that met the damage first has set it aside and made a new one, and that healthy queue,
    with the jobs it took since, was set aside as damaged in its turn."""
    with writer_turn(path, BUSY_TIMEOUT_MS / 1000):
        if found is not None and file_identity(path) != found:
            return
        set_aside(path, now)
    from waymarks.service.logs import log_event

    log_event(path.parent, now, "evolution_queue_set_aside", code="damaged")


def using_job_store(home: Path, now: datetime, use: Callable[[JobStore], R]) -> R:
    """``use`` run on the queue's store, closed after. Damage SQLite finds in use (a page
    the open did not read: opening checks the header and schema only) is met as damage
    found on open is: the file is set aside and ``use`` runs once more on a new one
    (before, `evolution status`, `evolution learning` and `evolve` failed with a
    traceback, and `health` said OK)."""
    for attempt in ("first", "anew"):
        store = open_job_store(home, now)
        try:
            return use(store)
        except sqlite3.Error as exc:
            if not is_damage(exc):
                raise database_error(exc, store.path) from exc
            if attempt == "anew":
                raise ServiceError("database_error", f"{store.path}: made anew, it still "
                                   f"fails ({describe(exc)}); run `waymarks health`") from exc
        finally:
            store.close()
        set_queue_aside(store.path, now, store.identity)
    raise AssertionError("unreachable")


def all_session_files(home: Path) -> list[Path]:
    """Every session file Waymarks keeps in ``home``, for a rebuild that knows no sources."""
    sessions = home / "sessions"
    return sorted(sessions.glob("*/*.jsonl")) if sessions.is_dir() else []


#: the names SQLite and the writer's turn use beside the database
DATABASE_COMPANIONS: Final = ("", "-wal", "-shm", "-journal", ".lock")


def _what_it_is(mode: int, path: Path) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISLNK(mode):
        try:
            return f"a symbolic link (to {os.readlink(path)})"
        except OSError:
            return "a symbolic link"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


#: what the projection database is to the person, and what moving it aside costs
PROJECTION_ROLE: Final = ("its projection database",
                          "the next command rebuilds what it needs from the session files")
#: the same for the learning queue (``evolution.db``, :func:`open_job_store`)
QUEUE_ROLE: Final = ("its learning queue", "the next check makes the queue anew from the "
                     "sources the learned ledger holds unsettled; nothing learned is lost")


def refuse_irregular_files(db_path: Path, role: tuple[str, str] = PROJECTION_ROLE) -> None:
    """Refuse, before anything opens or creates them, a database whose file or companion
    (``-wal``, ``-shm``, ``-journal``, ``.lock``) is not a regular file: a directory, a
    FIFO (opening one waits for a writer), a symbolic link (SQLite follows it, and created
    the file a dangling one names), a socket or a device. The error names the file, says
    what it is and how to move it aside; nothing is changed (each name is only lstat'ed).
    ``role``: what the database is, and what moving it aside costs."""
    what, aside = role
    for suffix in DATABASE_COMPANIONS:
        path = Path(f"{db_path}{suffix}")
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue  # missing: SQLite or the writer's turn creates it
        if stat.S_ISREG(mode):
            continue
        raise UnusableDatabase(
            "database_error",
            f"{path} is {_what_it_is(mode, path)}, not a regular file, so Waymarks cannot"
            f" use {what}. Move it aside: {shell_command(['mv', str(path), f'{path}.aside'])}"
            f" ({aside}). Nothing"
            f" was changed. {LEDGER_INTACT}.")


def prepare_database_files(db_path: Path) -> None:
    """Check, before SQLite opens it, that the projection can be written (a read-only
    database is refused: see the module docstring; so is a database or companion file
    that is not a regular file, :func:`refuse_irregular_files`), and give ``-wal``/``-shm``
    files left read-only beside a writable database the database's permissions."""
    refuse_irregular_files(db_path)
    if not db_path.exists():
        return  # created by SQLite; a directory that refuses is diagnosed on failure
    mode = stat.S_IMODE(db_path.stat().st_mode)
    if os.access(db_path, os.R_OK | os.W_OK):
        for suffix in ("-wal", "-shm"):
            companion = Path(f"{db_path}{suffix}")
            if companion.exists() and not os.access(companion, os.R_OK | os.W_OK):
                try:
                    os.chmod(companion, mode | stat.S_IRUSR | stat.S_IWUSR)
                except FileNotFoundError:
                    continue  # the last connection closed and SQLite removed it
                except OSError:
                    break  # not ours to change: explained below
    problem = unwritable(db_path)
    if problem is not None:
        cause, fix = problem
        raise UnusableDatabase("database_error",
                               f"{cause}, so Waymarks cannot keep its projection up to date."
                               f" {fix}. Nothing was changed. {LEDGER_INTACT}.")


#: recoveries made outside a ``Waymarks`` object (the learned-memory store found the
#: database damaged), by database path: the recovery's number in this process (see
#: :func:`recoveries_so_far`) and its note, for the note and ``health`` of the request
#: that made it
_RECOVERED_ALONE: dict[str, tuple[int, dict[str, Any]]] = {}
_RECOVERIES = 0


def recoveries_so_far() -> int:
    """How many recoveries :func:`open_recovering` made in this process: a ``Waymarks``
    object takes it when it is made, so that a long-lived process (the MCP server, the Pi
    bridge, the Claude Code helper) reports a repair to the request it happened in, not to
    every later one."""
    return _RECOVERIES


def recovered_alone(db_path: Path, after: int = 0) -> dict[str, Any] | None:
    """What a recovery of ``db_path`` made by :func:`open_recovering` in this process did,
    if it was made after the first ``after`` recoveries."""
    number, note = _RECOVERED_ALONE.get(str(db_path), (0, None))
    return note if number > after else None


def start_afresh(db_path: Path, problem: Exception, now: datetime
                 ) -> tuple[Projection, dict[str, Any]]:
    """Set the damaged database aside and open a new, empty projection in its place with
    the local policy it held (source exclusions) taken over; the projection, and the
    recovery's note: where the copy went, why, and ``caveats`` (what could not be kept).

    The copy is named (:func:`~waymarks.service.kept_exclusions.note_pending`) before it
    is set aside, until the new database holds its exclusions: a repair stopped in between
    (a full disk, a kill) is finished by the next open (:func:`finish_interrupted_repair`).
    Where the name cannot be written (a full disk), nothing is set aside."""
    try:
        copies = note_pending(db_path, now)
    except OSError as exc:
        raise database_error(exc, db_path) from exc
    aside = set_aside(db_path, now)
    if cut_to_nothing(db_path):  # an opener made an empty file among the renames' leavings:
        with contextlib.suppress(FileNotFoundError):  # no data; its companions are dropped
            os.unlink(db_path)  # as a gone database's (store/private.py)
    note: dict[str, Any] = {"damaged": str(aside), "problem": describe(problem), "caveats": []}
    try:
        projection = Projection(db_path, int(now.timestamp() * 1000))
    except sqlite3.Error as exc:
        raise database_error(exc, db_path) from exc
    try:
        note["caveats"] += adopt(projection, db_path, copies)
    except (sqlite3.Error, OSError) as exc:  # (the names stay: the next open finishes)
        with contextlib.suppress(sqlite3.Error):
            projection.close()
        raise database_error(exc, db_path) from exc
    return projection, note


def set_aside_alone(db_path: Path, problem: Exception, now: datetime,
                    found: FileIdentity | None) -> None:
    """Set a damaged database aside for a store that does not own the projection: the next
    open of the projection finds the new one empty and fills it from every ledger (as after
    a deletion), and the learned-memory tables are folded again from their own ledger.
    Under the writer's turn, and only if the file at the path is still ``found``, the one
    found damaged (another process may have replaced it already)."""
    with writer_turn(db_path, BUSY_TIMEOUT_MS / 1000):
        if isinstance(problem, ProjectionReplaced) or (
                found is not None and file_identity(db_path) != found):
            return
        projection, note = start_afresh(db_path, problem, now)
        projection.close()
    global _RECOVERIES
    _RECOVERIES += 1
    _RECOVERED_ALONE[str(db_path)] = (_RECOVERIES, note)


def open_recovering(open_store: Callable[[], R], db_path: Path, now: Callable[[], datetime]
                    ) -> R:
    """Open a store over the projection database besides the ``Waymarks`` object's own (the
    learned-memory tables): damage found on open is set aside (:func:`set_aside_alone`)
    and the store opened on a new database; an environment error propagates unchanged
    (capture queues a busy database)."""
    from waymarks.store.migrations import SchemaTooNewError

    refuse_irregular_files(db_path)
    found = file_identity(db_path)
    try:
        return open_store()
    except SchemaTooNewError as exc:  # a newer release's: refused untouched, as the CLI's
        raise ServiceError("schema_too_new", str(exc)) from exc  # own open refuses it
    except SQLITE_ERRORS as exc:
        if not is_damage(exc):
            raise
        set_aside_alone(db_path, exc, now(), found)
    try:
        return open_store()
    except SQLITE_ERRORS as exc:
        if not is_damage(exc):
            raise
        raise ServiceError(
            "database_error",
            f"{db_path}: set aside as damaged and opened anew, it still fails"
            f" ({describe(exc)}). Run `waymarks health`; {LEDGER_INTACT[0].lower()}"
            f"{LEDGER_INTACT[1:]}.") from exc


def read_as_it_is(app: Any, problem: Exception) -> Projection:
    """The projection of ``app`` read as it is when the disk holding it is full (every
    open writes: a read failed there though the file held its answer), noting on ``app``
    that it may be stale; any other problem, or one reading it so, is the open's error."""
    error = database_error(problem, app.db_path)
    if not disk_full(problem, app.db_path):
        raise error from problem
    from waymarks.store.read_only import ReadOnlyProjection

    try:
        opened = ReadOnlyProjection(app.db_path, error, app.busy_timeout_ms)
    except (*SQLITE_ERRORS, OSError):
        raise error from problem
    from waymarks.service.projection_fill import full_disk_note

    app.stale_note = full_disk_note(app, "the database was read as it is, without what the "
                                    "session files hold since it was last written: this may "
                                    "be stale, and nothing can be written until space is "
                                    "freed there")
    return opened


def recovering(method: Callable[P, R]) -> Callable[P, R]:
    """Run a read use case; if the database proves damaged, rebuild it once and retry."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        app: Any = args[0]  # the service object; typed loosely to avoid an import cycle
        try:
            return method(*args, **kwargs)
        except SQLITE_ERRORS as exc:
            if getattr(app._projection, "refusal", None) is not None:
                raise app._projection.refusal from exc  # (read as it is: a full disk)
            if not is_damage(exc):
                raise database_error(exc, app.db_path) from exc
            app._recover(exc)
        try:
            return method(*args, **kwargs)
        except SQLITE_ERRORS as exc:  # rebuilt, yet failing again
            if not is_damage(exc):
                raise database_error(exc, app.db_path) from exc
            raise ServiceError(
                "database_error",
                f"{app.db_path}: rebuilt from the session files, it still fails"
                f" ({describe(exc)}). Run `waymarks health`; {LEDGER_INTACT[0].lower()}"
                f"{LEDGER_INTACT[1:]}.") from exc

    return run


def _unreadable(exc: Exception, path: Path) -> str:
    """Why a rebuild left a file out: for one that holds no session header, what
    :func:`~waymarks.ledger.discovery.headerless_note` says (the reader's own words told a
    rebuild to pass a session file or create one with `waymarks session new`, advice for
    ``--session``)."""
    from waymarks.ledger.discovery import headerless_note

    if isinstance(exc, SessionFileError) and path.is_file():  # (a FIFO blocks a read)
        return headerless_note(path) or str(exc)
    return str(exc)


def read_ledgers(home: Path, current: SessionLog | None, extra: Sequence[Path] = (),
                 progress: ProgressFn | None = None) -> tuple[list[SessionLog], list[str]]:
    """Every session file in ``home`` plus ``extra``, ``current`` re-read last.

    A second file holding the same session ID (a backup copy) is left out and reported:
    one session, one ledger; the current session wins over a copy read earlier.
    """
    paths = list(dict.fromkeys([*all_session_files(home), *extra]))
    roots = list(dict.fromkeys(p.parent.parent for p in extra))  # sessionRoots, Pi's
    others = [p for p in paths if current is None or p != current.path]
    total = sum(p.stat().st_size for p in others if p.is_file())
    total += current.offset if current is not None else 0
    readers: list[tuple[Path, Callable[[ProgressFn | None], SessionLog]]] = [
        (path, partial(SessionFile.open, path)) for path in others]
    if current is not None:
        readers.append((Path(current.path), current.reopen))
    sessions: dict[str, SessionLog] = {}
    unreadable: list[str] = []
    for index, (path, read) in enumerate(readers):
        try:
            done = sum(s.offset for s in sessions.values())
            session = read(_offset_progress(progress, done, total))
        except (SessionFileError, OSError) as exc:
            unreadable.append(_unreadable(exc, path))
            continue
        kept = sessions.get(session.session_id)
        is_current = current is not None and index == len(readers) - 1
        if kept is not None and not is_current and not _stands_before(session, kept, home,
                                                                     roots):
            unreadable.append(f"{session.path}: same session ID as {kept.path}; skipped")
            continue
        if kept is not None:
            unreadable.append(f"{kept.path}: same session ID as {session.path}; skipped")
        sessions[session.session_id] = session
    if progress is not None:
        progress(total, total)
    return list(sessions.values()), unreadable


def _stands_before(session: SessionLog, kept: SessionLog, home: Path,
                   roots: Sequence[Path]) -> bool:
    """Whether ``session`` rather than ``kept`` (two files holding one session ID) stands
    for the session in a rebuild: the one in its project's own session directory, then
    the one with the session's own file name (``<time>_<id>.jsonl``), then the one that
    extends the other. Longer alone won before: a copy of a sibling's file with a line
    added (a planted pin), named to sort first or put in another project's folder, stood
    for the session after a rebuild while the incremental pass kept the original (and a
    copy elsewhere held back every project item of the real one, as foreign)."""
    new, old = _standing(session, home, roots), _standing(kept, home, roots)
    return new > old if new != old else extends(session, kept)


def _standing(session: SessionLog, home: Path, roots: Sequence[Path]) -> tuple[bool, bool]:
    """(in its project's own folder, named for its header's time and ID): a copy may
    take any name of that shape, but only one is the one its header gives."""
    from waymarks.ledger.discovery import in_project_dirs, session_file_name

    header = session.header
    if header is None:
        return False, False
    placed = in_project_dirs(session.path, header.cwd, home, roots)
    return placed, session.path.name == session_file_name(header.timestamp, header.id)


def extends(longer: SessionLog, shorter: SessionLog) -> bool:
    """Whether ``longer`` holds every byte ``shorter`` holds, and more: a copy of a
    session taken earlier, met first (a copy named "... (copy).jsonl" sorts before its
    original), must not stand for the session in a rebuild; the incremental pass keeps
    the original it indexed first."""
    size = shorter.offset
    return longer.offset > size and starts_with(longer.path, shorter.path, size)


def starts_with(path: Path, other: Path, size: int) -> bool:
    """Whether the first ``size`` bytes of ``path`` are those of ``other`` (read a
    megabyte at a time)."""
    chunk = 1 << 20
    with open(path, "rb") as a, open(other, "rb") as b:
        for _ in range(0, size, chunk):
            want = min(chunk, size - a.tell())
            if a.read(want) != b.read(want):
                return False
    return True


def _offset_progress(progress: ProgressFn | None, done: int, total: int) -> ProgressFn | None:
    if progress is None:
        return None
    return lambda read, _size: progress(done + read, total)
