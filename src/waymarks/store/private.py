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
