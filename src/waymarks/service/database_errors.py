"""What a projection database the environment will not let us use is said as: the cause,
the one thing to fix, and that the ledger is intact (split from
:mod:`waymarks.service.recovery`, which repairs what is damage; these are not).

A full disk, a read-only file or file system, a path longer than SQLite opens, a lock held
too long, an I/O error (blamed on the disk only when it is one of reading, writing or
syncing), each named; messages never quote stored content (:func:`describe`).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from waymarks.core.text import shell_command
from waymarks.service.outcomes import ServiceError
from waymarks.store.integrity import DECODE_ERRORS

#: raised by the sqlite3 module (no SQLite code) when a TEXT cell holds invalid UTF-8
UNDECODABLE_TEXT = "Could not decode to UTF-8"

def describe(exc: BaseException) -> str:
    """What went wrong, without stored content (SQLite's decode error quotes the cell)."""
    text = str(exc)
    if text.startswith(UNDECODABLE_TEXT):
        text = text.split(" with text ", 1)[0]
    name = getattr(exc, "sqlite_errorname", None)
    if isinstance(exc, DECODE_ERRORS) and not isinstance(exc, sqlite3.Error):
        text = f"stored bytes no longer decode ({type(exc).__name__})"
    return f"{text} ({name})" if name else text


LEDGER_INTACT = "The session ledger still holds every acknowledged write"
_RETRY = "Retry; if it persists, run `waymarks health`"
#: the longest database path SQLite opens (its pager's: 512 bytes, 8 kept for "-journal")
SQLITE_PATH_BYTES = 504
#: SQLite's I/O errors of reading, writing or syncing (EIO's kin), maybe the disk's; others
#: (_DELETE_NOENT, _SHORT_READ, a lock's) come as often of processes sharing the files
_MEDIUM_ERRORS = frozenset(f"SQLITE_IOERR{n}" for n in (
    "", "_READ", "_WRITE", "_FSYNC", "_DIR_FSYNC", "_TRUNCATE", "_SHMSIZE", "_MMAP", "_DATA",
    "_CORRUPTFS"))


def database_error(exc: Exception, db_path: Path) -> ServiceError:
    """A clear error for a projection the environment will not let us use: what is wrong,
    the one thing to fix, and that the ledger is intact (it always is: the projection
    is written only after the ledger, and a failed command acknowledges nothing)."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    code = getattr(exc, "errno", None)
    lasting = False  # until the person acts (:class:`UnusableDatabase`): full, unwritable
    if disk_full(exc, db_path):
        problem, lasting = (f"the disk holding {db_path.parent} is full",
                            "Free disk space there, then retry (a read needs room too: "
                            f"SQLite makes {db_path.name}-shm and -wal, a few hundred KB, "
                            "as it opens the database)"), True
    elif name.startswith("SQLITE_CANTOPEN") and (
            size := len(os.fsencode(os.path.abspath(db_path)))) > SQLITE_PATH_BYTES:
        problem, lasting = (f"{db_path}: its path is {size} bytes long, more than SQLite opens "
                            f"({SQLITE_PATH_BYTES})",
                            "Use a home with a shorter path (--home, WAYMARKS_HOME)"), True
    elif name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_CANTOPEN")) or code in (
            errno.EACCES, errno.EPERM, errno.EROFS):
        problem, lasting = unwritable(db_path) or (
            f"{db_path} cannot be opened for writing ({name or describe(exc)})",
            f"Check that {db_path.parent} and the files in it are yours and writable"), True
        problem = (problem[0] if str(db_path) in problem[0] else f"{db_path}: {problem[0]}",
                   problem[1])
    elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        problem = (f"another process kept {db_path} locked for too long",
                   "Let it finish, or stop it, then retry")
    elif name in _MEDIUM_ERRORS or code == errno.EIO:
        problem = (f"the system reported an I/O error ({name or describe(exc)}) on {db_path}",
                   f"Check the disk and file system holding {db_path.parent}, then retry")
    elif name.startswith("SQLITE_IOERR"):  # (named, not blamed on the disk)
        problem = (f"SQLite reported {name} on {db_path}", _RETRY)
    else:
        problem = (f"{db_path}: {describe(exc)}", _RETRY)
    cause, fix = problem
    error = UnusableDatabase if lasting else ServiceError
    return error("database_error", f"{cause}. {fix}. {LEDGER_INTACT}.")


def disk_full(exc: Exception, db_path: Path) -> bool:
    """Whether ``exc`` is the disk holding the projection ``db_path`` being full (SQLite's
    own word, the system's, or an I/O error of SQLite's on a disk with no room left)."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name.startswith("SQLITE_FULL") or getattr(exc, "errno", None) in (errno.ENOSPC,
                                                                          errno.EDQUOT):
        return True
    from waymarks.files.space import nearly_full  # (only a failing database asks)

    return name.startswith("SQLITE_IOERR") and nearly_full(db_path.parent)


