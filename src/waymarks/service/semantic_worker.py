"""The background embedding worker (``python -m waymarks.service.semantic_worker HOME``).

Started by :func:`waymarks.service.semantic_backfill.start` after a rebuild; see that
module for what must stay true (one worker per home by ``flock``, low priority, committed
batches so an interrupted run resumes, content-free progress).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from waymarks.files.atomic import write_atomic
from waymarks.service.semantic_backfill import LOCK_FILE, NICENESS, PROGRESS_FILE


def _write(home: Path, data: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # progress is a courtesy; the vectors are the work
        write_atomic(home / PROGRESS_FILE, json.dumps(data, sort_keys=True), mode=0o600)


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def run(home: Path) -> int:
    """The worker: embed every record of ``home``'s projection missing a vector; 0 when
    done or when another worker runs. A failure is recorded in progress and raised."""
    import fcntl

    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return 0  # another worker has it
    try:
        with contextlib.suppress(OSError):
            os.nice(NICENESS)
        return _embed(home)
    finally:
        os.close(fd)


def _embed(home: Path) -> int:
    from waymarks.service.app import Waymarks

    started = _stamp()
    state: dict[str, Any] = {"state": "running", "pid": os.getpid(), "started": started,
                             "updated": started, "embedded": 0, "total": None}
    _write(home, state)

    def tick(done: int, total: int) -> None:
        state.update(embedded=done, total=total, updated=_stamp())
        _write(home, state)

    try:
        app = Waymarks(home, cwd=str(home))
        outcome = app.embed_recall(tick)
    except Exception as exc:  # recorded as failed (class name only), then raised
        state.update(state="failed", error=type(exc).__name__, updated=_stamp())
        _write(home, state)
        raise
    state.update(state="done" if outcome.get("available") else "unavailable",
                 embedded=outcome.get("embedded", 0), records=outcome.get("records"),
                 vectors=outcome.get("vectors"), updated=_stamp(), finished=_stamp())
    if state["total"] is None:
        state["total"] = state["embedded"]
    _write(home, state)
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1])))
