"""Whether a file system is (almost) out of room.

A full disk rarely says so through SQLite: in WAL mode a write that cannot grow the
shared-memory file is an ``SQLITE_IOERR`` (``SQLITE_IOERR_SHMSIZE``, measured on a full
tmpfs), not ``SQLITE_FULL``. An I/O error while the file system holding the database has
less than :data:`FULL_DISK_BYTES` left is therefore reported as a full disk, with the fix
that works (free space), instead of as a failing disk. Imports only ``os``: the capture
spool uses it on the hook's path.
"""

from __future__ import annotations

import os

#: free bytes below which an I/O error is taken for a full disk
FULL_DISK_BYTES = 64 * 1024


def nearly_full(path: str | os.PathLike[str]) -> bool:
    """Whether the file system holding ``path`` has less than ``FULL_DISK_BYTES`` free for
    an ordinary user (``False`` when it cannot be asked)."""
    try:
        found = os.statvfs(path)
    except OSError:
        return False
    return found.f_bavail * found.f_frsize < FULL_DISK_BYTES
