"""A warm process's answer before its ledger flush: ``fsync`` put off until it has replied.

The Claude Code helper records a prompt in the session ledger, plans, and answers the
hook. The record's ``fsync`` (7-19 ms on a loaded disk) came between the two, on the
prompt's wall time. Inside :func:`flushes_deferred` (this thread only), a session file's
writer still writes its lines under its lock (``write()``: a process killed afterwards,
the helper included, keeps them; every reader sees them at once), but leaves the flush to
the end of the block, which the helper closes once the answer is sent. Only a power cut
between the two can lose the lines (the prompt is also in Claude Code's own transcript).
A flush that fails is handed to ``failed`` (the helper logs it); it is never raised into
an answer already given.
"""

from __future__ import annotations

import _thread  # (not threading: the hook's lean paths load this module)
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_local = _thread._local()


def defer(path: Path) -> bool:
    """Whether ``path``'s flush is put off (inside :func:`flushes_deferred` on this thread:
    it is then noted, and flushed when the block ends)."""
    pending: list[Path] | None = getattr(_local, "pending", None)
    if pending is None:
        return False
    if path not in pending:
        pending.append(path)
    return True


@contextmanager
def flushes_deferred(failed: Callable[[OSError], None] | None = None) -> Iterator[None]:
    """Session files written on this thread inside the block are flushed when it ends
    (each once), not as each write is reported."""
    outer: list[Path] | None = getattr(_local, "pending", None)
    if outer is not None:  # nested: the outer block flushes
        yield
        return
    _local.pending = []
    try:
        yield
    finally:
        pending, _local.pending = _local.pending, None
        for path in pending:
            try:
                flush(path)
            except OSError as exc:
                if failed is not None:
                    failed(exc)


def flush(path: Path) -> None:
    """``fsync`` the file at ``path`` (any descriptor of it: the file's written pages)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
