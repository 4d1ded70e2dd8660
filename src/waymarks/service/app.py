"""The application API: every adapter (CLI, MCP, hosts) calls these use cases.

A write runs entirely under the session file's exclusive lock and one projection
transaction: read what others appended, bring the projection up to date, decide against
that state, append durably, project. So two processes can never both add the same pin,
and a rejected write appends nothing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from waymarks.ledger.discovery import newest_session, passed_over_note, resolve_session
from waymarks.ledger.log import ProgressFn, SessionFileError, SessionLog
from waymarks.ledger.session_file import SessionFile
from waymarks.recall.engine import RecallResult
from waymarks.service import api_args, rebuilding, recall_query
from waymarks.service.config import Settings, load_settings
from waymarks.service.outcomes import Rejected, ServiceError, WriteOutcome, with_notices
from waymarks.service.pin_inputs import PinInputs
from waymarks.service.ports import Clock, IdSource, RandomIds, SystemClock, epoch_ms
from waymarks.service.recovery import (
    recovered_alone,
    recoveries_so_far,
    recovering,
)
from waymarks.service.serialized import CallLock, serialized
from waymarks.service.session_checks import refuse_replaced, replaced_problem
from waymarks.service.trust import TrustStore
from waymarks.service.views import ItemView, SessionInfo, ViewMemo
from waymarks.store.projection import BUSY_TIMEOUT_MS, ProjectionDamaged
from waymarks.store.writer_lock import FileIdentity

if TYPE_CHECKING:  # imported where used: a one-shot recall never writes (issue 15), nor
    # keeps the recall index in memory
    from waymarks.service.semantic_memo import VectorMemo
    from waymarks.service.writes import Decision, WriteContext
    from waymarks.store.protocol import Store
    from waymarks.store.recall_cache import RecallCache

DB_NAME = "waymarks.db"


class Snapshot(msgspec.Struct):
    """What one request reads once (see :meth:`Waymarks.begin`)."""

    session: SessionLog | None
    trusted: bool
    settings: Settings

#: a check run under the session lock just before a write is decided (None = go ahead)
Guard = Callable[["WriteContext"], "Rejected | None"]


@serialized
class Waymarks:
    """Pins and memory for one home, one working directory and (lazily) one session.
    Threads may share it: its methods run one at a time. A write's ``guard`` (and any
    callback a write runs) must not call back into the same object: refused
    (:mod:`.serialized`)."""

    def __init__(
        self,
        home: str | os.PathLike[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        session: str | SessionLog | None = None,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        keep_recall_index: bool = False,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        project_may_be_gone: bool = False,
    ) -> None:
        """``keep_recall_index``: hold the recall index in memory between queries (for
        long-lived processes such as an MCP server); a one-shot CLI leaves it in SQLite.
        ``busy_timeout_ms``: how long the database is waited for while another process
        holds it (a hook, answering within Claude Code's timeout, waits less). A home or
        cwd the command line refuses is refused here too (:mod:`.api_args`), a cwd that does
        not exist too unless ``project_may_be_gone`` (a host's: its items are still read)."""
        self.busy_timeout_ms = api_args.whole_number("busy_timeout_ms", busy_timeout_ms)
        self.home = api_args.home_directory(home)
        self.cwd = api_args.project_directory(cwd, existing=not project_may_be_gone)
        self._calls = CallLock()
        self.clock, self.ids = clock or SystemClock(), ids or RandomIds()
        self.trust_store = TrustStore(self.home)
        self.keep_recall_index = keep_recall_index
        self._recall_cache: RecallCache | None = None
        #: a long-lived process's vectors, made at its first recall with hybrid recall on
        self._vector_memo: VectorMemo | None = None
        self._recovered: dict[str, Any] | None = None  # set when a damaged database was rebuilt
        self._recoveries_before = recoveries_so_far()  # the learned store's, before this object
        self.refresh_problem: str | None = None  # why the active session was not re-read
        #: the session file and projection a refresh last found nothing new in (its stamp)
        self.refreshed_unchanged: object = None
        #: newer session files the pick passed over (no header), and what to say of them
        self.passed_over: tuple[Path, ...] = ()
        self.passed_over_note: str | None = None
        #: why the database was read as it is, maybe stale (a full disk: ``read_as_it_is``)
        self.stale_note: str | None = None
        #: why the last recall went without memory it could not index in time (a hook's)
        self.recall_note: str | None = None
        self.trust_override: bool | None = None  # set by a host that owns project trust
        self.can_create_session = True  # False: the host has no persistent session
        self.host_provider: str | None = None  # the host's model's (planning.egress_for)
        self.command_prefix = "waymarks"  # what a refusal's hint runs (in Pi: /context)
        #: how a hint names starting a new session where the person is (in Pi: its /new)
        self.new_session_hint = "`waymarks session new`"
        self.rehearsing = False  # writes run every check, then raise ``Rehearsed``
        # a session is named (path, ID or prefix), handed over as a ledger, or the newest
        self._session_ref, self.follows_newest = (
            session if isinstance(session, str) else None, session is None)
        self._session: SessionLog | None = session if isinstance(session, SessionLog) else None
        self._closed_with: SessionLog | None = None  # the session held when close() ran
        self._projection: Store | None = None
        self._snapshot: Snapshot | None = None  # the open request, if any
        self._views = ViewMemo()
        self.pin_inputs = PinInputs()  # the plan's input for each unchanged pin

    # -- plumbing -------------------------------------------------------------------

    def close(self) -> None:
        """Close the database; a later call opens it again."""
        self._recall_cache = None
        if self._projection is not None:
            self._projection.close()
            self._projection = None
            self._closed_with = self._session  # see _held_session

    def __enter__(self) -> Waymarks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def recovered(self) -> dict[str, Any] | None:
        """What the last repair of the database did (set aside where, and why), by this
        object or, since it was made, by the learned-memory store; ``None`` if none."""
        return self._recovered or recovered_alone(self.db_path, self._recoveries_before)

    @recovered.setter
    def recovered(self, value: dict[str, Any] | None) -> None:
        self._recovered = value

    @property
    def db_path(self) -> Path:
        return self.home / DB_NAME

    @property
    def read_only(self) -> bool:
        """Whether the projection is read as it is, writing nothing (a full disk)."""
        return getattr(self._projection, "refusal", None) is not None

    @property
    def projection(self) -> Store:
        if self._snapshot is None:  # (between requests)
            rebuilding.let_go_if_read_only(self)
        if self._projection is None:
            rebuilding.open_projection(self)
        assert self._projection is not None
        return self._projection

    def _recover(self, problem: Exception, found: FileIdentity | None = None) -> None:
        """Set a damaged database aside and rebuild a new one (:mod:`.rebuilding`), unless
        another process already replaced the file found damaged (``found``: the file the
        failed open was about; else the one the projection held): then reopen. One read
        as it is on a full disk (:func:`.recovery.read_as_it_is`) is never repaired: its
        problem is the full disk."""
        refusal = getattr(self._projection, "refusal", None)
        if refusal is not None:
            raise refusal from problem
        self._recall_cache = None
        if self._projection is not None:
            found = getattr(self._projection, "identity", found)
        rebuilding.close_quietly(self._projection)
        self._projection = None
        if self._session is not None:  # opened at a checkpoint: its entry index is in the
            self._session.drop_index()  # damaged database, closed now; read the file whole
        self._projection = rebuilding.recover(self, problem, found)

    def _now_ms(self) -> int:
        return epoch_ms(self.clock.now())

    def _held_session(self) -> SessionLog | None:
        """The session in use; one held at :meth:`close` (its entry index was in the closed
        database) is read whole on this first use after it, not in the close; one whose
        file is gone is let go (:func:`.sessions_api.still_there`). Inside a request, the
        session its refresh found stands (it looked at the file: a plan asked four times)."""
        if self._snapshot is not None and self._snapshot.session is not None and \
                self._snapshot.session is self._session:
            return self._session
        from waymarks.service.sessions_api import still_there

        if not still_there(self._session, self.follows_newest or bool(self._session_ref)):
            self._session = self._closed_with = None  # looked for again, as by a command
        if self._closed_with is not None and self._closed_with is self._session:
            self._closed_with.drop_index()
        self._closed_with = None
        return self._session

    def current_session(self, *, create: bool = False) -> SessionLog | None:
        """The session commands act on: the one named, else the newest for the cwd."""
        if self._held_session() is None:
            try:
                if self._session_ref is not None:
                    try:
                        path = resolve_session(self.home, self.cwd, self._session_ref)
                    except SessionFileError as exc:  # no such session: a bad argument
                        raise ServiceError("bad_session", str(exc), request=True) from exc
                    self._session = self.open_session(path, named=True)
                else:
                    passed: list[Path] = []
                    newest = newest_session(self.home, self.cwd, passed)
                    self._passed_over(passed, started=False)
                    if newest is not None:
                        self._session = self.open_session(newest)
            except SessionFileError as exc:
                raise ServiceError("bad_session", str(exc)) from exc
        if self._session is None and create:
            if not self.can_create_session:
                raise ServiceError("no_session", "This host session is not persistent (for "
                                   "example Pi's --no-session): nothing can be recorded")
            from waymarks.service.sessions_api import first_session

            self._session = first_session(self)
            self._passed_over(self.passed_over, started=True)
        return self._session

    def _passed_over(self, passed: Sequence[Path], *, started: bool) -> None:
        self.passed_over = tuple(passed)
        self.passed_over_note = passed_over_note(passed, started=started) if passed else None

    def open_session(self, path: Path, *, named: bool = False) -> SessionFile:
        """A session file opened at its checkpoint when it can be (see
        :func:`sessions_api.open_session`; ``named``: by ``--session``)."""
        from waymarks.service import sessions_api

        return sessions_api.open_session(self, path, named=named)

    @property
    def bound_session(self) -> SessionLog | None:
        """The session already in use, without looking for one."""
        return self._held_session()

    def bind_session(self, session: SessionLog | None) -> None:
        """Act on ``session`` from now on (a host that names its own; ``None``: none yet)."""
        self._session = session

    @contextmanager
    def _synced(self, session: SessionLog) -> Iterator[Store]:
        """Hold the session lock and a projection transaction, projection brought up to date.

        The lock commits as a group (the ledger is flushed right after the lock is
        released, before the write is reported): concurrent writers no longer queue behind
        each other's disk flush; inside :func:`.write_path.writes_held` the hold is
        that one's, the lines read again, and the flush comes when it ends)."""
        held = contextlib.nullcontext(session.refresh()) if session.holds_lock else \
            session.locked(group_commit=True, wait_s=self.busy_timeout_ms / 1000)
        # a log checkpoint falling due starts after the lock is released (store/wal.py)
        with self.projection.checkpoints_deferred(), held, self.projection.transaction():
            refuse_replaced(self.projection, session)  # before the sync would index it
            self.projection.sync(session, self._now_ms())
            yield self.projection

    @contextmanager
    def begin(self) -> Iterator[Snapshot]:
        """One request (a prompt, a tool call, a command): the active session refreshed,
        the projection synced with it, this project's other sessions indexed, trust and
        settings read — once. Reads inside it (items, recall, planning, the tools) share
        that state instead of refreshing again; nested calls share the outer request.
        Writes keep their own protocol (lock, re-read, append, project)."""
        if self._snapshot is not None:
            yield self._snapshot
            return
        rebuilding.let_go_if_read_only(self)  # (before the snapshot: the projection is held then)
        trusted = self._trusted_now()
        settings = load_settings(self.home, self.cwd, trusted)
        self._snapshot = Snapshot(None, trusted, settings)  # the refresh below reads these
        # whether another connection committed, asked once (a plan asked four times); a
        # projection not open yet (a process's first request) asks as each read does
        held = (self._projection.epoch.held() if self._projection is not None
                else contextlib.nullcontext())
        try:
            with held:
                self._snapshot.session = rebuilding.refreshed(self, request=True)
                yield self._snapshot
        finally:
            self._snapshot = None

    def settings(self) -> Settings:
        """The settings in force (the request's, when one is open)."""
        if self._snapshot is not None:
            return self._snapshot.settings
        return load_settings(self.home, self.cwd, self.project_trusted)

    @contextmanager
    def _appending(self, session: SessionLog) -> Iterator[None]:
        """Append an entry that is not a mutation (a message, a record) under the lock,
        then move the projection's checkpoint past it, so the next read finds nothing to
        catch up on. Best effort (:func:`.sessions_api.appendable_session` refuses before
        a projection that cannot be opened): the ledger holds the entry either way. A file
        not as indexed is not read again as if it were (`health`). A last line left
        without its newline is ended first: a check for what is recorded reads it."""
        with session.locked(wait_s=self.busy_timeout_ms / 1000):
            session.end_partial_line()
            yield
            with contextlib.suppress(sqlite3.Error, ProjectionDamaged, ServiceError), \
                    self.projection.transaction():
                if replaced_problem(self.projection, session) is None:
                    self.projection.sync(session, self._now_ms())

    def refresh(self) -> SessionLog | None:
        """Bring the projection up to date with the session before a read (inside a
        request: done once by :meth:`begin`; outside one, a host's command, as it does)."""
        if self._snapshot is not None:
            return self._snapshot.session
        return rebuilding.refreshed(self)

    def _refresh_now(self) -> SessionLog | None:
        """The active session read on, the projection brought up to it when behind
        (:func:`.session_refresh.refresh_now`)."""
        from waymarks.service.session_refresh import refresh_now

        return refresh_now(self)

    # -- sessions (service/sessions_api.py) -----------------------------------------

    def session_new(self) -> SessionInfo:
        from waymarks.service.sessions_api import create_session, session_info

        self._session = create_session(self)
        return session_info(self._session)

    def session_list(self) -> list[SessionInfo]:
        from waymarks.service import sessions_api

        return sessions_api.session_list(self)

    def session_info(self, session: SessionLog, *, with_branch: bool = True) -> SessionInfo:
        from waymarks.service.sessions_api import session_info

        return session_info(session, with_branch=with_branch)

    def session_show(self) -> SessionInfo:
        from waymarks.service import sessions_api

        return sessions_api.session_info(sessions_api.require_session(self))

    def session_say(self, text: str, *, unless_since_ms: int | None = None) -> str:
        from waymarks.service import sessions_api

        return sessions_api.session_say(self, text, unless_since_ms=unless_since_ms)

    def session_branch(self, from_id: str, summary: str | None = None) -> str:
        from waymarks.service import sessions_api

        return sessions_api.session_branch(self, from_id, summary)

    # -- trust ----------------------------------------------------------------------

    def trust(self, path: str) -> tuple[str, bool]:
        return self.trust_store.trust(path, self.trust_override, self.cwd)

    def untrust(self, path: str) -> tuple[str, bool]:
        return self.trust_store.untrust(path, self.trust_override, self.cwd)

    def trusted_projects(self) -> list[str]:
        return self.trust_store.projects()

    @property
    def project_trusted(self) -> bool:
        if self._snapshot is not None:
            return self._snapshot.trusted
        return self._trusted_now()

    def _trusted_now(self) -> bool:
        if self.trust_override is not None:  # the host decides (Pi's project trust)
            return self.trust_override
        return self.cwd in self.trust_store.projects()

    # -- reads ----------------------------------------------------------------------

    @recovering
    def items(self, kind: Literal["pin", "memory"], *, ids: Sequence[str] | None = None,
              recent_active: int | None = None, recent: int | None = None,
              oldest: int | None = None, may_apply: bool = False, skip: int = 0
              ) -> list[ItemView]:
        """Items of this session and of its project, in creation order; ``applies`` says
        which are in effect (project items only when the project is trusted). Without a
        session, the project's alone (a write's conflict check sees them: Pi's, say).

        ``ids`` restricts the list to those items; ``recent_active`` (``recent``) to that
        many of the newest active ones (in any status), newest first; ``oldest`` to that
        many of the oldest. They keep large stores cheap to plan against and to list;
        ``skip`` (with ``recent`` or ``oldest``) passes over that many first (a page).
        ``may_apply`` (with ``recent_active``): only items that may be in effect here, so
        that listed ones that cannot (an untrusted project's) never take their places."""
        api_args.counts(recent_active=recent_active, recent=recent, oldest=oldest, skip=skip)
        api_args.item_query(kind, ids)
        session = self.refresh()
        sid, branch = (session.session_id, session.branch_set()) if session else ("", set())
        states = self.projection.visible_items(
            kind, sid, self.cwd, ids=ids, oldest=oldest, recent_active=recent_active,
            recent=recent, trusted=self.project_trusted if may_apply else None, skip=skip)
        return self._views.views(states, sid, branch, self.cwd, self.project_trusted)

    # -- recall ---------------------------------------------------------------------

    @recovering
    def recall(self, query: str, history: Sequence[str] = (), *,
               inherit: bool = True, provider: str | None = None,
               privacy: bool = True, every_candidate: bool = False, eligible_only: bool = False,
               withheld: bool = False, every_status: bool = False) -> RecallResult:
        """Memory claims the query (with the recent user turns) is about, precision first.

        Only items this session may see are candidates: its own and, when the project is
        trusted, the project's; and only those the destination provider may see (the configured
        default provider unless one is named; ``privacy=False`` leaves that to a caller that
        records exclusions itself); and only claims in effect (retired ones too with
        ``every_status``). ``inherit=False`` ignores the history. A query naming a literal no
        record holds can select nothing (:func:`~waymarks.recall.scoring.unheld_literal`): no
        candidate is read, unless ``every_candidate`` (a search showing each candidate's score)
        asks for them. ``eligible_only`` (a plan): ``scored`` need not hold the records that
        are not; ``withheld`` (a plan): the withheld ones are judged too
        (:func:`~waymarks.service.planning.admission`)."""
        return recall_query.recall(
            self, query, history, inherit=inherit, provider=provider, privacy=privacy,
            every_candidate=every_candidate, eligible_only=eligible_only, withheld=withheld,
            every_status=every_status)

    # -- diagnostics (service/diagnostics.py) ---------------------------------------

    @recovering
    def status(self) -> dict[str, Any]:
        """Where things are and how many items are in effect."""
        from waymarks.service import diagnostics

        with self.begin():
            return diagnostics.status(self)

    @recovering
    def health(self) -> dict[str, Any]:
        """Checkpoints against files, lines skipped, entries not understood, database checks."""
        from waymarks.service import diagnostics

        return diagnostics.health(self)

    @recovering
    def embed_recall(self, progress: ProgressFn | None = None, *,
                     background: Callable[[], object] | None = None,
                     waiting: Callable[[], None] | None = None) -> dict[str, Any]:
        """Embed every record missing a vector, in batches (``index --semantic``); the counts.
        ``background``: the worker's check that its home is still there; ``waiting``: see there."""
        return rebuilding.embed_recall(self, progress, background=background, waiting=waiting)

    @recovering
    def rebuild_index(self, progress: ProgressFn | None = None,
                      stage: Callable[[str], None] | None = None) -> dict[str, Any]:
        """Replay every session file into a fresh projection (:mod:`.rebuilding`)."""
        return rebuilding.rebuild_index(self, progress, stage)

    # -- writes (the transaction in service/write_path.py) ---------------------------

    def pin(self, content: str, *, scope: str | None = None, classification: str | None = None,
            source: str | None = None, source_file: str | None = None,
            supersedes: str | None = None, guard: Guard | None = None) -> WriteOutcome:
        """Writes take an optional ``guard``: a last check under the session lock (the
        model-callable tool re-checks there that its target is unchanged)."""
        from waymarks.service import write_path
        from waymarks.service.writes import decide_pin, text_notices

        if refused := api_args.write_texts({"content": content}, scope=scope, source=source,
                                           classification=classification,
                                           source_file=source_file, supersedes=supersedes):
            return refused
        source_file = api_args.source_path(self.cwd, source_file)
        write_path.pin_checked_ahead(content)
        return with_notices(self._write(lambda ctx: decide_pin(
            ctx, content, scope=scope, classification=classification, source=source,
            source_file=source_file, supersedes=write_path.full_id(self, ctx, "pin", supersedes)),
            guard), text_notices(content))

    def unpin(self, pin_id: str, reason: str | None = None, *,
              guard: Guard | None = None) -> WriteOutcome:
        from waymarks.service import write_path

        return write_path.set_status(self, "pin", pin_id, "deleted", reason, guard)

    def remember(self, claim: str, *, scope: str | None = None,
                 classification: str | None = None, key: str | None = None,
                 sources: tuple[str, ...] = (), guard: Guard | None = None) -> WriteOutcome:
        from waymarks.service import write_path
        from waymarks.service.writes import decide_memory, text_notices

        if refused := api_args.write_texts({"claim": claim}, sources, scope=scope, key=key,
                                           classification=classification):
            return refused
        return write_path.write_memory(self, lambda ctx: decide_memory(
            ctx, claim, scope=scope, classification=classification, key=key, sources=sources),
            guard, text_notices(claim, key), claim)

    def supersede_memory(self, memory_id: str, claim: str, *,
                         classification: str | None = None,
                         sources: tuple[str, ...] = (), guard: Guard | None = None
                         ) -> WriteOutcome:
        from waymarks.service import write_path
        from waymarks.service.writes import decide_memory, text_notices

        if refused := api_args.write_texts({"memory_id": memory_id, "claim": claim}, sources,
                                           classification=classification):
            return refused
        return write_path.write_memory(self, lambda ctx: decide_memory(
            ctx, claim, scope=None, classification=classification, key=None, sources=sources,
            supersedes=write_path.full_id(self, ctx, "memory", memory_id) or memory_id),
            guard, text_notices(claim), claim)

    def set_memory_status(self, memory_id: str, status: Literal["invalid", "expired"],
                          reason: str | None = None, *,
                          guard: Guard | None = None) -> WriteOutcome:
        from waymarks.service import write_path

        return write_path.set_status(self, "memory", memory_id, status, reason, guard)

    def append_record(self, custom_type: str, data: dict[str, Any],
                      unless: Callable[[SessionLog], str | None] | None = None) -> str:
        """A custom entry (not a pin or memory mutation: refused) appended; its ID."""
        from waymarks.service import write_path

        return write_path.append_record(self, custom_type, data, unless)

    @recovering
    def dry_run(self, decide: Callable[[WriteContext], Decision],
                guard: Guard | None = None) -> Decision:
        """What a write deciding with ``decide`` would do now (the mutation, a duplicate or
        the rejection), appending nothing: a tool asks the person only about a write that
        can succeed. The write itself decides again under the session lock."""
        from waymarks.service import write_path

        return write_path.dry_run(self, decide, guard)

    @recovering  # a full disk is a clear error, not a traceback (an import's check)
    def dry_run_all(self, decides: Sequence[Callable[[WriteContext], Decision]],
                    progress: ProgressFn | None = None) -> list[Decision]:
        """What writes deciding with ``decides``, in order, would do now, each after the
        ones before it (``write_path.dry_run_all``), appending nothing."""
        from waymarks.service import write_path

        return write_path.dry_run_all(self, decides, progress)

    def _write(self, decide: Callable[[WriteContext], Decision], guard: Guard | None = None,
               *, retry: bool = True) -> WriteOutcome:
        from waymarks.service import write_path

        return write_path.write(self, decide, guard, retry=retry)
