"""Team memory, read side: the repository's team ledger as a source of project memory.

**Source.** Each contributor file of ``<project>/.waymarks/team/`` is a source, like a
session file in :mod:`waymarks.service.sources`: a checkpoint (offset, entries, the hash
of the last line and where it starts, inode, size, mtime and ctime) per file, a status, and a local
exclusion. Nothing is read for an untrusted project (the same trust as project scope).

**Incremental.** A file whose inode, size, mtime and ctime are unchanged is not opened
(the ctime: a line rewritten in place, the mtime set back, is read). The same file grown,
whose checkpoint line still carries the recorded hash, is read from the checkpoint only;
anything else is read and verified whole. New entries that sort after everything
folded are applied in place (:class:`waymarks.core.team.TeamFold`); otherwise, and when a
source's standing changes, the fold is redone from the entries held in memory.

**Statuses.** ``available``; ``tampered`` (a line breaks the hash chain: edited,
reordered, foreign or damaged); ``truncated`` (fewer entries than this home has seen
from it); ``rewritten`` (the entry this home anchored has another hash); ``missing``
(the file is gone); ``foreign`` (this home's own file holds entries past the last one it
appended, which is still the one it wrote, and not entries it wrote itself before
``team accept`` lowered that note: someone else wrote to it; changed, the file is
``rewritten``; see :mod:`waymarks.service.team_own`). Every status but ``available``,
and an exclusion, withdraws *all* of that contributor's items until the file is repaired
(for example restored from git) or the exclusion lifted. A chain break is found by
every clone alike; truncation and a rewrite with a recomputed chain are found against
this home's anchor (the entry count and head hash it last accepted, journalled in
``<home>/team/<project-hash>.anchors.jsonl`` with the exclusions: local, derived, never
canonical; see :func:`_journal`, and :mod:`~waymarks.service.team_anchors` for a moved
checkout's).

**Identity.** Items carry the team partition (:data:`waymarks.core.team.TEAM_PROJECT`)
rather than the clone's path, so every clone's listing is the same bytes.
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.bulk import gc_paused
from waymarks.core.team import (
    TeamEntry,
    TeamFold,
    removal_from_row,
    removal_of,
    removal_row,
)
from waymarks.files.atomic import write_atomic
from waymarks.files.locks import holding, open_lock
from waymarks.files.reading import Stamp, stamp_of
from waymarks.ledger import TEAM_DIR
from waymarks.ledger.team import (
    TeamDirectoryUnreadable,
    anchor_holds,
    list_files,
    read_chain,
)
from waymarks.service import team_own
from waymarks.service.outcomes import ServiceError
from waymarks.service.team_anchors import anchors_path, checkout_row, load_anchors
from waymarks.service.team_identity import contributor_path, stored_id
from waymarks.service.team_own import AVAILABLE as AVAILABLE  # (the statuses, there with
from waymarks.service.team_own import FOREIGN as FOREIGN  # the judgement that gives them)

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: a fold this large is frozen out of the cyclic collector's scans (see :func:`refresh`)
FREEZE_FROM: Final = 20_000


@dataclass(slots=True)
class SourceState:
    """One contributor file as this process last read it."""

    contributor: str
    path: str
    size: int = -1
    mtime_ns: int = -1
    ino: int = -1  # the file read: another one at the path is read whole again
    ctime_ns: int = -1  # changed in place (the size and mtime kept): read again
    offset: int = 0
    count: int = 0
    head: str = ""
    head_start: int = 0
    entries: list[TeamEntry] = field(default_factory=list)
    status: str = AVAILABLE
    detail: str | None = None
    lines: int = 0  # complete lines, the unverified ones after a break included
    partial: str | None = None  # why a last line without its newline was left out
    #: what its verified entries take out of the fold (:func:`removal_of`)
    removals: list[TeamEntry] = field(default_factory=list)


@dataclass(slots=True)
class TeamState:
    """Everything read of one project's team ledger in this process."""

    project: str
    sources: dict[str, SourceState] = field(default_factory=dict)
    anchors: dict[str, dict[str, Any]] = field(default_factory=dict)  # persisted
    fold: TeamFold = field(default_factory=TeamFold)
    loaded: bool = False
    #: the anchors file's stamp when last read or written here: another process
    #: (``waymarks team exclude`` beside a long-lived host) changing it is noticed
    anchors_stamp: Stamp | None = None
    journal_lines: int = 0
    frozen_at: int = 0  # entries held when the collector last froze them
    #: why the team directory could not be listed at the last refresh (else ``None``)
    problem: str | None = None
    #: this home's contributor ID (read with the anchors), ``None`` before its first share
    me: str | None = None
    #: the removals of withdrawn contributors the fold holds, (contributor, entry ID)
    folded_removals: frozenset[tuple[str, str]] = frozenset()


