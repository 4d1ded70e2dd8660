"""The write transaction behind every pin and memory use case of :class:`Waymarks`.

What must stay true: a write decides, appends and projects under the session file's
exclusive lock in one projection transaction, so two processes never both add the same
item and a refused write appends nothing; a write is reported ``committed`` only when the
projection shows it applied (or, if the projection failed after the ledger took the
write, as committed with a warning: the ledger is the record); a damaged database is set
aside and rebuilt once, never a traceback. A refused first write in a directory creates
no session file: it is decided against an empty session first. A rehearsal
(``app.rehearsing``) runs the same checks and raises ``Rehearsed`` where it would append,
so it creates no file and appends nothing.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from waymarks.core import check_ahead
from waymarks.core.codec import custom_type_of
from waymarks.core.decisions import Rejected, clean_text
from waymarks.core.model import (
    MAX_CLAIM_CHARS,
    MAX_PIN_CHARS,
    MemoryMutation,
    Mutation,
    MutationRecord,
    PinMutation,
    status_target,
)
from waymarks.core.replay import OverlayView
from waymarks.core.rules import apply_mutation
from waymarks.ledger.log import Entry, SessionLog
from waymarks.service import semantic_backfill
from waymarks.service.api_args import record_data, write_texts
from waymarks.service.outcomes import (
    Committed,
    Rehearsed,
    ServiceError,
    WriteOutcome,
    committed_outcome,
    io_errors,
    with_notices,
)
from waymarks.service.ports import iso
from waymarks.service.rebuilding import refuse_home_gone
from waymarks.service.recovery import database_error, is_damage
from waymarks.service.session_checks import not_applied, open_in_pi, project_write_refused
from waymarks.service.sessions_api import appendable_session
from waymarks.service.sources import active_status, refresh_sources, siblings_written
from waymarks.service.writes import Decision, WriteContext, decide_status
from waymarks.store.protocol import Store

if TYPE_CHECKING:
    from waymarks.service.app import Guard, Waymarks


def full_id(app: Waymarks, ctx: WriteContext, kind: str, ref: str | None) -> str | None:
    """Expand a unique ID prefix (as lists print them) among visible items. IDs are
    lower-case: a prefix typed in capitals names what its lower case does."""
    if not ref:
        return ref
    for typed in dict.fromkeys((ref, ref.lower())):
        if len(typed) >= 36:
            if ctx.view.get(typed) is not None:
                return typed
            continue
        expanded = app.projection.expand_prefix(kind, typed, ctx.session_id, ctx.project_path)
        if expanded:
            return expanded
    return ref


def set_status(app: Waymarks, kind: Literal["pin", "memory"], ref: str, status: str,
               reason: str | None, guard: Guard | None) -> WriteOutcome:
    """An unpin or a memory status change: ``ref`` (an ID or its prefix) given ``status``
    (checked by the decision, as every other value is)."""
    if refused := write_texts({f"{kind}_id": ref}, reason=reason):
        return refused
    return write(app, lambda ctx: decide_status(
        ctx, kind, full_id(app, ctx, kind, ref) or ref, status, reason), guard)


def context(app: Waymarks, projection: Store, session: SessionLog | None) -> WriteContext:
    """What a decision may see: projected state, trust, the session's branch.

    The settings are read first: a configuration that cannot be read refuses the write
    here, in the dry run a tool makes before the person is asked as in the write itself,
    before anything is appended (the write was appended, then reported as a bad_config
    failure by the notices that read the policy: a person retrying got "duplicate")."""
    settings = app.settings()
    claims_caught_up(app, projection)
    return WriteContext(
        view=projection.view,
        session_id=session.session_id if session is not None else "(new session)",
        project_path=app.cwd, trusted=app.project_trusted,
        leaf_id=session.leaf_id if session is not None else None,
        branch=session.branch_set() if session is not None else frozenset(),
        now_ms=app._now_ms(), new_uuid=app.ids.uuid,
        default_level=settings.policy.default_classification, prog=app.command_prefix,
        trust_fix=HOST_TRUST_FIX if app.trust_override is False else "",
        has_entry=session.has_entry if session is not None else None,
    )


def claims_caught_up(app: Waymarks, projection: Store) -> None:
    """The claims' subject terms caught up for a write's check (inside a transaction), and
    a claim whose signature failed logged by its ID (``health`` lists them): the catch-up
    inside the check left it out in silence, and only ``rebuild-index`` named it.
    The catch-up reads how far the rows are and writes nothing when they are caught up:
    asking first (:meth:`claim_subjects_behind`) read the same rows twice under the
    session lock on every write."""
    unsigned = projection.catch_up_claim_subjects()
    if unsigned:
        from waymarks.service.logs import log_event

        log_event(app.home, app.clock.now(), "claims_unsigned", counts=len(unsigned),
                  id=unsigned)


#: a refusal's advice where Pi reports the project untrusted: there ``/context trust`` is
#: refused (``host_decides``), and it was what the refusal told the person to run
HOST_TRUST_FIX: Final = ("Pi reports it untrusted, and inside Pi that decides: trust it in "
                         "Pi (its /trust), then start Pi again")


def after_target(projection: Store, ctx: WriteContext, decision: Decision) -> int | None:
    """The time (ms) just past the last change of the item ``decision`` supersedes or
    changes the status of (its entry's time), when that lies at or after now; else
    ``None``.

    Replay orders mutations by their entries' timestamps (seed 000). An item from a
    session whose clock runs ahead (another machine's, synced) was created "later" than
    now, so an unpin, invalidate or supersede of it written now replayed before it
    existed: refused (``no pin P``), or a supersede stored ``invalid`` while reported
    committed, the old claim still sent to the model. Such a write carries the item's
    time plus one millisecond instead, and replays after it."""
    if not isinstance(decision, PinMutation | MemoryMutation):
        return None
    if decision.operation == "supersede":
        target = decision.previous_id
    elif decision.operation == "status":
        target = status_target(decision)
    else:
        return None
    if not target:
        return None
    changed = projection.last_changed([target]).get(target)
    return None if changed is None or changed < ctx.now_ms else changed + 1


#: how far ahead of this clock a change may be dated to follow the item it changes (a
#: synced machine's skew); an item dated further ahead is refused, never followed there:
#: a year-3000 sibling made every later change of the person's own session year 3000
MAX_AHEAD_MS: Final = 2 * 24 * 3600 * 1000


def ahead_refused(ctx: WriteContext, later: int) -> Rejected | None:
    """The refusal of a change that would have to be dated more than
    :data:`MAX_AHEAD_MS` ahead of now, or ``None``."""
    if later - ctx.now_ms <= MAX_AHEAD_MS:
        return None
    days = (later - ctx.now_ms) / 86_400_000
    return Rejected("clock_ahead", f"the item this changes was last changed {days:,.1f} "
                    "days ahead of this machine's clock (a session written by a clock that "
                    "runs ahead, or a hand-made date): a change now would replay before it "
                    "and not apply. Fix the clock of the machine that wrote it, or leave "
                    "the session that wrote it: if it is the active one, start another "
                    "(`waymarks session new`); a project item's session is then excluded "
                    "with `waymarks memory exclude SESSION`. Nothing was written")


def dry_run(app: Waymarks, decide: Callable[[WriteContext], Decision],
            guard: Guard | None = None) -> Decision:
    """The decision a write would make now, appending nothing (see ``Waymarks.dry_run``)."""
    [decision] = dry_run_all(app, [lambda ctx: decided(app, ctx, decide, guard)])
    return decision


def decided(app: Waymarks, ctx: WriteContext, decide: Callable[[WriteContext], Decision],
            guard: Guard | None = None) -> Decision:
    """The guard's refusal, else the decision: callbacks of the caller's, which must not
    call back into ``app`` (:mod:`.serialized`)."""
    with app._calls.callback():
        return (guard(ctx) if guard else None) or decide(ctx)


def dry_run_all(app: Waymarks, decides: Sequence[Callable[[WriteContext], Decision]],
                progress: Callable[[int, int], None] | None = None) -> list[Decision]:
    """The decisions a sequence of writes would make now, each seeing the ones before it
    applied (folded by the replay rules into an overlay of the projected state), appending
    nothing: an import's lines that conflict with one another are refused before any is
    written, as lines that conflict with what is stored are. ``progress(done, total)``
    after each."""
    session = app.refresh()
    held = open_in_pi(app.home, session) if session is not None else None
    decisions: list[Decision] = []
    with app.projection.transaction():  # read-only: one consistent state
        base = context(app, app.projection, session)
        overlay = OverlayView(base.view)
        ctx = msgspec.structs.replace(base, view=overlay)
        for number, decide in enumerate(decides, 1):
            decision = decided(app, ctx, decide)
            later = after_target(app.projection, ctx, decision)
            if later is not None:  # as the write decides it (see after_target)
                decision = ahead_refused(ctx, later) or decided(
                    app, msgspec.structs.replace(ctx, now_ms=later), decide)
            if isinstance(decision, PinMutation | MemoryMutation):
                # the check the write makes under the lock, so a session that may not hold
                # project items is refused before anyone is asked, not after the yes
                refused = Rejected("open_in_pi", held) if held is not None else \
                    project_write_refused(app.projection, session, decision, app.cwd) \
                    if session is not None else None
                if refused is not None:
                    decision = refused
                else:
                    record = MutationRecord(ctx.session_id, f"dry-run-{number}", number,
                                            ctx.now_ms, decision, project=ctx.project_path)
                    apply_mutation(overlay, record, _AFTER_STORED + number)
            decisions.append(decision)
            if progress is not None:
                progress(number, len(decides))
    return decisions


#: sequence numbers of a dry run's overlay: after every stored item's
_AFTER_STORED = 1 << 60


@io_errors()
def append_record(app: Waymarks, custom_type: str, data: dict[str, Any],
                  unless: Callable[[SessionLog], str | None] | None = None) -> str:
    """Append a custom entry that is not a pin or memory mutation; returns its entry ID.
    ``unless``: the ID of an entry in the session that already records it (a host's
    event done twice), looked for under the session lock; then nothing is appended."""
    record_data(custom_type, data)  # before a session file is made for it
    if app.rehearsing:
        raise Rehearsed(custom_type)
    session = appendable_session(app)
    if (problem := unsaved(session)) is not None:  # (a note: lost the same way)
        raise ServiceError("not_saved", problem)
    with app._appending(session):
        with app._calls.callback():
            recorded = unless(session) if unless is not None else None
        if recorded is not None:
            return recorded
        entry = session.append({"type": "custom", "customType": custom_type, "data": data,
                                "timestamp": iso(app.clock.now())}, app.ids.entry_id)
    return entry.id


@contextmanager
def writes_held(app: Waymarks) -> Iterator[None]:
    """Several writes (an import's lines) under one hold of the session's lock, flushed to
    disk once when it ends instead of once a line (that flush was most of a line's
    write). Each write still decides, appends and projects in its own projection
    transaction, and is committed only when the projection shows it applied; the caller
    reports none of them before this ends (the flush). No session yet: the first write
    makes it, under its own hold."""
    session = app.bound_session
    if session is None or session.holds_lock:
        yield
        return
    with session.locked(group_commit=True, wait_s=app.busy_timeout_ms / 1000):
        yield


def write_memory(app: Waymarks, decide: Callable[[WriteContext], Decision],
                 guard: Guard | None, notices: tuple[str, ...], claim: str) -> WriteOutcome:
    """A memory claim's write (:func:`write`) with its ``notices``, then embedded
    (:func:`embed_written`). ``claim`` is analysed first (:func:`analysed_ahead`)."""
    analysed_ahead(claim)
    outcome = with_notices(write(app, decide, guard), notices)
    embed_written(app, outcome)
    return outcome


def analysed_ahead(claim: str) -> None:
    """Work out the analyses of ``claim`` as the write's check will make them (its text
    cleaned), before the session lock is taken: the check under the lock finds them
    memoised (:func:`~waymarks.core.contradiction.signature`), and a process's first
    memory write loads the check's modules and compiles its patterns here
    (:func:`~waymarks.core.check_ahead.prepare`). With 8 processes writing to one
    session, every other writer waited for that work. A text the check refuses is left
    to it (it refuses it before any analysis), as is one the analysis fails on: the check
    meets that failure again where it met it before (a memo keeps no failure), or never
    (a duplicate is answered first); raised here, it ended the write before its turn."""
    cleaned = clean_text(claim, what="Memory claim", limit=MAX_CLAIM_CHARS)
    if isinstance(cleaned, str):
        check_ahead.prepare(cleaned)


def pin_checked_ahead(content: str) -> None:
    """Check a pin's text for credentials as its decision will (:func:`clean_text`), before
    the session lock is taken: a process's first pin compiles the credential rules' patterns
    here (4 of them, 3-4 ms of CPU, measured) instead of while every other writer waits
    for the lock, as a claim's are (:func:`analysed_ahead`). It decides nothing: the
    decision under the lock checks the text again (10-25 us for a short one)."""
    clean_text(content, what="Pin content", limit=MAX_PIN_CHARS)


def embed_written(app: Waymarks, outcome: WriteOutcome) -> None:
    """With the semantic extra, have the memory just written embedded by the home's
    background worker (:func:`~waymarks.service.semantic_backfill.wake`): the writer
    loads no model and embeds nothing, so a write costs what it costs without the extra;
    recall scores the claim lexically until its vector is there. Without it, nothing."""
    if isinstance(outcome, Committed):
        semantic_backfill.wake(app.home)


def unsaved(session: SessionLog) -> str | None:
    """Why an entry appended to ``session`` now might never be stored (a host that has
    not written its session file yet: :meth:`HostSessionLog.unsaved`), else ``None``.
    A tool asks before its confirmation, so the refusal comes before the question. A host's
    ledger is made by a process that imported its module (the Pi bridge): in any other,
    nothing is imported to tell (``threading``, ``dataclasses`` and ``copy`` with it: ~4.5 ms
    of CPU, measured, of each process's first write)."""
    if "waymarks.ledger.host" not in sys.modules:
        return None
    from waymarks.ledger.host import HostSessionLog

    return session.unsaved() if isinstance(session, HostSessionLog) else None


def decided_now(app: Waymarks, projection: Store, session: SessionLog,
                decide: Callable[[WriteContext], Decision], guard: Guard | None
                ) -> tuple[Decision, int | None]:
    """A write's decision against the synced projection (call under the session lock),
    and the time (ms) its entry must carry to follow the item it changes, if that lies
    ahead of now (:func:`after_target`: decided again at that time)."""
    ctx = context(app, projection, session)
    decision = decided(app, ctx, decide, guard)
    later = after_target(projection, ctx, decision)
    if later is not None:
        refused = ahead_refused(ctx, later)
        if refused is not None:
            return refused, None
        decision = decided(app, msgspec.structs.replace(ctx, now_ms=later), decide, guard)
    return decision, later


def fold_siblings(app: Waymarks) -> None:
    """Index what this project's other sessions appended (:func:`refresh_sources`)."""
    try:
        refresh_sources(app, app.current_session())
    except sqlite3.Error as exc:  # a full disk, say
        raise database_error(exc, app.db_path) from exc


class SiblingsWritten(Exception):
    """Another session of the project appended after this write folded them."""


@io_errors()  # (a full disk raised a raw OSError from the ledger's append)
def write(app: Waymarks, decide: Callable[[WriteContext], Decision],
          guard: Guard | None = None, *, retry: bool = True, fold: bool = True
          ) -> WriteOutcome:
    """Decide, append and project one write under the session lock (module docstring)."""
    refuse_home_gone(app)  # (its database's lock file was opened there: a raw error)
    # what sibling sessions appended is folded first (once a request): an entry whose
    # writer was killed before its projection committed was not, so this write decided
    # without it, was reported committed, and lost to it on the next read
    if app._snapshot is None:  # (a request folded them once, at its start)
        fold_siblings(app)  # the session itself is brought up to date under the lock
    if app.current_session() is None:
        # decide against an empty session first, so a refused write creates no file
        try:
            with app.projection.transaction():  # read-only: the decision writes nothing
                ctx = context(app, app.projection, None)
                first = decided(app, ctx, decide, guard)
        except sqlite3.Error as exc:  # nothing appended: reopen (or repair) and decide again
            if not is_damage(exc) or not retry:  # (another process replaced the file)
                raise database_error(exc, app.db_path) from exc
            app._recover(exc)
            return write(app, decide, guard, retry=False, fold=fold)
        if not isinstance(first, PinMutation | MemoryMutation):
            return first
        if app.rehearsing:  # would create the session file and append: stop before either
            raise Rehearsed(custom_type_of(first))
    session = app.current_session(create=True)
    assert session is not None
    if (problem := unsaved(session)) is not None:
        return Rejected("not_saved", problem)
    if (held := open_in_pi(app.home, session)) is not None:  # before anything is appended
        return Rejected("open_in_pi", held)
    appended: Entry | None = None
    mutation: Mutation | None = None
    try:
        with app._synced(session) as projection:
            if fold and siblings_written(app, session):
                # decided without that entry, a copy of its text (or a claim it
                # contradicts) was added beside it: fold it, and decide once more
                raise SiblingsWritten
            decision, later = decided_now(app, projection, session, decide, guard)
            if isinstance(decision, PinMutation | MemoryMutation) and session.partial_tail \
                    and not app.rehearsing:
                # the last line lacks its newline (a full disk stops a write just before
                # it, and the person is told it failed): the append would end it, and a
                # complete line then counts, after this was decided without it. End it
                # and decide again, so a retry of that write is its duplicate (the ID it
                # already has), not a second item, and a conflict with it is refused
                session.end_partial_line()
                projection.sync(session, app._now_ms())
                decision, later = decided_now(app, projection, session, decide, guard)
            if not isinstance(decision, PinMutation | MemoryMutation):
                return decision
            mutation = decision
            settled = active_status(app, session)  # read just now, under the lock
            if settled is not None:
                projection.set_source_status(session.session_id, *settled, app._now_ms())
            refused = project_write_refused(projection, session, mutation, app.cwd)
            if refused is not None:
                return refused
            if app.rehearsing:  # every check passed; append nothing
                raise Rehearsed(custom_type_of(mutation))
            moment = app.clock.now()
            if later is not None:
                moment = max(moment, datetime.fromtimestamp(later / 1000, UTC))
            appended = session.append(
                {"type": "custom", "customType": custom_type_of(mutation),
                 "data": mutation, "timestamp": iso(moment)},
                app.ids.entry_id,
            )
            projection.sync(session, app._now_ms())
            unapplied = not_applied(projection, session, appended.id, mutation)
            if unapplied is not None:
                return unapplied
            if isinstance(mutation, MemoryMutation):
                # its subject rows, while this process's memo holds its signature: left
                # to the next write, in another process, that one worked it out again
                claims_caught_up(app, projection)
    except SiblingsWritten:
        fold_siblings(app)
        return write(app, decide, guard, retry=retry, fold=False)
    except sqlite3.Error as exc:
        damaged = is_damage(exc)
        if appended is None or mutation is None:  # nothing reached the ledger
            if not damaged or not retry:
                raise database_error(exc, app.db_path) from exc
            app._recover(exc)
            return write(app, decide, guard, retry=False)
        # The ledger holds the write, so it is committed; the projection catches up on
        # the next command (or now, if the database was damaged and is rebuilt).
        if damaged:
            app._recover(exc)
        return committed_outcome(mutation, appended.id,
                          warning=f"projection not updated yet: {exc}")
    assert mutation is not None and appended is not None
    return committed_outcome(mutation, appended.id)
