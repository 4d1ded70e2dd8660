"""Structured logs: one JSON object per line in ``<home>/logs/waymarks.jsonl``.

They carry IDs, counts, scopes, classifications and reasons so that a person can see
what Waymarks did, and never pin content, claim text or prompts: callers pass only
fields from :data:`ALLOWED_FIELDS`, and anything else is refused loudly in tests.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from waymarks.core.c_json import dumps

LOG_DIR = "logs"
LOG_FILE = "waymarks.jsonl"
#: the log's size past which it becomes ``waymarks.jsonl.1`` (the one before replaced):
#: every plan logs the IDs it included and left out, ~2.4 KB a prompt at 1k memories
#: and 50 pins, and nothing shortened the file (hundreds of MB a year of prompts)
LOG_LIMIT_BYTES = 8 * 1024 * 1024
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
ALLOWED_FIELDS = frozenset({
    "session", "provider", "included", "excluded", "fallback", "counts", "tokens", "id",
    "kind", "operation", "outcome", "code", "conflicts", "scope", "classification",
})


def log_event(home: Path, now: datetime, event: str, **fields: Any) -> None:
    unknown = set(fields) - ALLOWED_FIELDS
    if unknown:
        raise ValueError(f"log fields not allowed (content must never be logged): {unknown}")
    record = {"ts": now.isoformat(), "event": event, **fields}
    line = (dumps(record, sort_keys=True) + "\n").encode()  # (json's, no json package)
    path = home / LOG_DIR / LOG_FILE
    try:
        try:
            fd = os.open(path, _APPEND, 0o666)
        except FileNotFoundError:  # the first event: the folder is made once, not per event
            from waymarks.files.dirs import make_private_dirs  # (imported then only)

            make_private_dirs(path.parent)  # under the home, which may be made here
            fd = os.open(path, _APPEND, 0o666)  # as open(): the umask decides
        try:
            rest = memoryview(line)  # one write of the whole line: appends never interleave
            while rest:  # (unless the disk fills mid-line: the rest follows, or OSError)
                rest = rest[os.write(fd, rest):]
            if os.fstat(fd).st_size > LOG_LIMIT_BYTES:
                _set_aside(path, fd)
        finally:
            os.close(fd)
    except OSError:
        pass  # logging is best effort: a full disk must not fail the request it describes


def _set_aside(path: Path, fd: int) -> None:
    """Move the full log (open as ``fd``) to ``<name>.1``; the next event starts a new one.
    Only while ``path`` is still that file: another process's event that filled it too
    set it aside already, and moving the new one would replace the full one with it.
    The check and the move are one step under an ``flock`` on the full file: two events
    that filled it both found it at ``path``, the first moved it, a third started the new
    one, and the second moved that over it, the full log lost (a few times in 6,000 events
    of four processes under a 1 KB limit). A process that finds the file's lock taken
    leaves it to the one that holds it, never waiting on a prompt's path."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return  # (another process is setting this file aside)
    if os.path.samestat(os.fstat(fd), os.stat(path)):
        os.replace(path, path.with_name(f"{LOG_FILE}.1"))