#: (home, project) -> what this process read of that project's team ledger, the most
#: recently read last; at most :data:`KEPT_PROJECTS` (one read again is read whole)
_STATES: dict[tuple[str, str], TeamState] = {}
KEPT_PROJECTS: Final = 16


def team_dir(app: Waymarks) -> Path:
    return Path(app.cwd) / TEAM_DIR


#: journal lines past which the anchors file is rewritten whole (compacted)
COMPACT_AFTER: Final = 4096


def note_own(app: Waymarks, me: str, entry: TeamEntry) -> None:
    """Journal that this home appended ``entry`` to its own file (under that file's lock,
    and the policy lock, so a compaction of the anchors cannot drop it): an entry beyond
    the last one noted was written by someone else (:func:`_judge`). Derived state, noted
    once the entry is durable: a note that cannot be kept (a directory in the journal's
    place, a home that cannot take it) leaves the write committed, and the home's record
    of what it wrote (:func:`team_own.note_written`) tells the entry for its own; it
    answered "nothing was acknowledged" with the entry in the file."""
    try:
        with _policy_turn(app):
            team_own.note_written(app.home, entry.hash)  # (kept when `accept` lowers it)
            path = anchors_path(app)
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"c": me, "ownSeq": entry.seq,
                                         "ownHead": entry.hash}) + "\n")
    except (OSError, ServiceError):
        return


def _anchors_stamp(app: Waymarks) -> Stamp | None:
    return stamp_of(anchors_path(app))


def _journal(app: Waymarks, state: TeamState, moved: dict[str, list[Any]]) -> None:
    """Record moved anchors by appending one line each. Not ``fsync``ed: a power cut
    can only lose the newest advance, so a later truncation of the entries it covered
    goes unnoticed here once (chain breaks are still found); nothing canonical is lost.
    Past :data:`COMPACT_AFTER` lines the file is rewritten whole (:func:`_compacted`)."""
    if state.journal_lines + len(moved) > COMPACT_AFTER and _compacted(app, state, moved):
        return
    path = anchors_path(app)
    data = "".join(json.dumps({"c": c, "count": state.anchors[c]["count"],
                               "head": state.anchors[c]["head"], "retracts": rows}) + "\n"
                   for c, rows in moved.items())
    try:  # derived state: one that cannot be written (a directory there) is as a power cut
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(data)
    except OSError:
        return
    state.journal_lines += len(moved)
    state.anchors_stamp = _anchors_stamp(app)


def _compacted(app: Waymarks, state: TeamState, moved: dict[str, list[Any]]) -> bool:
    """Rewrite the anchors file whole from what it holds now, with this read's advances:
    under the policy lock, so an exclusion another terminal made since this process read
    the file is kept (rewritten from this read's copy, it was undone). ``False`` when the
    lock cannot be had: the advances are journalled instead, compacted another time."""
    try:
        with _policy_turn(app):
            counted = {c: counts(state, c) for c in state.sources}
            anchors, _lines = load_anchors(app)
            for contributor, rows in moved.items():
                mine = state.anchors[contributor]
                anchor = anchors.setdefault(contributor, {})
                anchor.update(count=mine["count"], head=mine["head"])
                anchor.setdefault("retracts", []).extend(rows)
            state.anchors = anchors
            save_anchors(app, state)
    except ServiceError:
        return False
    if any(counts(state, c) != was for c, was in counted.items()):
        _refold(state)  # the other terminal's exclusion, followed at once
    return True


