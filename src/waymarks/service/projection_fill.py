"""A new database too large for a hurried reader to fill, or a recall index too far
behind for it to catch up: left to a process of its own
(``python -m waymarks.service.projection_fill_worker HOME``).

A new (or deleted) ``waymarks.db`` is filled from every ledger of the home by the first
process that opens it (:func:`waymarks.service.rebuilding.fill_if_new`). At 100k memories
that is 8 s of CPU and 20-30 s on a busy machine: inside a prompt's hook, Claude Code
stopped the hook at 10 s with the fill uncommitted, so that prompt got no context, pins
included, and so did every prompt after it (each started the fill again), until the person
ran a command with the time to finish it.

What must stay true: a hurried caller (one that waits briefly for the database, as a
hook does: ``busy_timeout_ms`` below the default) fills a new database itself only from
at most :data:`HURRIED_FILL_BYTES` of ledgers; past it one detached process fills it
(one per home: it holds :data:`LOCK_FILE` from before it starts to its end) and the
caller is told, by a ``ServiceError`` (:data:`FILLING`) whose words say that nothing
was added and why, so a hook says so rather than be stopped, and still records the prompt
in its session's ledger, which needs no database (it was left out). Nothing is lost:
the ledgers are the truth, and the fill is the one any process would do. Likewise a
hurried recall indexes at most :data:`HURRIED_CATCH_UP_ITEMS` memory items itself (a
re-fold empties the recall index); past it the same process indexes them, the recall
goes on with what is indexed (after a re-fold: nothing, pins still planned), and
``app.recall_note`` says so for the host to tell.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from waymarks.service.outcomes import ServiceError

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.store.recall_index import RecallIndex

#: the most session ledger bytes a hurried caller replays into a new database itself
#: (about a second of CPU, as much as a hook folds of the evolution ledger)
HURRIED_FILL_BYTES: Final = 4 << 20
#: the most memory items a hurried caller's recall indexes itself (about 0.25 s of CPU)
HURRIED_CATCH_UP_ITEMS: Final = 10_000
#: held by the process filling the home's new database, from before it starts to its end
LOCK_FILE: Final = "projection-fill.lock"
#: left by that process when it failed (its error's code: ``projection_fill_failed`` in the
#: home's log says it too); removed when one succeeds
FAILED_FILE: Final = "projection-fill.failed"
#: how long after such a failure no other is started: a fill that keeps failing (a full
#: disk, a file size limit) was started again by every prompt's hook, seconds of CPU each,
#: while every prompt said one "is filling it now"
FILL_RETRY_S: Final = 300
#: the filling process's CPU priority (its nice value and its session's): behind the
#: prompts and writes a person waits for, yet not idle, since later prompts wait for it
FILL_NICENESS: Final = 10
#: the code of the ``ServiceError`` a hurried caller gets while that process fills it: the
#: database is sound, only not filled yet, so the ledgers are still appended (a prompt's
#: hook records the prompt: nothing else holds it), and it is said to the person
FILLING: Final = "projection_filling"


def leave_to_background(app: Waymarks, files: list[Path]) -> None:
    """For a hurried ``app`` (:func:`hurried`) whose new database ``files`` would fill
    with more than :data:`HURRIED_FILL_BYTES`: start the process that fills it (unless
    one runs) and raise ``projection_filling``; otherwise return (the caller fills).
    A new database that a repair (``app.recovered``) put in place of a damaged one is
    said as the command line's repair says it: the hook said it "is new", not that the
    person's was damaged, nor where its copy went."""
    size = sum(_size(path) for path in files)
    if size <= HURRIED_FILL_BYTES:
        return
    why = start_worker(app)
    doing = ("a process of its own is filling it now; the prompts after it ends get them"
             if why is None else f"no process is filling it ({why}): run "
             f"`{_command(app, 'status')}` once, which fills it or says why it cannot")
    repaired = app.recovered
    what = (f"{app.db_path} is new, and filling it" if repaired is None else
            f"{app.db_path} could not be used ({repaired['problem']}): it was set aside as "
            f"{repaired['damaged']}, and filling a new one")
    raise ServiceError(FILLING, (
        f"{what} from the home's {size / 1e6:.1f} MB of "
        f"session ledgers takes longer than a prompt's hook may run, so pins and memory "
        f"were not read for this one: {doing}"))


def catch_up(app: Waymarks, index: RecallIndex) -> None:
    """Index the memory items the recall index is behind on, in a transaction; for a
    hurried ``app`` more than :data:`HURRIED_CATCH_UP_ITEMS` of them (after a re-fold,
    which empties it: 100k items took a hook 2.3 s of CPU and 9.6 s on a busy machine,
    stopped at 10 s and started again by every prompt after it) are left to the worker,
    and ``app.recall_note`` says the recall went without them."""
    if hurried(app) and (lag := index.lag()) > HURRIED_CATCH_UP_ITEMS:
        why = start_worker(app)
        doing = ("a process of its own is indexing them now; the prompts after it ends "
                 "recall them" if why is None else "no process is indexing "
                 f"them ({why}): run `{_command(app, 'recall', 'memory')}` once (any query), "
                 "which indexes them")
        app.recall_note = (f"Waymarks recalled no memory for this prompt (pins are as "
                           f"always): up to {lag:,} memories are not indexed for recall yet, "
                           f"more than a prompt's hook may index; {doing}.")
        return
    import sqlite3

    try:
        with app.projection.transaction():
            index.catch_up()
    except sqlite3.Error as exc:  # the disk filled under a process that opened it with room:
        filled_under(app, exc)  # what is indexed still answers (it answered unavailable),
        unindexed(app, index.lag())  # and the note says what was not searched


