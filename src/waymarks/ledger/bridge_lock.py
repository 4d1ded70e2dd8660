"""The lock a Pi bridge holds on the session it serves: ``<home>/bridges/<session id>.lock``
(an exclusive ``flock`` for as long as it serves the session; the kernel lets go when its
process ends). The bridge takes it (``hosts/pi_claim.py``); a write from outside Pi (the
CLI, the MCP server) looks at it before it appends to a session file: a running Pi holds
that file open, and what is appended beside it is not in Pi's plans while it runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

#: a session ID is a file name here only when it is this plain (and this short)
_PLAIN: Final = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")
_PLAIN_MAX: Final = 128


def bridge_lock_path(home: Path, session_id: object) -> Path | None:
    """The lock of session ``session_id`` (``None``: no ID). A plain ID names its lock; any
    other (a dot, a colon, a slash, a letter outside ASCII, a very long one) by ``~`` and
    the SHA-256 of its UTF-8 (``~`` is never in a plain ID): such a session had no lock,
    so two Pi processes served it at once and a CLI write went in beside a running Pi."""
    if not isinstance(session_id, str) or not session_id:
        return None
    if len(session_id) <= _PLAIN_MAX and not set(session_id) - _PLAIN:
        return home / "bridges" / f"{session_id}.lock"
    import hashlib

    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return home / "bridges" / f"~{digest}.lock"


def held_by_bridge(home: Path, session_id: str) -> Path | None:
    """The lock, if a Pi bridge holds it now; ``None`` if none does (or there is none to
    look at: nothing is made here). Looked at with a shared lock taken and let go at once,
    without waiting; a bridge claiming the session in that instant waits for it
    (``pi_claim.CLAIM_WAIT_S``)."""
    import fcntl

    path = bridge_lock_path(home, session_id)
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:  # none (the usual case), or one no bridge could lock either
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return path
    except OSError:
        return None
    finally:
        os.close(fd)
    return None