def save_anchors(app: Waymarks, state: TeamState) -> None:
    """Rewrite the anchors file whole and durably (exclusions, compaction)."""
    path = anchors_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    for anchor in state.anchors.values():
        if isinstance(anchor.get("retracts"), list):  # (two processes journalled one)
            anchor["retracts"] = list({json.dumps(r): r for r in anchor["retracts"]}.values())
    rows = [json.dumps({"c": c, **anchor}, sort_keys=True)
            for c, anchor in sorted(state.anchors.items())]
    named = checkout_row(app.cwd)  # (team_anchors: what finds them once it is moved)
    write_atomic(path, (named or "") + "".join(row + "\n" for row in rows), mode=0o600)
    state.journal_lines = len(rows)
    state.anchors_stamp = _anchors_stamp(app)


def seen_before(state: TeamState, contributor: str) -> int:
    """The most entries of ``contributor``'s file this home has seen or appended."""
    a = state.anchors.get(contributor, {})
    return max(n if isinstance(n, int) else 0 for n in (a.get("count"), a.get("ownSeq")))


def counts(state: TeamState, contributor: str) -> bool:
    """Whether a contributor's items are in the fold."""
    source = state.sources.get(contributor)
    excluded = bool(state.anchors.get(contributor, {}).get("excluded"))
    return source is not None and source.status == AVAILABLE and not excluded


def _damaged(state: TeamState, contributor: str) -> bool:
    """Whether a contributor's file is here but withdrawn for what was done to it
    (tampered, truncated, rewritten, foreign): not gone, and not excluded by the person."""
    source = state.sources.get(contributor)
    return source is not None and source.status not in (AVAILABLE, "missing") and not bool(
        state.anchors.get(contributor, {}).get("excluded"))


def _removals(state: TeamState) -> dict[tuple[str, str], TeamEntry]:
    """What damaged contributor files took out of the fold: the removals of their
    verified entries read here, and those of the history this home accepted from them
    (kept with the anchor: the file may since have lost them). Not those of a file that
    is gone (a branch where it does not exist yet: a review on another branch hid its
    items here for good) or that the person excluded (exclusion is the remedy against a
    hostile file, its removals included); ``team accept`` takes a damaged file as it is."""
    found: dict[tuple[str, str], TeamEntry] = {}
    for contributor, source in state.sources.items():
        if _damaged(state, contributor):
            found.update(((contributor, e.id), e) for e in source.removals)
    for contributor, anchor in state.anchors.items():
        rows = anchor.get("retracts")
        if isinstance(rows, list) and rows and _damaged(state, contributor):
            for row in rows:
                removal = removal_from_row(contributor, row)
                if removal is not None:
                    found.setdefault((contributor, removal.id), removal)
    return found


def _refold(state: TeamState) -> None:
    removals = _removals(state)
    state.fold = TeamFold.of([*(e for c, s in sorted(state.sources.items())
                                if counts(state, c) for e in s.entries),
                              *removals.values()])
    state.folded_removals = frozenset(removals)
    state.fold.refolds += 1


def fold_counting_excluded(state: TeamState) -> TeamFold:
    """The fold a teammate who excludes no one makes of what is read here: the files this
    home excludes count (a write is judged against it, not only against this home's)."""
    return TeamFold.of([*(e for _c, s in sorted(state.sources.items())
                          if s.status == AVAILABLE for e in s.entries),
                        *_removals(state).values()])


def _removals_of(entries: list[TeamEntry]) -> list[TeamEntry]:
    return [r for r in map(removal_of, entries) if r is not None]


def _retracts(state: TeamState, contributor: str, removals: list[TeamEntry]) -> list[Any]:
    """The rows the anchor keeps of ``removals``: those of another contributor's item
    (one's own items are withdrawn with one's file anyway)."""
    rows = []
    for removal in removals:
        owner = state.fold.entries.get(removal.target_id or "")
        if owner is None or owner.contributor != contributor:
            rows.append(removal_row(removal))
    return rows


