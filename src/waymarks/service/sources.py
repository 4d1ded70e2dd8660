"""Sessions of this project as sources of project memory: discovery, incremental indexing,
status, and the local policy that withdraws one source's project contributions.

**Discovery.** With ``memory.crossSession`` (the default) and a trusted project, each read
looks at the session files in the project's session directory under the home and under
every configured ``memory.sessionRoots`` (Pi's layout: ``<root>/--<cwd>--/*.jsonl``), the
newest ``memory.maxProjectSessions`` of them besides the active one. A file is accepted
only when its header ``cwd`` resolves to this exact project; a project item naming
another project is never read (the ledger refuses it).

**Incremental.** Each source has a checkpoint (offset, lines, entries, a fingerprint of the
bytes before the offset, the file's size, mtime and ctime) stored in the same transaction
as its rows. A file whose size, mtime and ctime are unchanged is not opened; one that grew
is read from its checkpoint only. Records of many sources are applied together in replay order.

**Status.** ``available``, or why not: ``missing`` (gone; a file of the session found
again in this project's session folders, renamed or moved, is read from there),
``moved`` (its session now at another path), ``truncated`` (shorter than indexed),
``corrupt`` (no readable header, or different bytes before the checkpoint),
``identity-mismatch`` (the header now names another session or project),
``foreign-location`` (the file is not in a directory where its header's project keeps
sessions). An unavailable source's project mutations stop counting until it is available
again; session-scoped items of other sessions are never visible anyway.

**Location.** A file speaks for its project only from that project's own session
directories: the home's, each configured ``sessionRoots``, and Pi's own
(``$PI_CODING_AGENT_DIR/sessions``, default ``~/.pi/agent/sessions``), in Pi's layout
for the header's ``cwd`` (:func:`placement`). A file opened by path anywhere else
(``--session /tmp/shared.jsonl``) is still a session — its own items and writes work —
but registering it by reading it never makes its project items count, incrementally or
after a rebuild: location is a function of path, header and configuration, decided each
time the file is indexed (a configuration change takes effect when the file next grows,
moves, or the index is rebuilt).

**Exclusion.** ``exclude`` withdraws a source's project-scoped pins and memory (adds,
supersedes and status changes of project items) and nothing else. It lives only in
SQLite: a rebuild keeps it, deleting the database resets it, and no session file is ever
rewritten. The active session cannot be newly excluded; an earlier exclusion of it may
be lifted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.files.atomic import write_atomic
from waymarks.files.reading import Stamp, stamp_of
from waymarks.ledger.discovery import in_project_dirs, is_project_session, project_session_dirs
from waymarks.ledger.log import EntryIndex, SessionFileError, SessionLog
from waymarks.ledger.session_file import SessionFile
from waymarks.service.outcomes import Rehearsed, ServiceError
from waymarks.service.ports import epoch_ms
from waymarks.service.recovery import EXCLUSIONS_USED, exclusions_used, extends, recovering
from waymarks.store.projection import FOREIGN_LOCATION
from waymarks.store.reads import KnownSource

if TYPE_CHECKING:  # (the listing: imported where a trusted project reads its others)
    from waymarks.service.app import Waymarks
    from waymarks.service.source_listing import Candidate, Listed

BATCH: Final = 64  # sources indexed per transaction (a long first index stays interruptible)


class SourceView(msgspec.Struct, frozen=True):
    session_id: str
    path: str
    status: str
    contributed: int  # project items this source's mutations hold in the projection
    held_back: int  # project mutations an exclusion or unavailability keeps out
    excluded: bool
    active: bool
    updated_at: int  # when its checkpoint last moved (ms)
    detail: str | None = None
    excluded_reason: str | None = None  # as `memory exclude` was given it

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "path": self.path, "status": self.status,
                "detail": self.detail, "contributed": self.contributed,
                "heldBack": self.held_back, "excluded": self.excluded,
                "excludedReason": self.excluded_reason, "active": self.active,
                "lastIndexedAt": self.updated_at}


class RefreshReport(msgspec.Struct):
    checked: int = 0
    indexed: int = 0  # sources read (new, or grown)
    statuses: dict[str, str] = msgspec.field(default_factory=dict)  # session ID -> new status


def refresh_sources(app: Waymarks, active: SessionLog | None) -> RefreshReport:
    """Discover and index this project's other session files (see the module docstring).
    Call with the projection open; it takes its own transactions."""
    report = RefreshReport()
    settled = active_status(app, active) if active is not None else None
    if active is not None and settled is not None:
        with app.projection.transaction():
            app.projection.set_source_status(active.session_id, *settled,
                                             epoch_ms(app.clock.now()))
    if not app.project_trusted:
        return report
    settings = app.settings()
    if not settings.cross_session:
        return report
    known = app.projection.known_sources(app.cwd)
    active_id = active.session_id if active is not None else None
    listed = _candidates(app, settings.session_roots, active, settings.max_project_sessions)
    candidates = listed.newest
    plan = plan_refresh(known, candidates, active_id)
    by_session = {row.session_id: row for row in known}
    now = epoch_ms(app.clock.now())
    report.checked = len(candidates)
    # the I/O the plan asks for: headers of new files, tails of changed ones
    readers: list[tuple[SessionLog, int, int, int]] = []
    statuses: dict[str, tuple[str, str | None]] = {}
    first_new: dict[str, int] = {}  # a session ID met among new files: where its reader is
    for name, size, mtime, ctime in sorted(plan.new):  # by path, as a rebuild reads them
        reader = _open_new(Path(name), app.cwd)
        if reader is None or reader.session_id == active_id:
            continue
        place = first_new.get(reader.session_id)
        if place is not None:  # two new files of one session: the one a rebuild takes
            if extends(reader, readers[place][0]):
                readers[place] = (reader, size, mtime, ctime)
            continue
        earlier = by_session.get(reader.session_id)
        if earlier is not None and earlier.path != name:
            if Path(earlier.path).exists() and (in_project_dirs(
                    Path(earlier.path), app.cwd, app.home, settings.session_roots)
                    or _same_file(earlier.path, name)):
                continue  # one session, one ledger: a copy is not a second source
            # (indexed from outside this home's folders, a copied home's original: the
            # file here is this home's; the same file by another path, a home reached
            # through a bind mount, is no copy: taken over, it was read again in full,
            # and taken back, by a read through the other path)
            # the indexed file now lives here (renamed, or moved within this project's
            # session folders, the only ones searched): it is read from here on. It was
            # held back as `moved` until a rebuild, which reads it from here anyway
            statuses[earlier.session_id] = ("available", None)
        first_new[reader.session_id] = len(readers)
        readers.append((reader, size, mtime, ctime))
    for (name, size, mtime, ctime), row in plan.changed:
        checked = _check_known(Path(name), row, app.cwd,
                               app.projection.entry_index(row.session_id, row.entries))
        if isinstance(checked, tuple):
            statuses[row.session_id] = checked
        else:
            readers.append((checked, size, mtime, ctime))
            statuses[row.session_id] = ("available", None)
    unlisted = [row for row in plan.unlisted if row.session_id not in statuses]
    from waymarks.service.source_listing import still_there

    there = still_there(listed, [r.path for r in unlisted])
    for row in unlisted:  # indexed files not among the candidates: still there?
        if row.path not in there:
            statuses[row.session_id] = ("missing", None)
    readers.sort(key=lambda r: r[2])  # oldest first: records mostly arrive in replay order
    batches = range(0, len(readers), BATCH) if readers else range(1 if statuses else 0)
    for start in batches:
        batch = readers[start:start + BATCH]
        with app.projection.transaction():
            synced = app.projection.sync_many(
                [r for r, *_stamp in batch], now,
                expected={r.session_id: by_session[r.session_id].offset
                          if r.session_id in by_session else None for r, *_stamp in batch})
            for reader, size, mtime, ctime in batch:
                if reader.session_id not in synced.skipped:
                    app.projection.note_file(reader.session_id, size, mtime, ctime, now)
            if start == 0:  # re-folds only where availability flips
                for session_id, (status, detail) in statuses.items():
                    app.projection.set_source_status(session_id, status, detail, now)
    report.indexed = len(readers)
    report.statuses = {sid: status for sid, (status, _d) in statuses.items()
                       if sid not in by_session or by_session[sid].status != status}
    return report


def siblings_written(app: Waymarks, active: SessionLog) -> bool:
    """Whether this project's other session files were written since the projection read
    them: a new one not found foreign, or an available one changed. A write asks under its
    locks, where its decision is made: :func:`refresh_sources` ran before them, and an
    entry another writer appended between that pass and this write's turn (a writer killed
    before its projection committed) was not seen by the decision."""
    if not app.project_trusted or not (settings := app.settings()).cross_session:
        return False
    plan = plan_refresh(app.projection.known_sources(app.cwd), _candidates(
        app, settings.session_roots, active, settings.max_project_sessions, watch=False
    ).newest, active.session_id)
    return any(row.status == "available" for _candidate, row in plan.changed) or any(
        _REJECTED.get((name, app.cwd), False) != stamp_of(Path(name))
        for name, *_stamp in plan.new)


class RefreshPlan(msgspec.Struct, frozen=True):
    """What a sources pass must look at, decided from what is indexed and what the
    directories hold now, before any file is opened."""

    #: files never indexed: read their header, index them if they are this project's
    new: tuple[Candidate, ...] = ()
    #: indexed files whose size, time or status changed: check, then read their tails
    changed: tuple[tuple[Candidate, KnownSource], ...] = ()
    #: indexed files not among the candidates: missing unless they still exist
    unlisted: tuple[KnownSource, ...] = ()


def plan_refresh(known: Sequence[KnownSource], candidates: Sequence[Candidate],
                 active_id: str | None) -> RefreshPlan:
    """The pure half of :func:`refresh_sources`: an unchanged file (same size, mtime and
    ctime, available) is not even opened; the active session is never a source of itself.
    The ctime, which no program can set, tells a file replaced, or edited in place, with
    its size and mtime kept (``cp -p``, ``rsync -t``, ``touch -r``): it was never opened
    again, its old items served as available while a rebuild read the new ones."""
    indexed = {row.path: row for row in known}
    new: list[Candidate] = []
    changed: list[tuple[Candidate, KnownSource]] = []
    for candidate in candidates:
        row = indexed.get(candidate[0])
        if row is None:
            new.append(candidate)
        elif (row.size, row.mtime_ns, row.ctime_ns, row.status) != (
                *candidate[1:], "available"):
            changed.append((candidate, row))
    listed = {name for name, *_stamp in candidates}
    unlisted = tuple(row for row in known if row.path not in listed
                     and row.session_id != active_id and row.status != "moved")
    return RefreshPlan(tuple(new), tuple(changed), unlisted)


def active_status(app: Waymarks, active: SessionLog) -> tuple[str, str | None] | None:
    """The status the active session's source must get now, if the recorded one is stale:
    it was read just now (in full or from its checkpoint), so whatever an earlier check of
    its file found (missing, truncated, ...) no longer holds; it is available, unless its
    location withholds its project items. ``None``: nothing to change."""
    status = app.projection.source_status(active.session_id)
    if status is None or status in ("available", FOREIGN_LOCATION):
        return None
    return placement(app, active) or ("available", None)


def _candidates(app: Waymarks, roots: tuple[Path, ...], active: SessionLog | None,
                limit: int, *, watch: bool = True) -> Listed:
    """(path, size, mtime, ctime) of this project's session files, newest first, at most
    ``limit`` besides the active one, and every one found. Plain strings: this runs on
    every read, and looks only at what changed since the last
    (:mod:`~waymarks.service.source_listing`)."""
    from waymarks.service.source_listing import newest_sessions

    folders = [str(folder) for folder in project_session_dirs(app.home, roots, app.cwd)]
    return newest_sessions(folders, str(active.path) if active is not None else None, limit,
                           watch=watch)


#: (path, project) -> the stamp (device, inode, size, mtime, ctime) of a file found not to
#: be a session of that project: two projects can share a session directory (``/x/b-c``
#: and ``/x-b/c`` are both ``--x-b-c--``), and one long-lived process serves both. The
#: ctime and inode tell a file rewritten in place or replaced with its size and mtime kept
_REJECTED: dict[tuple[str, str], Stamp | None] = {}


def _same_file(one: str, other: str) -> bool:
    """Whether two paths name one file (``False`` when either cannot be looked at)."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _open_new(path: Path, project: str) -> SessionLog | None:
    """A full reader of a file never indexed, if it is a session of this project. The
    header is checked before the file is read, and a file found foreign to this project
    is not looked at again for it in this process until it changes (one ``stat``)."""
    key = (str(path), project)
    stamp = stamp_of(path)  # before the read: a change made during it is seen next time
    if key in _REJECTED and _REJECTED[key] == stamp:
        return None
    try:
        if not is_project_session(path, project):
            raise SessionFileError("not a session of this project")
        reader = SessionFile.open(path)
    except (SessionFileError, OSError):
        if len(_REJECTED) >= 1024:  # a process that runs for weeks keeps no more
            _REJECTED.clear()
        _REJECTED[key] = stamp
        return None  # not a session of this project: never becomes a source
    return reader if reader.project == project else None


