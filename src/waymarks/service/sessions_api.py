"""Session use cases: start, list, show, say, branch (``waymarks session …``).

Kept apart from the application object so ``app.py`` holds the request lifecycle and the
write path; these read and append through the same session and projection it opens.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from waymarks.ledger.discovery import (
    in_project_dirs,
    ledger_of,
    list_sessions,
    newest_name_ms,
    newest_session,
    passed_over_note,
    read_header,
    resolve_session,
    session_dir,
    session_file_name,
)
from waymarks.ledger.entries import recent_messages
from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.log import SessionFileError, SessionLog
from waymarks.ledger.session_file import SessionBusy, SessionFile, not_a_file
from waymarks.service.api_args import message_text
from waymarks.service.outcomes import ServiceError, io_errors
from waymarks.service.ports import epoch_ms, iso
from waymarks.service.views import SessionInfo
from waymarks.store.projection import ProjectionDamaged

if TYPE_CHECKING:
    from waymarks.ledger.host import Checkpoint
    from waymarks.service.app import Waymarks

_S = TypeVar("_S", bound=SessionLog)


def open_session(app: Waymarks, path: Path, *, named: bool = False) -> SessionFile:
    """A session file opened as cheaply as the projection allows: at the checkpoint it
    was indexed to, reading only what follows, when the projection holds the entries
    before it and the bytes there are the ones indexed; else read whole. (A start
    costs what changed since, not the ledger's length.) ``named``: the file a command
    named (``--session PATH``), refused if its session is indexed from another file
    that is still there (:func:`_refuse_copy`)."""
    header = read_header(path)
    if named and header is not None:
        _refuse_copy(app, path, header.id)
    found = None
    if header is not None:
        try:
            found = app.projection.checkpoint_of(header.id)
            at = _indexed_to(app, path, header.id, found)
            if at is not None:
                opened = SessionFile.open_at(path, *at)
                if opened is not None and opened.session_id == header.id:
                    return opened
        except (sqlite3.Error, ProjectionDamaged, ServiceError):
            return SessionFile.open(path)  # the database answers later, or is rebuilt
    whole = SessionFile.open(path)
    if (found is not None and found[0] == str(path) and found[3]
            and whole.fingerprint(found[1]) == found[4]):
        # indexed before the entry index existed: fill it, so the next start is cheap
        with contextlib.suppress(sqlite3.Error, ProjectionDamaged), \
                app.projection.transaction():
            app.projection.index_entries(whole, found[3])
    return whole


def _indexed_to(app: Waymarks, path: Path, session_id: str,
                found: tuple[str, int, int, int, str] | None) -> Checkpoint | None:
    """Where the projection stopped reading ``session_id`` from ``path`` (``found``: its
    checkpoint), with its index of the entries before; ``None``: not indexed from there."""
    if found is None or found[0] != str(path):
        return None
    _path, offset, lines, entries, fingerprint = found
    index = app.projection.entry_index(session_id, entries)
    return None if index is None else (offset, lines, entries, fingerprint, index)


def host_checkpoint(app: Waymarks, path: Path, session_id: object) -> Checkpoint | None:
    """Where the projection stopped reading the session a host sent (Pi's, its file at
    ``path``), for :meth:`.HostSessionLog.start`: a start reads only what the host
    recorded since (``None``: not indexed, or the database does not answer now)."""
    if not isinstance(session_id, str):
        return None
    try:
        return _indexed_to(app, path, session_id, app.projection.checkpoint_of(session_id))
    except (sqlite3.Error, ProjectionDamaged, ServiceError):
        return None  # the database answers later, or is rebuilt: read it whole


def _refuse_copy(app: Waymarks, path: Path, session_id: str) -> None:
    """Refuse (``bad_session``, the request's: exit 2) a session file named by
    ``--session`` whose session is indexed from another file still there: a copy of it.
    One session has one ledger (`rebuild-index` skips such a copy): opened, the copy took
    over the session's indexed path and status, and a copy outside the project's session
    directories held every project item of the session back, for the whole project. A
    file found again at a new path (the indexed one is gone) is the session's, moved; so
    is one in this home's folders of the project indexed from outside them: a copy of a
    home (``cp -a``) indexed the original's, and its own sessions were refused, with the
    advice to use the original home's file."""
    try:
        known = app.projection.source_path(session_id)
        roots = app.settings().session_roots
    except (sqlite3.Error, ProjectionDamaged, ServiceError):
        return  # the database answers later, or is rebuilt
    indexed = Path(known) if known is not None else path
    if indexed == path or not indexed.exists() or (
            in_project_dirs(path, app.cwd, app.home, roots)
            and not in_project_dirs(indexed, app.cwd, app.home, roots)):
        return
    with contextlib.suppress(OSError):
        if indexed.samefile(path):  # the same file by another name
            return
    raise ServiceError("bad_session", (
        f"{path} holds session {session_id}, which is indexed from {indexed}: it is a copy "
        "of that session, and one session has one ledger. Nothing was read or written; use "
        f"--session {indexed}, or start a session of its own with `waymarks session new`"),
        request=True)


def follow_newest(app: Waymarks) -> None:
    """For a process that outlives commands (the web inspector), started on the newest
    session of its project: act on the newest one now, as a new command would. After
    ``waymarks session new`` it stayed on the old one, and what it wrote went there. A
    session named at the start (``--session``) or handed over by a host stays. With none
    left (the one in use deleted), it lets that one go, as a new command starts without
    one: a read answers as before the first session, the next write makes one. It kept
    the deleted one, and every tool was unavailable until a command made a session."""
    if not app.follows_newest:
        return
    passed: list[Path] = []  # a newer file cut short, named as a new command names it
    newest = newest_session(app.home, app.cwd, passed)
    app._passed_over(passed, started=False)
    bound = app.bound_session  # (one whose file is gone is let go: :func:`still_there`)
    if newest is not None and (bound is None or Path(bound.path) != newest):
        app.bind_session(app.open_session(newest))


def passed_over_named(files: Sequence[Path]) -> dict[str, Any]:
    """What a model is told of the newer session files cut short that an answer passed
    over (``memory_recall``'s ``passedOver``): their names, never their paths (a home's
    path holds the person's user name, and a session folder's name the project's path;
    the command line and ``health`` name the paths), and the note a command gives, of
    those names."""
    names = [Path(path.name) for path in files]
    return {"files": [str(name) for name in names],
            "message": passed_over_note(names, started=False)}


def named_session(app: Waymarks) -> str | None:
    """What ``--session`` would name the session ``app`` acts on, when one was named at
    its start (``None``: it follows the project's newest, or the one named cannot be
    opened, which its refusal says): the session's ID when that names this session in
    its project, else its file (a copy elsewhere, one of two files of one ID)."""
    if app.follows_newest:
        return None
    try:
        session = app.current_session()
    except ServiceError:
        return None
    if session is None:
        return None
    path = Path(session.path).resolve()
    try:
        if resolve_session(app.home, app.cwd, session.session_id).resolve() == path:
            return session.session_id
    except (SessionFileError, OSError):
        pass
    return str(path)


def still_there(session: SessionLog | None, looked_up: bool) -> bool:
    """Whether ``session``'s file is still there to act on (``None``: no session, no
    change). A file deleted (or a directory put in its place) while an app held it broke
    the app for good: every call raised a raw ``FileNotFoundError`` (``IsADirectoryError``),
    after ``close()`` too, and the tools answered "unavailable" until the process ended.
    Not there, it is looked for again as a new command would (``False``; ``looked_up``:
    the app looks its session up): the project's newest, or none (a read answers as before
    the first session, the next write makes one), or the one named by ``--session``,
    refused (``bad_session``) if it is gone. A session file handed over (``session=``)
    cannot be looked for again: refused (``bad_session``). A file that cannot be looked at
    is kept (the error it causes says why); a host's ledger (Pi's, perhaps not written
    yet) is the host's."""
    if not isinstance(session, SessionFile):
        return True
    path = Path(session.path)
    try:
        path.lstat()
    except FileNotFoundError:
        pass
    except OSError:
        return True
    else:
        if not_a_file(path) is None:
            return True
    if looked_up:
        return False
    raise ServiceError("bad_session", f"{path}: the session file handed over is gone, or "
                       "something else is in its place; nothing was read or written. "
                       "Restore it, or hand over another session")


def first_session(app: Waymarks) -> SessionLog:
    """The session a write opens in a project that had none when the command started:
    looked for again, and made only if still absent, under the project's creation lock.
    Two commands started together there (an agent and a terminal) each made a session,
    and the write of the one whose file sorted first went where no later command looks,
    although it was reported committed."""
    def newest_or_new() -> SessionLog:
        newest = newest_session(app.home, app.cwd)
        return app.open_session(newest) if newest is not None else create_session(app)

    made = _creating(app, newest_or_new)
    if app._snapshot is not None and app._snapshot.session is None:
        # a request begun before there was one reads the session its write made (a read
        # after the write said the project had nothing, until the request ended)
        app._snapshot.session = made
    return made


def host_session(app: Waymarks, session_id: str) -> SessionFile:
    """The ledger of a host's session ``session_id`` (a Claude Code session): the one
    file named with that ID, or made now, looked for again under the project's creation
    lock. Hooks of one session started together (a prompt and a tool call at a session's
    start, a resumed session's first events) each looked, found none and made one named
    by its own time: one session had several ledgers, the hooks used the first, the CLI
    the newest, and a pin reported committed to the session was never planned for it."""
    found = ledger_of(app.home, session_id, app.cwd)
    if found is not None:  # the common case: no lock
        return app.open_session(found)

    def existing_or_new() -> SessionFile:
        again = ledger_of(app.home, session_id, app.cwd)
        return app.open_session(again) if again is not None else \
            create_session(app, session_id)

    return _creating(app, existing_or_new)


def _creating(app: Waymarks, make: Callable[[], _S]) -> _S:
    """``make()`` under the project's session creation lock
    (``sessions/<project>/.create.lock``), taken within the app's busy timeout."""
    import errno
    import os

    from waymarks.files.locks import open_lock
    from waymarks.ledger.flock_wait import flock_within
    from waymarks.service.rebuilding import refuse_home_gone

    refuse_home_gone(app)  # (before the lock's folder is made: a home made again)
    lock = session_dir(app.home, app.cwd) / ".create.lock"
    try:
        fd = open_lock(lock)
    except OSError:  # the home cannot be written: creating says so in its own words
        return make()
    try:
        if not flock_within(fd, app.busy_timeout_ms / 1000):
            raise SessionBusy(errno.EWOULDBLOCK, "another process has been starting a "
                              "session of this project for too long (stopped with Ctrl-Z, "
                              "or hung): let it finish or stop it, then retry", str(lock))
        return make()
    finally:
        os.close(fd)


def create_session(app: Waymarks, session_id: str | None = None) -> SessionFile:
    """A new session file of the project, named to sort after the others there (with a
    new session ID, or the host's ``session_id``)."""
    from waymarks.files.dirs import make_private_dirs  # a write's: not a recall's
    from waymarks.service.rebuilding import refuse_home_gone

    refuse_home_gone(app)  # (a write after it was deleted made a new home)
    stamp, session_id = new_session_stamp(app), session_id or app.ids.uuid()
    path = session_dir(app.home, app.cwd) / session_file_name(stamp, session_id)
    make_private_dirs(path.parent)  # the home too, when this is its first file
    return SessionFile.create(path, session_id, stamp, app.cwd)


def new_session_stamp(app: Waymarks) -> str:
    """The time a new session of the project is named and headed for: now, or one
    millisecond after the newest session file name there if that is not before now (the
    clock stepped back, or a file is named ahead of it). The default session is the
    newest by name: named now, a session made after the step sorted below the one before
    it, and the next command used that one although `session new` reported the new one."""
    now = app.clock.now()
    newest = newest_name_ms(session_dir(app.home, app.cwd))
    if newest is None or newest < epoch_ms(now):
        return iso(now)
    try:
        return iso(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=newest + 1))
    except OverflowError:  # a name at the end of year 9999: nothing sorts after it
        return iso(now)


def session_info(session: SessionLog, *, with_branch: bool = True) -> SessionInfo:
    header = session.header
    assert header is not None
    branch = tuple(session.branch_ids()) if with_branch else ()
    return SessionInfo(session.session_id, str(session.path), header.cwd, header.timestamp,
                       session.entry_count, session.leaf_id, branch)


def session_list(app: Waymarks) -> list[SessionInfo]:
    """This directory's sessions, oldest first; unreadable files are left out."""
    infos = []
    for path in list_sessions(app.home, app.cwd):
        try:
            infos.append(session_info(app.open_session(path), with_branch=False))
        except SessionFileError:
            continue
    return infos


def require_session(app: Waymarks) -> SessionLog:
    session = app.current_session()
    if session is None:
        raise ServiceError("no_session", f"No session for {app.cwd} yet; start one with "
                           "`waymarks session new`")
    return session


#: how much of a ledger's end is read for the prompt a hook may have recorded already
RECORDED_TAIL_BYTES = 1 << 20
RECORDED_TAIL_ENTRIES = 1024


@io_errors()
def session_say(app: Waymarks, text: str, *, unless_since_ms: int | None = None) -> str:
    """Append a user message entry (standalone sessions); returns its entry ID.

    ``unless_since_ms``: a host's hook that may have been done twice (a stalled or killed
    Claude Code helper, and the hook's own process): if the ledger's active branch holds
    this very text from the person sent at or after that time (the hook's start), that
    entry's ID, nothing appended; decided under the session lock."""
    if not message_text(text, "Message text").strip():  # checked before a session is made
        raise ServiceError("empty", "Message text must not be empty")
    session = appendable_session(app)
    with app._appending(session):
        if unless_since_ms is not None:
            since = unless_since_ms
            twins = recent_messages(  # (kept before the branch is asked: see there)
                session, RECORDED_TAIL_BYTES, RECORDED_TAIL_ENTRIES,
                keep=lambda said: said.role == "user" and said.text == text and
                said.sent_ms is not None and said.sent_ms >= since)
            if twins:
                return twins[-1].id
        now = app.clock.now()
        message = {"role": "user", "content": [{"type": "text", "text": text}],
                   "timestamp": epoch_ms(now)}
        entry = session.append({"type": "message", "timestamp": iso(now),
                                "message": message}, app.ids.entry_id)
    return entry.id


def appendable_session(app: Waymarks) -> SessionLog:
    """The session an entry that is not a mutation is appended to (made if there is none),
    the projection opened first: one that cannot be (not a regular file, a schema too
    new) is refused before anything is written. (It was opened after the append: a note
    was reported refused, yet kept. And opening it re-reads the session the app holds,
    so it comes before the session is taken: an entry appended through the copy read
    before was not on the app's branch.) A database a process of its own is filling for
    a hurried caller (:data:`~waymarks.service.projection_fill.FILLING`) is no refusal:
    the entry goes to the ledger, which that fill or the next read projects (a prompt's
    hook during the fill recorded nothing, and the person's words were lost)."""
    try:
        _ = app.projection
    except ServiceError as exc:
        from waymarks.service.projection_fill import FILLING

        if exc.code != FILLING:
            raise
    session = app.current_session(create=True)
    assert session is not None
    refuse_open_in_pi(app, session)
    return session


def refuse_open_in_pi(app: Waymarks, session: SessionLog) -> None:
    """Refuse (``ServiceError`` ``open_in_pi``, the request's: exit 2) an append to a
    session file a running Pi holds open (:func:`.session_checks.open_in_pi`)."""
    from waymarks.service.session_checks import open_in_pi

    held = open_in_pi(app.home, session)
    if held is not None:
        raise ServiceError("open_in_pi", held, request=True)


def session_branch(app: Waymarks, from_id: str, summary: str | None = None) -> str:
    """Append a ``branch_summary`` child of ``from_id``: later entries form a new branch."""
    if summary is not None:
        message_text(summary, "Branch summary")
    session = require_session(app)
    refuse_open_in_pi(app, session)
    with session.locked():
        if not session.has_entry(from_id):
            from waymarks.core.text import escaped, unknown_id

            raise ServiceError("not_found", unknown_id(
                "entry", from_id, f"in session {escaped(session.session_id)}",
                "waymarks session show"))
        entry = session.append(
            {"type": "branch_summary", "timestamp": iso(app.clock.now()),
             "parentId": from_id, "fromId": from_id, "summary": summary or ""},
            app.ids.entry_id,
        )
    return entry.id


def session_projects(home: Path, limit: int = 500) -> list[str]:
    """The projects that have sessions in this home: the ``cwd`` of the first session
    file of each of the first ``limit`` project folders (one header read per folder;
    the web inspector's project list), each by its real path, as a service opened there
    names it: a header written through a symbolic link listed the link, and every link
    of that project's page (made from the real path) was to an unknown project."""
    found: set[str] = set()
    root = home / "sessions"
    if not root.is_dir():
        return []
    for folder in sorted(root.iterdir())[:limit]:
        first = next(iter(sorted(folder.glob("*.jsonl"))), None) if folder.is_dir() else None
        header = read_header(first) if first is not None else None
        if header is not None:  # (a cwd holding a NUL, which no path can, is no header)
            found.add(canonical_project_path(header.cwd))
    return sorted(found)