def filled_under(app: Waymarks, exc: Exception) -> None:
    """Raise ``exc`` unless it is a full disk; else start ``app.stale_note`` (once): the
    disk filled under a long-lived process that opened the database with room, so a
    cache it could not write (the recall index, a plan's manifest) is gone without, as a
    process opened on the full disk goes without it, and the answer is made all the same."""
    from waymarks.service.database_errors import disk_full

    if not disk_full(exc, app.db_path):
        raise exc
    app.stale_note = app.stale_note or full_disk_note(
        app, "nothing can be written until space is freed there")


def full_disk_note(app: Waymarks, then: str) -> str:
    """The start of ``app.stale_note``: the disk holding the home is full, so ``then``.
    The person is told the home's path (where to free space); :func:`stale_for_model`
    says it without."""
    return f"the disk holding {app.home} is full, so {then}"


#: how the note the model reads names the home (its path is the person's)
MODEL_HOME: Final = "the Waymarks home"


def stale_for_model(app: Waymarks) -> str | None:
    """``app.stale_note`` as a model may read it (a hook's context, ``memory_recall``):
    the same words, the home's path said as :data:`MODEL_HOME`. A path tells the model
    nothing it can act on and is the person's (their user name, their layout)."""
    note = app.stale_note
    return None if note is None else note.replace(str(app.home), MODEL_HOME)


def unindexed(app: Waymarks, lag: int) -> None:
    """Say on ``app.stale_note`` (once) that up to ``lag`` memories in the database read as
    it is on a full disk were not searched: the recall index cannot be brought up to date
    there, and "Nothing recalled" alone read as though they said nothing of the query."""
    stale_too(app, f"up to {lag:,} {'memory' if lag == 1 else 'memories'} recorded since "
              "the recall index was last brought up to date are not indexed for recall, so "
              "no recall searches them until space is freed")


def stale_too(app: Waymarks, said: str) -> None:
    """Add ``said`` (once) to ``app.stale_note``, what a read on a full disk could not do."""
    if app.stale_note is not None and f"; {said}" not in app.stale_note:
        app.stale_note += f"; {said}"


def start_worker(app: Waymarks) -> str | None:
    """Start the detached process that fills the home's new database and catches its
    recall index up, unless one runs (it holds :data:`LOCK_FILE` from before it starts);
    ``None`` when one runs now, else why none could start. A lock that cannot be opened
    (a directory at its path) was taken for one held: every prompt said a process was
    filling the database, and none ever did. None is started for :data:`FILL_RETRY_S`
    after one failed (:func:`fill_failed`): that is why, said."""
    from waymarks.service.semantic_backfill import lock_problem, try_lock

    failed = _recent_failure(app.home)
    if failed is not None:
        return failed
    fd = try_lock(app.home, LOCK_FILE)
    if fd is None:  # held by the one that runs, unless no one can take it
        return lock_problem(app.home, LOCK_FILE)
    from waymarks.spawn.detached import spawn

    try:
        started = spawn(f"{__name__}_worker", [str(app.home)], cwd=str(app.home),
                        env={**os.environ, "WAYMARKS_HOME": str(app.home)}, keep=fd,
                        niceness=FILL_NICENESS)
    finally:
        os.close(fd)  # the child holds the lock through its own copy
    return None if started is not None else "starting Python failed"


def fill_failed(home: Path, code: str | None) -> None:
    """What the process filling ``home``'s database leaves as it ends: ``code``, why it
    failed (:data:`FAILED_FILE`), or ``None``, done (the mark goes). Nothing is said when
    that cannot be written (a full disk may be why it failed): the next prompt starts one
    again, as before."""
    from waymarks.service.failure_marks import mark

    mark(home, FAILED_FILE, code)


def _recent_failure(home: Path) -> str | None:
    """Why no process is started to fill ``home``'s database now: the last one failed less
    than :data:`FILL_RETRY_S` ago (its code, and when another may start); else ``None``."""
    from waymarks.service.failure_marks import recent, until

    failed = recent(home, FAILED_FILE, FILL_RETRY_S)
    if failed is None:
        return None
    code, failed_at = failed
    return (f"the last one failed with {code}, logged as projection_fill_failed, and none "
            f"is started again before {until(failed_at, FILL_RETRY_S)}")


def hurried(app: Waymarks) -> bool:
    """Whether ``app`` waits briefly for the database (a hook: Claude Code stops it at
    10 s), as :func:`waymarks.service.planning._learned` tells it too."""
    from waymarks.store.projection import BUSY_TIMEOUT_MS

    return app.busy_timeout_ms < BUSY_TIMEOUT_MS


def _command(app: Waymarks, *words: str) -> str:
    """The command a message names, for this home (its ``--home``, as the hook's other
    messages name one): a bare `waymarks status` filled the shell's home's database."""
    from waymarks.core.text import named_command

    return named_command(str(app.home), *words)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # (gone meanwhile: the fill reads what is there)
        return 0