#: (path, header cwd, home) -> whether the file lies in the home's directory for that cwd
_IN_HOME: dict[tuple[str, str, str], bool] = {}


def pi_sessions_root() -> Path:
    """Where Pi keeps its own sessions (``$PI_CODING_AGENT_DIR/sessions``)."""
    return Path(os.environ.get("PI_CODING_AGENT_DIR") or "~/.pi/agent").expanduser() / \
        "sessions"


def placement(app: Waymarks, session: SessionLog) -> tuple[str, str] | None:
    """``None`` if ``session``'s file lies where its header's project keeps sessions (see
    the module docstring), else (``foreign-location``, why): its project mutations are
    then held back. Set as the projection's :attr:`~Projection.placement`."""
    header = session.header
    if header is None:
        return None  # not a session at all: nothing of it is indexed
    key = (str(session.path), header.cwd, str(app.home))
    in_home = _IN_HOME.get(key)
    if in_home is None:  # every write saves its source: the common answer is remembered
        if len(_IN_HOME) >= 1024:
            _IN_HOME.clear()
        in_home = _IN_HOME[key] = in_project_dirs(session.path, header.cwd, app.home, ())
    if in_home:
        return None
    roots = app.settings().session_roots
    if in_project_dirs(session.path, header.cwd, app.home, (*roots, pi_sessions_root())):
        return None
    return (FOREIGN_LOCATION, f"not in a session directory of {header.cwd} "
            f"(such as {project_session_dirs(app.home, (), header.cwd)[0]})")