def _judge(app: Waymarks, source: SourceState, anchor: dict[str, Any] | None,
           own: bool) -> None:
    team_own.judge(source, anchor, app.home if own else None)


def refresh(app: Waymarks) -> TeamState:
    """Bring this process's view of the team ledger up to date (see the module
    docstring). An untrusted project has an empty one. The cyclic collector is paused
    meanwhile (:mod:`waymarks.core.bulk`): entries and states form no cycles, and a
    generation-2 pass over a large fold would cost more than the refresh."""
    with gc_paused():
        state = _refresh(app)
    held = len(state.fold.entries)
    if held >= FREEZE_FROM and held >= 2 * state.frozen_at:
        # a large fold lives as long as the process: move it out of the collector's
        # reach, or every full collection rescans it (about a second per 100,000
        # entries). Its objects form no cycles, so reference counting still frees them
        # once a refold drops them; it is done again when the ledger has doubled.
        gc.freeze()
        state.frozen_at = held
    return state


def _refresh(app: Waymarks) -> TeamState:
    if not app.project_trusted:
        return TeamState(app.cwd)
    key = (str(app.home), app.cwd)
    state = _STATES.pop(key, None)  # kept again last: the most recently read
    if state is None:
        state = TeamState(app.cwd)
        while len(_STATES) >= KEPT_PROJECTS:  # a process serving every project (the
            del _STATES[next(iter(_STATES))]  # Claude Code helper) for weeks
    _STATES[key] = state
    refold = False
    stamp = _anchors_stamp(app)
    if not state.loaded or stamp != state.anchors_stamp:
        # first read here, or another process changed the anchors (an exclusion, say):
        # a long-lived host must stop showing an excluded contributor's items at once
        counted = {c: counts(state, c) for c in state.sources}
        state.anchors, state.journal_lines = load_anchors(app)
        state.anchors_stamp = stamp
        state.me = stored_id(contributor_path(app))
        own = state.sources.get(state.me or "")
        if own is not None and own.status == FOREIGN:
            # read between this home's append and its note of it (another process of
            # the home): judged again against the note, the file itself unchanged
            own.status, own.detail = AVAILABLE, None
            _judge(app, own, state.anchors.get(own.contributor), True)
        refold = state.loaded and any(counts(state, c) != was for c, was in counted.items())
        state.loaded = True
    try:
        files = list_files(team_dir(app))
    except TeamDirectoryUnreadable as problem:
        _withdraw_all(state, str(problem))
        return state
    state.problem = None
    fresh: list[TeamEntry] = []
    moved: dict[str, list[TeamEntry]] = {}  # anchors advanced -> the removals they add
    listed = set()
    for file in files:
        listed.add(file.contributor)
        source = state.sources.get(file.contributor)
        if source is not None and source.status != "unreadable" and (
                source.size, source.mtime_ns, source.path, source.ino, source.ctime_ns) == (
                file.size, file.mtime_ns, file.path, file.ino, file.ctime_ns):
            continue  # (an unreadable file is tried again: a chmod changes no mtime)
        was_counting = counts(state, file.contributor)
        arrived = False
        if (source is not None and source.status == AVAILABLE and source.count
                and file.ino == source.ino and file.size > source.size >= source.offset
                and anchor_holds(file.path, source.head_start, source.offset, source.head)):
            read = read_chain(file.path, file.contributor, offset=source.offset,
                              count=source.count, head=source.head,
                              head_start=source.head_start)
            source.entries.extend(read.entries)
            source.removals.extend(_removals_of(read.entries))
            if was_counting:
                fresh.extend(read.entries)
        else:
            read = read_chain(file.path, file.contributor)
            arrived = source is None  # a new contributor: its entries may fold in place
            if source is not None:
                refold = refold or was_counting or bool(read.entries)
            source = SourceState(file.contributor, file.path, entries=read.entries,
                                 removals=_removals_of(read.entries))
            state.sources[file.contributor] = source
        source.size, source.mtime_ns, source.ino = file.size, file.mtime_ns, file.ino
        source.ctime_ns = file.ctime_ns
        source.offset, source.count = read.offset, read.count
        source.lines, source.partial = read.lines, read.partial
        source.head, source.head_start = read.head, read.head_start
        source.status, source.detail = AVAILABLE, None
        if read.unreadable is not None:
            source.status, source.detail = "unreadable", read.unreadable
        elif read.broken is not None:
            source.status, source.detail = "tampered", read.broken
        _judge(app, source, state.anchors.get(file.contributor),
               file.contributor == state.me)
        if source.status == FOREIGN:
            _judge_after_append(app, state, source)
        if source is not None and read.entries and arrived and counts(state, file.contributor):
            fresh.extend(read.entries)
        elif counts(state, file.contributor) != was_counting:
            refold = True
        if source.status == AVAILABLE:
            anchor = state.anchors.setdefault(file.contributor, {})
            if anchor.get("count") != source.count or "retracts" not in anchor:
                # (no retracts: an anchor older than them, whose whole history is read)
                seen = anchor.get("count") if "retracts" in anchor else 0
                start = seen if isinstance(seen, int) and 0 < seen <= source.count else 0
                anchor.update(count=source.count, head=source.head)
                moved[file.contributor] = _removals_of(source.entries[start:])
    for contributor, source in list(state.sources.items()):
        if contributor not in listed and source.status != "missing":
            refold = refold or counts(state, contributor)
            source.status, source.detail, source.size = "missing", "the file is gone", -1
    if refold or set(_removals(state)) != state.folded_removals:
        _refold(state)
    elif fresh:  # older entries than ones folded rewind only what follows them
        state.fold.add(fresh)
    if moved:  # (after the fold: whose items the removals take out is known)
        rows = {c: _retracts(state, c, removals) for c, removals in moved.items()}
        for contributor, added in rows.items():
            state.anchors[contributor].setdefault("retracts", []).extend(added)
        _journal(app, state, rows)
    return state


