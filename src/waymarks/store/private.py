"""SQLite files Waymarks creates hold stored text, local-only items among them: only
their owner may read them, as only the owner may read the session ledgers (0600).

SQLite creates a database with the process's umask (0644 under the usual 022) and gives
its ``-wal``, ``-shm`` and journal files the database file's permissions, so the database
file is created 0600 before SQLite opens it, and one left wider by an earlier release is
narrowed on open when it is ours.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

COMPANIONS = ("", "-wal", "-shm", "-journal")
#: how long a removal of orphaned companions waits for the writer's turn (a recovery
#: setting the database aside holds it while it renames these, then the database)
ORPHAN_TURN_S = 30.0


def private_database(path: Path) -> None:
    """Before SQLite opens ``path``: its directory exists (created 0700 when missing),
    the database file exists (created 0600 when missing), and the database and its
    companion files, when they are regular files of ours, give no one else any access
    (the owner's bits are kept: a database left read-only stays so, and is refused as
    such). Anything that cannot be done is left to SQLite to report."""
    try:  # the usual case, one call: ours and private already (then so are companions
        found = os.lstat(path)  # SQLite makes later: it gives them the database's mode)
        if stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() \
                and not found.st_mode & 0o077:
            return
    except OSError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    drop_orphaned_companions(path)
    # O_EXCL: never through a symbolic link, never an existing file truncated; it exists,
    # or the directory refuses (SQLite then says which)
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    owner = os.geteuid()
    for suffix in COMPANIONS:
        name = f"{path}{suffix}"
        try:
            found = os.lstat(name)
            if stat.S_ISREG(found.st_mode) and found.st_uid == owner \
                    and found.st_mode & 0o077:
                os.chmod(name, stat.S_IMODE(found.st_mode) & 0o700)
        except OSError:
            continue  # missing (SQLite removed it), or not ours to change


def uri(path: Path, query: str) -> str:
    """The SQLite URI of ``path`` with ``query`` (``mode=ro``, ``mode=rw``,
    ``immutable=1``), percent-encoded: written as ``file:{path}``, a ``#`` or ``?`` in
    the path cut it there, and SQLite opened (and created) another file."""
    return f"{path.absolute().as_uri()}?{query}"


def read_only_uri(path: Path) -> str:
    """The URI that reads the database at ``path`` and writes nothing, creating no file:
    with its write-ahead log when that holds frames (``mode=ro``, under SQLite's locks),
    else the main file as it is (``immutable=1``: no log to read, and no companion made
    beside it)."""
    log = Path(f"{path}-wal")
    framed = log.exists() and log.stat().st_size > 0
    return uri(path.resolve(), "mode=ro" if framed else "immutable=1")


def drop_orphaned_companions(path: Path) -> None:
    """Remove the ``-wal``, ``-shm`` and ``-journal`` of a database that is gone, before
    one is made at ``path``: deleted or moved aside (by the person: "delete it and the
    next command rebuilds", "the queue file can be moved aside") while a process held it
    open, whose connection kept them. SQLite would read them as the new file's log (every
    open then failed with ``SQLITE_IOERR_SHORT_READ``, an I/O error blaming the disk,
    until that process reopened); the process that held them keeps its own copies open.
    Under the writer's turn, and only while no database is at ``path``: a recovery
    setting the database aside renames its companions and then it within the turn (and
    any an opener made meanwhile are dropped here). Only regular files (anything else is
    refused by name before this)."""
    names = [f"{path}{suffix}" for suffix in COMPANIONS[1:]]
    if os.path.lexists(path) or not any(_regular(name) for name in names):
        return
    from waymarks.store.writer_lock import writer_turn

    try:
        with writer_turn(path, ORPHAN_TURN_S):
            if os.path.lexists(path):
                return  # a database is there again (another process made it): they are its
            for name in names:
                if _regular(name):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name)
    except OSError:
        return  # a home that refuses (read-only, not ours): left to SQLite to report


def _regular(name: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(name).st_mode)
    except OSError:
        return False