def _check_known(path: Path, row: KnownSource, project: str, index: EntryIndex | None
                 ) -> SessionLog | tuple[str, str | None]:
    """A reader of what an indexed file holds past its checkpoint, or (status, detail)
    saying why the file is no longer the source that was indexed.

    With the store's ``index`` of the entries before the checkpoint, the reader knows
    their IDs: a line appended later reusing one is a duplicate, skipped as a reader of
    the whole file skips it (without, it was applied, gone after a rebuild, and its row
    replaced the earlier entry's in the index)."""
    try:
        probe = SessionFile(path)  # nothing read yet: header and fingerprint first
        if probe.read_header_line() is None:
            return ("corrupt", "no complete header line")
        size = os.path.getsize(path)
        if size < row.offset:
            return ("truncated", f"{size} bytes, indexed to {row.offset}")
        if row.fingerprint and probe.fingerprint(row.offset) != row.fingerprint:
            return ("corrupt", "different bytes before the checkpoint")
        reader: SessionLog | None = None
        if row.offset and index is not None and row.fingerprint:
            reader = SessionFile.open_at(path, row.offset, row.lines, row.entries,
                                         row.fingerprint, index)
        if reader is None:
            reader = (SessionFile.resume(path, row.offset, row.lines, row.entries)
                      if row.offset else SessionFile.open(path))
    except SessionFileError:
        return ("corrupt", "first line is not a session header")
    except OSError as exc:
        return ("missing", type(exc).__name__)
    if reader.session_id != row.session_id or reader.project != project:
        return ("identity-mismatch", "the header names another session or project")
    return reader