def _withdraw_all(state: TeamState, problem: str) -> None:
    """The directory cannot be listed: every file this process knows is withdrawn as
    unreadable (each is read again once it can be listed), and ``team status`` says why;
    the person's own pins and memory are planned as ever."""
    state.problem = problem
    refold = False
    for contributor, source in state.sources.items():
        refold = refold or counts(state, contributor)
        source.status, source.detail = "unreadable", problem
    if refold:
        _refold(state)


def _judge_after_append(app: Waymarks, state: TeamState, source: SourceState) -> None:
    """Judge this home's own file again once no append of it is under way: another
    process of the home appends its entry and then notes it, both under the file's
    exclusive lock, and a read between the two took its own entry for someone else's
    (a second terminal's share was refused). A shared lock waits for the note; the
    anchors are read again. Non-blocking tries for up to 2 s: this process may hold the
    exclusive lock itself (a refresh inside its own append), and then it stays foreign."""
    try:
        fd = os.open(source.path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        deadline = time.monotonic() + 2.0
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
        # only the notes of this home's own appends are taken (the rest of the anchors
        # this refresh holds may be ahead of the file: it journals them at its end)
        noted = load_anchors(app)[0].get(source.contributor, {})
        state.anchors.setdefault(source.contributor, {}).update(
            {k: v for k, v in noted.items() if k in ("ownSeq", "ownHead")})
    except OSError:
        return
    finally:
        os.close(fd)  # (and its lock)
    source.status, source.detail = AVAILABLE, None
    _judge(app, source, state.anchors.get(source.contributor), True)


@contextmanager
def _policy_turn(app: Waymarks) -> Iterator[None]:
    """Hold this project's anchors for a read-modify-write (an exclusion, an accepted
    history): two terminals changing them at once must not drop each other's change.
    A project that is not trusted is refused first (nothing is created for it)."""
    if not app.project_trusted:  # its team ledger is not read, so not its policy either
        raise ServiceError("untrusted", f"{app.cwd} is not trusted; trust it first "
                           "(`waymarks trust .`)")
    path = anchors_path(app).with_suffix(".lock")
    held = _HELD.__dict__.setdefault("paths", set())
    if path in held:  # the refresh inside a turn compacting the anchors: this thread's
        yield
        return
    try:
        fd = open_lock(path)
    except OSError as problem:
        raise ServiceError("io_error", f"the team policy lock in {app.home} cannot be "
                           f"opened ({problem.strerror}); remove whatever is there") from None
    with holding(fd):
        held.add(path)
        try:
            yield
        finally:
            held.discard(path)


#: the policy locks this thread holds (a second ``flock`` of its own would wait for ever)
_HELD = threading.local()


def _policy_state(app: Waymarks) -> TeamState:
    """The team state with the anchors as they are on disk now (under
    :func:`_policy_turn`): what another process decided since this one read them."""
    state = refresh(app)
    state.anchors, state.journal_lines = load_anchors(app)
    return state


def set_excluded(app: Waymarks, contributor: str, excluded: bool,
                 reason: str | None = None) -> bool:
    """Withdraw (or restore) a contributor's items here; returns whether it changed. The
    reason is checked as every other reason (a credential in it is refused: it was kept in
    the home and printed by every `team status`)."""
    from waymarks.core.decisions import Rejected, clean_reason

    if excluded:
        cleaned = clean_reason(reason)
        if isinstance(cleaned, Rejected):
            raise ServiceError(cleaned.code, cleaned.message, request=True)
        reason = cleaned
    with _policy_turn(app):
        state = _policy_state(app)
        if contributor not in state.sources:
            from waymarks.core.text import unknown_id

            raise ServiceError("not_found", unknown_id(
                "contributor", contributor, "in this repository's team ledger",
                "waymarks team status"))
        if excluded and contributor == stored_id(contributor_path(app)):
            raise ServiceError("own_contributor", f"{contributor} is your own ID: your team "
                               "writes would go to everyone, withdrawn only here; withdraw "
                               "an item for all with `waymarks team unshare TEAM_ID`")
        anchor = state.anchors.setdefault(contributor, {})
        kept = bool(anchor.get("excluded")) == excluded
        # a new reason for an exclusion that stands is kept (it said "Nothing changed.")
        if kept and not (excluded and reason and anchor.get("reason") != reason):
            return False
        anchor["excluded"] = excluded
        anchor.pop("reason", None)
        if reason and excluded:
            anchor["reason"] = reason
        save_anchors(app, state)
    if not kept:
        _refold(state)
    return True


def accept(app: Waymarks, contributor: str) -> bool:
    """Take a contributor file's present history as the one seen here; returns whether
    anything changed. For a history that is shorter or different than this home saw but
    verifies on its own: one's own unpushed shares undone with ``git reset``, a branch
    switch, a rewrite the team agreed on, one's own file gone (an empty history). Never a
    chain that does not verify (restore it from git). The anchor moves; its items count again."""
    with _policy_turn(app):
        state = _policy_state(app)
        source = state.sources.get(contributor)
        if source is None or source.status == "missing":
            if contributor != state.me or not seen_before(state, contributor):
                raise ServiceError("not_found", f"no team file for {contributor}; see "
                                   "`waymarks team status`")
            source = SourceState(contributor, "")  # one's own, gone: the next share begins it
        elif source.status == AVAILABLE:
            return False
        elif source.status not in ("truncated", "rewritten") and not (
                source.status == FOREIGN and contributor == state.me):
            raise ServiceError("not_acceptable", f"{contributor}'s file is {source.status} "
                               f"({source.detail}); only a history whose chain verifies can "
                               "be accepted: restore the file from git")
        anchor = state.anchors.setdefault(contributor, {})
        anchor.update(count=source.count, head=source.head)
        written = {e.item_id for e in source.entries if e.item_id is not None}
        anchor["retracts"] = [removal_row(r) for r in source.removals
                              if r.target_id not in written]
        if contributor == state.me:  # the person says this is what they wrote (a
            # shorter history too: an entry later written past it is someone else's)
            anchor.update(ownSeq=source.count, ownHead=source.head)
        save_anchors(app, state)
    source.status, source.detail = AVAILABLE, None
    _refold(state)
    return True


def forget_process_state() -> None:
    """Drop what this process read (tests and benchmarks measure a fresh process)."""
    _STATES.clear()