def busy_error(exc: Exception, db_path: Path) -> ServiceError | None:
    """The clear error of :func:`database_error` for a database another process kept busy
    or locked (SQLite's own ``database is locked``, or the writer's turn not free in time:
    ``WriterBusy``, which names its own database), wherever a command met it; None for any
    other error. A command whose own code did not map it (learning's) crashed with a
    traceback where every other command said which file and what to do."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    if not name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return None
    return database_error(exc, getattr(exc, "db_path", None) or db_path)


def unwritable(db_path: Path) -> tuple[str, str] | None:
    """Why the projection cannot be written, and the fix, if a permission says so."""
    home = db_path.parent
    try:
        read_only_fs = bool(os.statvfs(home).f_flag & os.ST_RDONLY)
    except OSError:
        read_only_fs = False
    if read_only_fs:
        return (f"the file system holding {home} is mounted read-only",
                "Remount it read-write, or point --home (WAYMARKS_HOME) at a writable place")
    if not home.is_dir():
        return None
    if not os.access(home, os.W_OK | os.X_OK):
        if held := _held(home):
            return held
        return (f"the home {home} is not writable (SQLite keeps {db_path.name}-wal and -shm"
                " beside the database)",
                f"Make it writable: {shell_command(['chmod', 'u+w', str(home)])}")
    for suffix in ("", "-wal", "-shm"):
        path = Path(f"{db_path}{suffix}")
        if not path.exists():
            continue
        # which permission is missing: an unreadable file was called read-only, and the
        # chmod u+w it advised left the same message
        readable, writable = os.access(path, os.R_OK), os.access(path, os.W_OK)
        if readable and writable:
            continue
        if held := _held(path):
            return held
        what = ("is read-only for" if readable else "cannot be read by" if writable
                else "can be neither read nor written by")
        return (f"{path} {what} this user",
                f"Make it readable and writable: {shell_command(['chmod', 'u+rw', str(path)])}"
                " (its owner may have "
                f"to); or move {db_path.name} aside and the next command rebuilds it from "
                "the session files")
    return None


def _held(path: Path) -> tuple[str, str] | None:
    """The cause and fix when ``path`` refuses writes by its attribute (``chattr +i``):
    a ``chmod`` it was told to run changed nothing."""
    from waymarks.files.attributes import attribute_problem

    held = attribute_problem(path)
    return (held[0], f"{held[1][:1].upper()}{held[1][1:]}, or point --home "
                     "(WAYMARKS_HOME) elsewhere") if held else None


class UnusableDatabase(ServiceError):
    """A database no command can use until the person acts (``database_error``, as any
    database error): a file of it that is not a regular file, a full disk, a database or
    file system that cannot be written. A prompt's hook says so rather than only logging
    it (a busy database, which passes, is a plain :class:`ServiceError`)."""