@recovering
def list_sources(app: Waymarks, limit: int = 1000) -> list[SourceView]:
    """The session files of this project the projection knows, newest first."""
    session = app.refresh()
    active = session.session_id if session is not None else None
    views = [SourceView(sid, path, status, contributed, held, excluded, sid == active,
                        updated, detail)
             for sid, path, status, detail, contributed, held, excluded, updated
             in app.projection.project_sources(app.cwd, limit)]
    if any(view.excluded for view in views):
        _exclusions_were_used(app)  # (a home that excluded before the file existed)
        reasons = app.projection.excluded_sessions()
        views = [msgspec.structs.replace(view, excluded_reason=reasons.get(view.session_id))
                 if view.excluded else view for view in views]
    return views


@recovering
def session_files(app: Waymarks) -> list[Path]:
    """The session ledgers this home reads: the active session's, wherever it was opened
    (``--session /tmp/shared.jsonl``), and every file the database has indexed."""
    active = app.current_session()
    files = [Path(path) for path in app.projection.source_paths()]
    return files if active is None else [Path(active.path), *files]


def _exclusions_were_used(app: Waymarks) -> None:
    """Say in the home that a session was excluded here (:func:`exclusions_used`)."""
    if not exclusions_used(app.home):
        write_atomic(app.home / EXCLUSIONS_USED, b"", mode=0o600)


