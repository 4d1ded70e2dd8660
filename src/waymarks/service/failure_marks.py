"""A background job's failure, marked in the home so the prompts that would start it again
hold back for a while: the projection fill's (:mod:`waymarks.service.projection_fill`).
The kept vectors file's is kept in the projection instead, read here
(:func:`fresh`): a home that cannot take a new file (out of inodes) held no mark of it.

A job that fails the same way each time (a full disk, a file size limit, a folder made
read-only) was started again by every prompt that found its work undone, each paying a
process start and failing. The process that failed leaves a small file (:func:`mark`:
its error's code, never content) whose age says when another may start
(:func:`recent`); one that succeeds takes it away. What must stay true: a mark that
cannot be written or read holds nothing back (the next prompt starts the job, as before
there were marks), and one from the future is no mark (a clock set back).
"""

from __future__ import annotations

from pathlib import Path

#: the most of a mark that is read (a code is a few dozen characters)
MARK_LIMIT = 64


def mark(home: Path, name: str, code: str | None) -> None:
    """Leave ``code`` (why the job failed) in ``home``'s mark ``name``, or take the mark
    away (``None``: done). Nothing is said when that cannot be written: a full disk may be
    why it failed."""
    path = home / name
    try:
        if code is None:
            path.unlink(missing_ok=True)
        else:
            from waymarks.files.atomic import write_atomic

            write_atomic(path, code)
    except OSError:
        pass


def recent(home: Path, name: str, retry_s: float) -> tuple[str, float] | None:
    """The code ``home``'s mark ``name`` holds, and when it was left (``time.time()``'s
    clock), when that was less than ``retry_s`` seconds ago; else ``None``."""
    from waymarks.files.reading import read_regular

    path = home / name
    try:
        failed_at = path.stat().st_mtime
        code = read_regular(path, limit=MARK_LIMIT).decode("ascii", "replace")
    except OSError:
        return None
    return fresh(code, failed_at, retry_s)


def fresh(code: str, failed_at: float, retry_s: float) -> tuple[str, float] | None:
    """A failure's ``code`` (its letters, digits, ``_`` and ``.``) and ``failed_at``
    (``time.time()``'s clock) when that was less than ``retry_s`` seconds ago; else (a
    mark from the future too: a clock set back) ``None``. For a mark kept elsewhere."""
    import time

    if not 0 <= time.time() - failed_at < retry_s:
        return None
    return "".join(c for c in code if c.isalnum() or c in "_.") or "an error", failed_at


def until(failed_at: float, retry_s: float) -> str:
    """When another may start after a failure at ``failed_at``, as a message says it."""
    from datetime import UTC, datetime

    return datetime.fromtimestamp(failed_at + retry_s, UTC).strftime("%H:%M:%S UTC")
