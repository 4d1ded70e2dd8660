"""The background embedding worker (``python -m waymarks.service.semantic_worker HOME``).

Woken by :func:`waymarks.service.semantic_backfill.wake` after a write or a rebuild; see
that module for what must stay true (one worker per home by ``flock``, low priority,
committed batches so an interrupted run resumes, no write left behind, content-free
progress).

The worker never creates its home: it is started in it, and before each open of the
home's database and each write of its progress or lock it checks that the directory at
the home's path is still the one it started in (:class:`Home`), and so before each batch,
each commit and each write of its notes (``background`` in
:func:`waymarks.service.rebuilding.embed_recall`); when the home was deleted (``rm -rf``)
or replaced, it stops quietly (a database found replaced is reopened only while the home
is still its own: reopening one created it in a home put at the path). Opening
``Waymarks`` on a missing home creates it, and a worker that outlived an ``rm -rf``
brought back a home with an empty database.
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
from waymarks.files.dirs import open_directory, still_at
from waymarks.semantic import load as load_embedder
from waymarks.service.semantic_backfill import (
    NICENESS,
    PROGRESS_FILE,
    ForegroundBusy,
    progress,
    try_lock,
)
from waymarks.spawn.detached import lower_priority


class HomeGone(Exception):
    """The worker's home was deleted or replaced since it started: it stops, writing
    nothing more."""


class Home:
    """The worker's home: its path and the directory that was there when it started,
    held open (:func:`~waymarks.files.dirs.still_at`) until :meth:`close`."""

    def __init__(self, path: Path) -> None:
        self.path, self.held = path, open_directory(path)

    def check(self) -> Path:
        """The home's path, or :class:`HomeGone` when another directory, or none, is at
        it now."""
        if self.held is None or not still_at(self.held, self.path):
            raise HomeGone(str(self.path))
        return self.path

    def close(self) -> None:
        if self.held is not None:
            os.close(self.held)
            self.held = None


def _write(home: Home, data: dict[str, Any]) -> None:
    data["cpu_total_s"] = round(float(data.get("cpu_earlier_s", 0.0))
                                + float(data.get("cpu_s", 0.0)), 3)
    with contextlib.suppress(OSError):  # progress is a courtesy; the vectors are the work
        write_atomic(home.check() / PROGRESS_FILE, json.dumps(data, sort_keys=True), mode=0o600)


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def run(home: Path, held: int | None = None) -> int:
    """The worker: embed every record of ``home``'s projection missing a vector; 0 when
    done, when another worker runs, or when the home was deleted or replaced under it
    (:class:`Home`). ``held``: the lock's descriptor, already locked by the process that
    spawned this one (:func:`~waymarks.service.semantic_backfill.wake`). After releasing
    the lock it looks once more for records written meanwhile and takes the lock again
    for them, unless another worker has it (then that one does them). A failure is
    recorded in progress and raised."""
    place = Home(home)
    fd = held
    try:
        fd = fd if fd is not None else try_lock(place.check())
        if fd is None:
            return 0  # another worker has it
        lower_priority(NICENESS)  # (started by wake: so it is already)
        state: dict[str, Any] = {"state": "running", "pid": os.getpid(),
                                 "started": _stamp(), "embedded": 0, "total": None}
        state["cpu_earlier_s"] = _earlier_cpu(home)  # the home's workers before this one
        while True:
            deferred = not _embed(place, state)
            os.close(fd)
            fd = None
            if deferred or not _pending(place):
                return 0  # deferred: the foreground process, or the next wake, does them
            fd = try_lock(place.check())
            if fd is None:
                return 0  # a worker woken meanwhile does them
    except HomeGone:
        return 0  # nothing to embed for, and nothing to write there
    finally:
        if fd is not None:
            os.close(fd)
        place.close()


def _earlier_cpu(home: Path) -> float:
    """CPU seconds of the home's earlier workers (from their progress, read as ``status``
    reads it; 0 if unknown)."""
    return float((progress(home) or {}).get("cpu_total_s", 0.0))


def _pending(home: Home) -> int:
    from waymarks.service.app import Waymarks
    from waymarks.service.semantic_recall import missing_vectors

    with Waymarks(home.check(), cwd=str(home.path)) as app:
        return missing_vectors(app)


def _embed(home: Home, state: dict[str, Any]) -> bool:
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
        with Waymarks(home.check(), cwd=str(home.path)) as app:
            while True:
                outcome = app.embed_recall(tick, background=home.check)
                base = int(state["embedded"])
                if not outcome.get("available") or not outcome.get("embedded"):
                    break
    except ForegroundBusy:
        state.update(state="deferred", updated=_stamp(), cpu_s=_cpu())
        _write(home, state)
        return False
    except HomeGone:
        raise  # (each batch's progress looks: embedding a deleted home's records stops)
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