@recovering
def set_source_excluded(app: Waymarks, session_id: str, excluded: bool,
                        reason: str | None = None) -> bool:
    """Exclude (or include again) one source; returns whether the policy changed."""
    session = app.refresh()
    if excluded and session is not None and session.session_id == session_id:
        # how to get another (it said only "from another session"; inside Pi, switching
        # sessions is Pi's own, and `session` no command of its /context)
        how = (f": start one with `{app.command_prefix} session new`, then exclude this"
               f" one, {session_id}" if app.command_prefix == "waymarks" else "")
        raise ServiceError("active_source", "The active session cannot be excluded; exclude "
                           f"it from another session{how}")
    from waymarks.core.text import escaped, unknown_id

    unknown = ServiceError("not_found", unknown_id("session", session_id,
                                                   f"of {escaped(app.cwd)}",
                                                   "waymarks memory sources"))
    if not app.projection.is_project_source(session_id, app.cwd) and (
            excluded or session_id not in app.projection.excluded_sessions()):
        # an include of a session neither known nor excluded: refused here, before a
        # confirmation is asked (the inspector asked, then refused after the yes)
        raise unknown
    if app.rehearsing:
        raise Rehearsed("source exclusion")
    if excluded:  # before the exclusion: a repair may ask for it
        _exclusions_were_used(app)
    with app.projection.transaction():
        changed = app.projection.set_excluded(session_id, excluded, reason=reason,
                                              now_ms=epoch_ms(app.clock.now()))
    return changed
