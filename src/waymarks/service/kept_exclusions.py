"""Source exclusions across a repair: local policy that lives only in the database.

A damaged database set aside takes its exclusions along; the new one takes them over
from the copy (:mod:`waymarks.store.salvage` reads it). What must stay true: an excluded
session's project memory never counts again because the file the exclusion was kept in
broke, or because the repair stopped halfway (a full disk, a kill): the copy is named in
``waymarks.db.exclusions-pending`` before it is set aside, and whichever open comes next
takes its exclusions over; exclusions that cannot be read are said (the repair's note,
and ``health`` until one is set or lifted), never dropped in silence.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from waymarks.files.atomic import write_atomic
from waymarks.store.projection import Projection
from waymarks.store.writer_lock import writer_turn

#: how the name of a database set aside starts after the database's own
DAMAGED_MARK: Final = ".damaged-"


def aside_path(db_path: Path, now: datetime) -> Path:
    """Where a repair at ``now`` sets the database aside."""
    return db_path.with_name(f"{db_path.name}{DAMAGED_MARK}{now.strftime('%Y%m%dT%H%M%S%fZ')}")


#: the database last: an opener meanwhile meets it, never a new file beside its old log
_COMPANIONS = ("-shm", "-wal", "-journal", "")


def rename_aside(db_path: Path, target: Path, *, finishing: bool = False) -> None:
    """Rename the database and its companions to ``target`` (under the writer's turn).
    ``finishing`` a rename a kill stopped: a companion already at the target is the
    copy's own and stays; one at the path then is an opener's since, dropped with the
    database gone (store/private.py)."""
    for suffix in _COMPANIONS:
        source, moved = Path(f"{db_path}{suffix}"), Path(f"{target}{suffix}")
        if source.exists() and not (finishing and moved.exists()):
            with contextlib.suppress(FileNotFoundError):  # the last connection removed it
                os.replace(source, moved)


def finish_interrupted_rename(db_path: Path, timeout_s: float) -> None:
    """Before the database is opened: a repair killed between its renames (companions
    first, the database last) left the damaged database at the path without its log, and
    its copy's -wal or -shm under the name :data:`PENDING_EXCLUSIONS` gives it, with no
    copy. The open used that database, the next note said it had been set aside under a
    name no file had, and ``health`` listed no copy. The rename is finished (one ``stat``
    when no repair is pending)."""
    if not pending_path(db_path).exists():
        return
    with writer_turn(db_path, timeout_s):  # a repair running now finishes its own first
        copies = pending_copies(db_path)
        if copies and not copies[-1].exists() and db_path.exists() and any(
                Path(f"{copies[-1]}{suffix}").exists() for suffix in ("-wal", "-shm")):
            rename_aside(db_path, copies[-1], finishing=True)


def note_pending(db_path: Path, now: datetime) -> list[Path]:
    """Name, before it is set aside, the copy a repair at ``now`` makes (with those an
    interrupted repair left pending); the copies whose exclusions are to be taken over.
    Raises ``OSError`` (a full disk): nothing may then be set aside."""
    copies = [*pending_copies(db_path), aside_path(db_path, now)]
    write_atomic(pending_path(db_path), "".join(f"{c.name}\n" for c in copies), mode=0o600)
    return copies


#: beside the database (``waymarks.db.exclusions-pending``), from before a repair sets it
#: aside until the new database holds the source exclusions the copy held: the copies'
#: file names, one a line, the database first found damaged first
PENDING_EXCLUSIONS: Final = ".exclusions-pending"


def pending_path(db_path: Path) -> Path:
    return db_path.with_name(f"{db_path.name}{PENDING_EXCLUSIONS}")


def pending_copies(db_path: Path) -> list[Path]:
    """The copies an interrupted repair set aside whose exclusions are still to be taken
    over; a line that does not name a copy of this database is not read (a copy named
    but gone is reported unreadable)."""
    from waymarks.files.atomic import NotARegularFile
    from waymarks.files.reading import read_regular

    try:  # a FIFO in its place was waited on for ever, by every command's open
        text = read_regular(pending_path(db_path)).decode("utf-8", "replace")
    except (FileNotFoundError, NotARegularFile):  # none; or no list of ours (a FIFO)
        return []  # (any other error is raised: a list unread is never dropped in silence)
    prefix = f"{db_path.name}{DAMAGED_MARK}"
    return [db_path.with_name(name) for name in text.splitlines()
            if name.startswith(prefix) and "/" not in name and name.isprintable()]


def adopt(projection: Projection, db_path: Path, copies: Sequence[Path]) -> list[str]:
    """Take over the exclusions of the ``copies`` set aside (:func:`pending_copies`),
    then drop their names; the caveats to tell. Only the first copy's loss is a loss: a
    later one is a database an interrupted repair made, which held no exclusion but those
    it was taking over from the first."""
    kept: list[str] = []
    problems: list[str] = []
    read = False
    for index, copy in enumerate(copies):
        if not copy.exists():
            if index == 0:
                problems.append(f"{copy.name} is gone")
            continue
        taken, problem, readable = projection.adopt_exclusions(copy)
        kept += taken
        if index == 0:
            read = readable
            problems += [problem] if problem is not None else []
    caveats = []
    if problems and (kept or read or exclusions_used(db_path.parent)):
        # said, and kept until exclusions are set again, where there were some to lose: a
        # home that never excluded a session is not told to check (every repair of an
        # unreadable copy would say so, and nothing could end the note)
        why = "; ".join(problems)
        caveats.append(lost_exclusions_caveat(why))
        projection.note_lost_exclusions(why)
    pending_path(db_path).unlink(missing_ok=True)
    return caveats


def finish_interrupted_repair(projection: Projection, db_path: Path, timeout_s: float
                              ) -> dict[str, Any] | None:
    """Take over, in the database just opened, the source exclusions of the copies a
    repair set aside and stopped before the new database held them (a full disk, a
    kill: :data:`PENDING_EXCLUSIONS` names them); the note of that repair, or ``None``
    if none was pending. One ``stat`` when none is."""
    if not pending_path(db_path).exists():
        return None
    with writer_turn(db_path, timeout_s):  # a repair running now finishes its own first
        copies = pending_copies(db_path)
        if not copies:
            if pending_path(db_path).is_file():  # (what is no file of ours is left alone)
                pending_path(db_path).unlink(missing_ok=True)
            return None
        before = set(projection.excluded_sessions())
        caveats = adopt(projection, db_path, copies)
        if projection.has_sources() and set(projection.excluded_sessions()) - before:
            with projection.transaction():
                projection.refold()  # (filled from the ledgers by an older version)
    return {"damaged": str(copies[0]), "problem": "an earlier repair stopped before it"
            " took over the source exclusions; taken over now", "caveats": caveats}


#: a file in the home: a session was excluded here once (see :func:`exclusions_used`)
EXCLUSIONS_USED: Final = "exclusions-used"


def exclusions_used(home: Path) -> bool:
    """Whether a session was ever excluded in ``home``: an unreadable copy's exclusions
    may then have held one. The policy itself lives only in the database; this file says
    only that there was some (``waymarks memory exclude`` writes it)."""
    return (home / EXCLUSIONS_USED).exists()


#: how :func:`lost_exclusions_caveat` starts
LOST_EXCLUSIONS_SAID: Final = "the source exclusions it held could not all be read"


def lost_exclusions_caveat(why: str) -> str:
    """What a repair that could not take over every source exclusion says (``why``: what
    it could not read), and ``health`` after it until an exclusion is set or lifted."""
    return (f"{LOST_EXCLUSIONS_SAID} ({why}): a session"
            " excluded before may count again; check `waymarks memory sources` and exclude"
            " it again with `waymarks memory exclude ID` (or lift one with `memory include"
            " ID`: either ends this note)")
