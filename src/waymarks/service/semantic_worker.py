"""The background embedding worker (``python -m waymarks.service.semantic_worker HOME``).

Woken by :func:`waymarks.service.semantic_backfill.wake` after a write or a rebuild; see
that module for what must stay true (one worker per home by ``flock``, low priority,
committed batches so an interrupted run resumes, no write left behind, content-free
progress).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from waymarks.files.atomic import write_atomic
from waymarks.semantic import load as load_embedder
from waymarks.service.semantic_backfill import (
    NICENESS,
    PROGRESS_FILE,
    ForegroundBusy,
    progress,
    try_lock,
)


def _write(home: Path, data: dict[str, Any]) -> None:
    data["cpu_total_s"] = round(float(data.get("cpu_earlier_s", 0.0))
                                + float(data.get("cpu_s", 0.0)), 3)
    with contextlib.suppress(OSError):  # progress is a courtesy; the vectors are the work
        write_atomic(home / PROGRESS_FILE, json.dumps(data, sort_keys=True), mode=0o600)


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def run(home: Path, held: int | None = None) -> int:
    """The worker: embed every record of ``home``'s projection missing a vector; 0 when
    done or when another worker runs. ``held``: the lock's descriptor, already locked by
    the process that spawned this one (:func:`~waymarks.service.semantic_backfill.wake`).
    After releasing the lock it looks once more for records written meanwhile and takes
    the lock again for them, unless another worker has it (then that one does them).
    A failure is recorded in progress and raised."""
    fd = held if held is not None else try_lock(home)
    if fd is None:
        return 0  # another worker has it
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    state: dict[str, Any] = {"state": "running", "pid": os.getpid(), "started": _stamp(),
                             "embedded": 0, "total": None}
    state["cpu_earlier_s"] = _earlier_cpu(home)  # the home's workers before this one
    try:
        while True:
            deferred = not _embed(home, state)
            os.close(fd)
            fd = None
            if deferred or not _pending(home):
                return 0  # deferred: the foreground process, or the next wake, does them
            fd = try_lock(home)
            if fd is None:
                return 0  # a worker woken meanwhile does them
    finally:
        if fd is not None:
            os.close(fd)


def _earlier_cpu(home: Path) -> float:
    """CPU seconds of the home's earlier workers (from their progress, read as ``status``
    reads it; 0 if unknown)."""
    return float((progress(home) or {}).get("cpu_total_s", 0.0))


def _pending(home: Path) -> int:
    from waymarks.service.app import Waymarks
    from waymarks.service.semantic_recall import missing_vectors

    with Waymarks(home, cwd=str(home)) as app:
        return missing_vectors(app)


def _embed(home: Path, state: dict[str, Any]) -> bool:
    """Embed until nothing is missing (writes landing meanwhile included), recording
    content-free progress; ``state`` carries the counts across rounds of one worker.
    ``False`` when it left the rest to a process embedding in the foreground for longer
    than it waits (``deferred``; the batches before are committed)."""
    from waymarks.service.app import Waymarks

    state.update(state="running", updated=_stamp())
    _write(home, state)
    base = int(state["embedded"])

    def tick(done: int, total: int) -> None:
        state.update(embedded=base + done, total=base + total, updated=_stamp(),
                     cpu_s=_cpu())
        _write(home, state)

    try:
        load_embedder(threads=1)  # one core for bulk work, whatever OMP_NUM_THREADS says
        with Waymarks(home, cwd=str(home)) as app:
            while True:
                outcome = app.embed_recall(tick, background=True)
                base = int(state["embedded"])
                if not outcome.get("available") or not outcome.get("embedded"):
                    break
    except ForegroundBusy:
        state.update(state="deferred", updated=_stamp(), cpu_s=_cpu())
        _write(home, state)
        return False
    except Exception as exc:  # recorded as failed (class name only), then raised
        state.update(state="failed", error=type(exc).__name__, updated=_stamp(), cpu_s=_cpu())
        _write(home, state)
        raise
    state.update(state="done" if outcome.get("available") else "unavailable",
                 records=outcome.get("records"), vectors=outcome.get("vectors"),
                 updated=_stamp(), finished=_stamp(), cpu_s=_cpu())
    if state["total"] is None or state["total"] < state["embedded"]:
        state["total"] = state["embedded"]
    _write(home, state)
    return True


def _cpu() -> float:
    """This worker's CPU seconds so far (user + system), for status and benchmarks."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round(usage.ru_utime + usage.ru_stime, 3)


def main(argv: list[str]) -> int:
    """``HOME [FD]``: :func:`run` (the lock's descriptor ``FD`` held by the spawner)."""
    return run(Path(argv[0]), int(argv[1]) if len(argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
