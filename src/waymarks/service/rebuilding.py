"""The projection's life beside the requests: filled when new, set aside and rebuilt when
damaged, rebuilt on request, and embedded for hybrid recall in the background.

What must stay true: a new (or deleted) database starts from every ledger of the home, so
deleting it loses nothing; a damaged one is set aside (kept for inspection) and a new one
rebuilt from every known ledger, never a traceback; a rebuild that replayed something
starts the one background embedding worker (never embedding on a request's path), and
one that replayed nothing starts no process.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.ledger.log import ProgressFn, SessionLog
from waymarks.service.database_errors import disk_full
from waymarks.service.kept_exclusions import finish_interrupted_rename
from waymarks.service.outcomes import ServiceError
from waymarks.service.recovery import (
    SQLITE_ERRORS,
    all_session_files,
    database_error,
    finish_interrupted_repair,
    is_damage,
    prepare_database_files,
    read_as_it_is,
    read_ledgers,
    start_afresh,
)
from waymarks.service.sources import placement
from waymarks.store.integrity import (
    CUT_TO_NOTHING,
    ProjectionDamaged,
    ProjectionReplaced,
    cut_to_nothing,
)
from waymarks.store.migrations import SchemaTooNewError
from waymarks.store.projection import Projection
from waymarks.store.writer_lock import FileIdentity, file_identity, file_stat, writer_turn

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.store.protocol import Store

#: the service object whose :func:`rebuild_index` runs in this context: a projection it
#: opens new or anew (the damaged one set aside) is not filled first (the rebuild
#: replays every ledger right after)
_REBUILDING: ContextVar[Waymarks | None] = ContextVar("waymarks_rebuilding", default=None)


def fill_if_new(app: Waymarks, projection: Store) -> None:
    """Replay every ledger of the home into ``projection`` if it holds no source yet,
    after taking over the source exclusions of a repair that stopped before the new
    database held them (:func:`finish_interrupted_repair`: ``app.recovered`` says so)."""
    if isinstance(projection, Projection):
        try:
            finished = finish_interrupted_repair(projection, app.db_path,
                                                 app.busy_timeout_ms / 1000)
        except (sqlite3.Error, OSError) as exc:
            raise database_error(exc, app.db_path) from exc
        if finished is not None:
            app.recovered = finished
    if projection.has_sources() or _REBUILDING.get() is app or not (
            files := all_session_files(app.home)):
        return
    _unless_too_long(app, projection, files)
    sessions, _unreadable = ledgers(app)
    replayed = 0
    with projection.transaction():
        if not projection.has_sources():  # nobody else did meanwhile
            replayed = projection.rebuild(sessions, app._now_ms())
    from waymarks.service.projection_fill import fill_failed

    fill_failed(app.home, None)  # filled: a detached fill's failure no longer holds one back
    embed_in_background(app, replayed)


def open_projection(app: Waymarks) -> None:
    """Open ``app``'s database as its projection (``app._projection``): made and filled
    if new; one damaged set aside and rebuilt (:meth:`Waymarks._recover`), unless another
    process replaced it meanwhile; one that cannot be written (a full disk) read as it is
    (:func:`.recovery.read_as_it_is`); a schema newer than this code refused."""
    prepare_database_files(app.db_path)
    finish_interrupted_rename(app.db_path, app.busy_timeout_ms / 1000)
    found = file_identity(app.db_path)  # the file a failure below is about
    try:
        projection = app._projection = Projection(app.db_path, app._now_ms(),
                                                  app.busy_timeout_ms)
    except SchemaTooNewError as exc:
        raise ServiceError("schema_too_new", str(exc)) from exc
    except SQLITE_ERRORS as exc:  # ProjectionDamaged included
        if not is_damage(exc):
            app._projection = read_as_it_is(app, exc)  # (a full disk)
            return
        app._recover(exc, found)
        return
    projection.placement = partial(placement, app)
    try:  # (a hook's first use is here, outside any request's recovery)
        fill_if_new(app, projection)
    except SQLITE_ERRORS as exc:  # damaged, or set aside by another process, since the
        if not is_damage(exc):  # open: repaired, or reopened
            raise
        app._recover(exc)


def let_go_if_read_only(app: Waymarks) -> None:
    """Between requests, once room is freed, drop the stale note of a full disk and close
    a database read as it is: a long-lived process opens it as usual again (it read that
    copy for good). The session's entry index read through it goes too (it failed: a
    closed database)."""
    if app.stale_note is None:
        return
    from waymarks.files.space import nearly_full  # (only a request that had a note asks)

    if not nearly_full(app.home):  # (room again)
        app.stale_note = None  # (read as it is, or a recall that could not index)
        if app.read_only:
            close_quietly(app._projection)
            app._projection = None
            if app._session is not None:
                app._session.drop_index()


def _unless_too_long(app: Waymarks, projection: Store, files: list[Path]) -> None:
    """For a hurried ``app`` (a hook), a fill of its new ``projection`` from ``files``
    longer than it has is left to a process of its own
    (:func:`.projection_fill.leave_to_background`: ``projection_filling``), and the
    projection let go: the next use opens it again (a warm helper's app held it empty)."""
    from waymarks.service import projection_fill

    if not projection_fill.hurried(app):
        return
    try:
        projection_fill.leave_to_background(app, files)
    except ServiceError:
        close_quietly(projection)
        app._projection = None
        raise


def recover(app: Waymarks, problem: Exception, found: FileIdentity | None) -> Projection:
    """Set the damaged database aside and rebuild a new one from every known ledger; the
    new projection (the caller holds it), with ``app.recovered`` saying what happened.

    All of it under the writer's turn, and only if the file at the path is still ``found``,
    the one found damaged: two processes that both found it damaged once each set it aside,
    the second renaming the database the first had just rebuilt (and a write of the first
    then committed into the set-aside copy). The second now opens the new one."""
    with writer_turn(app.db_path, app.busy_timeout_ms / 1000):
        if isinstance(problem, ProjectionReplaced) or (
                found is not None and file_identity(app.db_path) != found):
            return reopen(app)
        return _rebuild_afresh(app, problem)


def refreshed(app: Waymarks, *, request: bool = False) -> SessionLog | None:
    """:meth:`Waymarks._refresh_now` for a request (:meth:`Waymarks.begin`), on the database
    at the path: a long-lived process (the hook helper, an MCP server, the Pi bridge) whose
    database another process set aside and rebuilt, or its own learned-memory store did,
    reopens the new file first (one ``stat`` a request), instead of reading the set-aside
    copy and failing every write; its own file cut to nothing (:func:`cut_to_nothing`) is
    repaired, as damage found while refreshing is, once. For a ``request``
    (:meth:`Waymarks.begin`: a read, a plan, a tool call) a full disk met bringing the
    database up to the ledger has it read as it is (:func:`_read_as_it_is_now`); a write's
    refresh raises it, as the write would fail there (its ledger line may still fit)."""
    held = getattr(app._projection, "identity", None)
    found = file_stat(app.db_path) if held is not None else None  # (one stat: both ask)
    if held is not None and (found is None or (found.st_dev, found.st_ino) != held):
        if found is None:
            refuse_home_gone(app)
        app._recover(ProjectionReplaced(f"{app.db_path} was replaced by another process"))
    elif found is not None and cut_to_nothing(app.db_path, found.st_size):  # the same
        app._recover(ProjectionDamaged(CUT_TO_NOTHING))  # file, cut under us: its pages
        # read from a stale log
    try:
        return app._refresh_now()
    except SQLITE_ERRORS as exc:
        if not is_damage(exc):
            if not request or app.read_only or not disk_full(exc, app.db_path):
                raise
            _read_as_it_is_now(app, exc)
        else:
            app._recover(exc)
    return app._refresh_now()


def _read_as_it_is_now(app: Waymarks, problem: Exception) -> None:
    """The disk filled under a process that opened the database with room (the hook's
    helper, the Pi bridge, the MCP server) and bringing it up to its session's ledger, a
    write, failed: from here it reads the database as it is, as a process opened on the
    full disk does (:func:`.recovery.read_as_it_is`), saying so, until room is freed
    (:func:`let_go_if_read_only`). Before, every request failed whole, its pins with it."""
    read = read_as_it_is(app, problem)
    close_quietly(app._projection)
    app._projection = read
    if app._session is not None:  # (its entry index read the closed database)
        app._session.drop_index()


def refuse_home_gone(app: Waymarks) -> None:
    """Refuse (``home_gone``) to go on once the home ``app`` opened its database in is gone
    (deleted or moved while the object was open: ``rm -rf`` to start over). The next call
    raised a raw ``FileNotFoundError`` (the writer's lock file, for the repair), the one
    after made a new, empty home at the path as if nothing had happened, and a write made
    one with its new session. Nothing is read or written and no home is made, as the web
    inspector refuses (``home_gone``), until it is put back; after ``close()``, a call
    starts afresh, as a new command does (a missing home is made on first use)."""
    if app._projection is not None and not app.home.is_dir():
        raise ServiceError("home_gone", (
            f"{app.home}: the Waymarks home this object opened is gone (moved or deleted "
            "while it was open); nothing was read or written, and no new home was made. "
            "Put it back, or close the object (a later call makes a new home there, as a "
            "new command would)"))


def reopen(app: Waymarks) -> Projection:
    """Open the database another process put in place of the one this process held."""
    try:
        projection = Projection(app.db_path, app._now_ms(), app.busy_timeout_ms)
    except sqlite3.Error as exc:
        if isinstance(exc, ProjectionDamaged):
            return _rebuild_afresh(app, exc)  # (still under the writer's turn)
        raise database_error(exc, app.db_path) from exc
    projection.placement = partial(placement, app)
    app._projection = projection
    fill_if_new(app, projection)
    return projection


def _rebuild_afresh(app: Waymarks, problem: Exception) -> Projection:
    projection, app.recovered = start_afresh(app.db_path, problem, app.clock.now())
    projection.placement = partial(placement, app)
    # the app holds it before the ledgers are read: reading them opens the session, which
    # asks the app for its projection; with none held, that opened a second one on the same
    # file, rebuilt it and leaked its connection (each recovery rebuilt twice)
    app._projection = projection
    if _REBUILDING.get() is app:  # (says itself what it could not read)
        return projection
    _unless_too_long(app, projection, all_session_files(app.home))
    sessions, unreadable = ledgers(app)
    with projection.transaction():
        replayed = projection.rebuild(sessions, app._now_ms())
    assert app.recovered is not None
    # what the rebuild could not read is left out of it: said, not passed over in silence
    app.recovered["caveats"] += [f"left out of the rebuild until it can be read: {problem}"
                                 for problem in unreadable]
    embed_in_background(app, replayed)
    return projection


def close_quietly(projection: Store | None) -> None:
    """Close a projection found damaged (closing it may fail too)."""
    if projection is not None:
        with contextlib.suppress(sqlite3.Error):
            projection.close()


def embed_in_background(app: Waymarks, replayed: int) -> None:
    """With the semantic extra, one detached low-priority worker embeds what a rebuild
    replayed (hybrid recall uses what it has meanwhile)."""
    if replayed:
        from waymarks.service import semantic_backfill

        semantic_backfill.wake(app.home)


def embed_recall(app: Waymarks, progress: ProgressFn | None = None, *,
                 background: Callable[[], object] | None = None,
                 waiting: Callable[[], None] | None = None) -> dict[str, Any]:
    """Embed every recall record without a current vector, in committed batches. In the
    foreground (``waymarks index --semantic``) the home's worker pauses before its next
    batch until this ends; the worker (``background``: its check that its home is still
    the one it started in, which raises when not) waits before each batch while one
    runs (:func:`~waymarks.service.semantic_backfill.foreground`). In the foreground the
    stored rows are checked first, and the damaged ones dropped and embedded again
    (``dropped``: how many; :func:`~waymarks.service.semantic_recall.drop_unsound`);
    ``waiting`` is called once if it first waits for another foreground process. Either
    then writes the file of kept vectors a one-shot recall reads, when it is not the rows
    stored now (:func:`~waymarks.service.semantic_recall.refresh_kept_vectors`)."""
    from waymarks.service import semantic_backfill, semantic_recall
    from waymarks.service.semantic_memo import keep_sum
    from waymarks.store.recall_vectors import VectorStore

    transaction: Callable[[], contextlib.AbstractContextManager[object]]
    if background is not None:
        background()  # (before the database is opened: opening creates one)
        transaction = partial(_in_home, app, background)
    else:
        transaction = app.projection.transaction
    vectors = semantic_recall.vectors_of(app, transaction=transaction)
    if vectors is None:
        return semantic_recall.unavailable(**semantic_recall.UNAVAILABLE)
    embed = partial(semantic_recall.embed_pending, vectors.index, vectors.embedder,
                    progress=progress, transaction=transaction)
    if background is not None:  # the worker: what fails, or kills it, is set aside
        from waymarks.service.semantic_skips import Guard

        done = embed(before_batch=partial(_before_batch, app.home, background),
                     guard=Guard(app.home, vectors.embedder.model, background))
        keep_sum(vectors.index, vectors.embedder, transaction)
        semantic_recall.refresh_kept_vectors(app, vectors, background)
    else:
        with semantic_backfill.foreground(app.home, waiting):
            # damaged rows no recall has read (health counts them): embedded again here
            dropped = semantic_recall.drop_unsound(app, vectors)
            done = embed(skipped=vectors.skipped)
        keep_sum(vectors.index, vectors.embedder, transaction)
        # a file it could not write is said, as `status` says it: the command is its fix
        unwritten = None if semantic_recall.refresh_kept_vectors(app, vectors) else (
            semantic_recall.kept_unwritable(app.home, VectorStore(vectors.index.db)))
        return vectors.summary(done, **({"dropped": dropped} if dropped else {}),
                               **({"keptFile": unwritten} if unwritten else {}))
    return vectors.summary(done)


@contextlib.contextmanager
def _in_home(app: Waymarks, still_home: Callable[[], object]) -> Iterator[object]:
    """The worker's write transaction: its home checked first (taking the writer's turn
    creates the lock file, in whatever directory is at the path now), and again when the
    database proves replaced. A home moved away and another put at its path raised
    ``ProjectionReplaced``, which the worker's recovery answered by opening, so creating,
    a database there: the worker wrote into a home that was not its own."""
    still_home()
    try:
        with app.projection.transaction() as db:
            yield db
    except ProjectionReplaced:
        still_home()  # the home is the same: another process replaced its database
        raise


def _before_batch(home: Path, still_home: Callable[[], object]) -> None:
    """Before a worker's batch: its home still there, then no foreground process."""
    from waymarks.service import semantic_backfill

    still_home()
    semantic_backfill.after_foreground(home)


def rebuild_index(app: Waymarks, progress: ProgressFn | None = None,
                  stage: StageFn | None = None) -> dict[str, Any]:
    """Replay every session file of the home (and any other known source) into a fresh
    projection in one transaction, and learned memory too. A database found missing on the
    way (deleted, moved aside) or damaged (set aside) is not filled first: that replayed
    every ledger twice. ``stage(label)`` names each step as it starts (:data:`STAGES`),
    and ``progress`` then counts it when it can be counted (the files' bytes, the
    claims): after the files were read, the rest took seconds at 100k in silence."""
    reset = _REBUILDING.set(app)
    try:
        return _rebuild_index(app, progress, stage or _unnamed)
    finally:
        _REBUILDING.reset(reset)


#: what a rebuild does, in order, as :func:`rebuild_index` names it to its ``stage``
STAGES: Final = ("reading session files", "replaying mutations",
                 "indexing claim subjects", "rebuilding learned memory")
StageFn = Callable[[str], None]


def _unnamed(_label: str) -> None:
    """No one is told which step runs."""


def _rebuild_index(app: Waymarks, progress: ProgressFn | None, stage: StageFn
                   ) -> dict[str, Any]:
    reading, replaying, indexing, learned = STAGES
    known, copied = _apart_from_the_original(
        app.home, [Path(p) for p in app.projection.source_paths()])
    # an indexed file no longer there: its session may have been read from where it was
    # renamed or moved to, and is no loss then (it was listed as unreadable all the same)
    gone = {str(p): app.projection.sessions_indexed_at(str(p), "") for p in known
            if not (p.exists() or p.is_symlink())}  # (a link that loops: reading says so)
    stage(reading)
    sessions, unreadable = ledgers(app, [p for p in known if str(p) not in gone], progress)
    read = {s.session_id for s in sessions}
    unreadable += [f"{path}: no such session file" for path, ids in gone.items()
                   if not read.intersection(ids)]
    from waymarks.core.bulk import gc_paused  # (not at import: a fresh recall loads this)

    with app.projection.transaction():
        stage(replaying)
        count = app.projection.rebuild(sessions, app._now_ms())
        # and the claims' subject terms, which the first write after it worked out for
        # every claim (~10 s CPU at 65k); not in a rebuild a read runs (a hook's, in the
        # filled or repaired database: fill_if_new, recover), which signs no claim. The
        # cyclic GC paused, as for the rest of the rebuild (5 % more CPU at 20k claims)
        stage(indexing)
        with gc_paused():
            unsigned = app.projection.catch_up_claim_subjects(progress)
    from waymarks.service.evolution import LedgerDamaged, rebuild_evolution
    from waymarks.service.evolution_recall import post_every_claim

    stage(learned)
    try:
        evolution_records = rebuild_evolution(app.home, app.clock, app.ids)
        post_every_claim(app.home)  # (emptied with the projection: left to a hook, 10 s+)
    except LedgerDamaged as exc:  # the sessions were rebuilt: that stands, and is said
        evolution_records = None
        unreadable.append(str(exc))
    embed_in_background(app, count)
    return {"sources": len(sessions), "mutations": count, "unreadable": unreadable,
            "evolutionRecords": evolution_records, "unsignedClaims": unsigned,
            "copiedFrom": copied}


def _apart_from_the_original(home: Path, known: list[Path]) -> tuple[list[Path], list[str]]:
    """The indexed files a rebuild reads, and those it leaves to the home this one was
    copied from (``cp -a``: the database still names the original's files): a file outside
    ``home`` whose name this home holds in the same project folder. Read, each was a
    second ledger of its session, skipped and listed as unreadable, as if the original
    home's file were damaged; the copy's own file stands for the session either way. The
    same file by a second path (a bind mount) is left out too, and not named: it is read
    by this home's path."""
    ours = home / "sessions"
    kept: list[Path] = []
    copied: list[str] = []
    for path in known:
        twin = ours / path.parent.name / path.name
        if path.is_relative_to(home) or path.parent.parent.name != "sessions" \
                or not twin.is_file():
            kept.append(path)
            continue
        try:
            same = twin.samefile(path)
        except OSError:  # (the original gone: nothing to name)
            continue
        if not same:
            copied.append(str(path))
    return kept, copied


def ledgers(app: Waymarks, extra: Sequence[Path] = (), progress: ProgressFn | None = None
            ) -> tuple[list[SessionLog], list[str]]:
    """Every session file in the home plus ``extra`` (see :func:`read_ledgers`); the
    current session becomes the one re-read (an unreadable one is reported with the
    others)."""
    try:
        current = app.current_session()
    except ServiceError:
        current = None
    sessions, unreadable = read_ledgers(app.home, current, extra, progress)
    if current is not None:
        app._session = next(
            (s for s in sessions if s.session_id == current.session_id), current)
    return sessions, unreadable
