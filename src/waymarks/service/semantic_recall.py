"""Hybrid recall's two jobs in the service: the query's semantic side, and embedding records.

On the prompt path (:func:`semantic_side_for`) only the *query* is embedded: the stored
records' vectors are read (or held in memory by a long-lived process) and compared, the
nearest ones the lexical side missed join the candidates, and scoring fuses the two
(:mod:`waymarks.recall.fusion`). A record without a current vector is scored lexically.

Records are embedded off the prompt path and outside the writer (:func:`embed_pending`):
by the home's background worker, woken after a write or a rebuild
(:mod:`waymarks.service.semantic_backfill`), and in bulk by ``waymarks index --semantic``
(resumable: each batch is committed, and a rerun continues with the records still
missing). Without the extra (``waymarks[semantic]``) or with ``WAYMARKS_SEMANTIC=off``,
every function here is a no-op and recall is exactly the lexical engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core.text import named_command, well_formed
from waymarks.recall.fusion import (
    CENTRED_CANDIDATES,
    SEMANTIC_CANDIDATES,
    Embedder,
    Semantic,
    centred_script,
    centres,
    semantic_side,
)
from waymarks.recall.scoring import Candidate
from waymarks.semantic import (
    SWITCH,
    EmbedderBroken,
    Nearest,
    enabled,
    load,
    new_matrix,
    switch_problem,
    unit_vector,
)
from waymarks.service.failure_marks import fresh, until
from waymarks.service.outcomes import ServiceError
from waymarks.service.semantic_memo import VectorMemo as VectorMemo
from waymarks.service.semantic_memo import advance_sum
from waymarks.service.semantic_unseen import Unseen
from waymarks.store.recall_index import RecallIndex
from waymarks.store.recall_vectors import VectorStore
from waymarks.store.writer_lock import WriterBusy

if TYPE_CHECKING:
    from pathlib import Path

    from waymarks.service.app import Waymarks
    from waymarks.service.semantic_skips import Guard
    from waymarks.store.recall_cache import RecallCache

#: records embedded per committed batch by :func:`embed_pending`
BATCH: Final = 32
#: how long after such a failure a one-shot recall wakes no worker to write it: each one
#: woke a worker, a process and a model load (0.3 s of CPU), failing the same way
KEPT_RETRY_S: Final = 300
#: no record set aside
NONE_SKIPPED: Final[Mapping[str, str]] = MappingProxyType({})


#: the code of the error a broken extra raises (:func:`loaded`)
BROKEN: Final = "semantic_broken"


def loaded() -> Embedder | None:
    """The process's embedder (:func:`waymarks.semantic.load`), an extra that is installed
    but cannot be loaded as the service's error (exit 1, code ``semantic_broken``, the
    way to mend it)."""
    try:
        return load()
    except EmbedderBroken as exc:
        raise ServiceError(BROKEN, str(exc)) from exc


def semantic_side_for(app: Waymarks, index: RecallIndex, query: str,
                      lexical: Sequence[Candidate], visible: tuple[str, str | None],
                      memo: VectorMemo | None = None, cache: RecallCache | None = None, *,
                      active_only: bool = True) -> tuple[list[Candidate], Semantic | None]:
    """The candidates with the records nearest in meaning added, and the query's
    similarities; ``(lexical, None)`` without an embedder or without stored vectors.

    A vector embedded after the memo passed its row (a damaged one dropped and embedded
    again, a late ``index --semantic`` for an old record) makes the memo start over
    (:meth:`VectorStore.rewrites`), as a new index generation or session does.

    ``active_only`` (a query for claims in effect): the nearest records are chosen among
    those in effect, as the lexical candidates are. Chosen among every record, the
    retired versions of a claim corrected 30 times took the ``SEMANTIC_CANDIDATES``
    places and were dropped, and the one in effect was never found by meaning. A
    one-shot process reads every vector at once (:func:`kept_vectors`) and leaves out of
    the nearest the records its session may not use or that are not in effect (one read
    of their row IDs, no vector); a long-lived one holds
    every vector (``memo``, for queries of every status too) and leaves out the records
    its in-memory index (``cache``) knows are retired, noting there any it finds retired
    when it reads them (an invalidated claim adds no record), then takes the next ones."""
    if not query.strip():
        return list(lexical), None
    store = VectorStore(index.db)
    if memo is None and not store.present():
        # a one-shot process with nothing to compare against: importing NumPy and loading
        # the model would cost about 250 ms of CPU for a result that cannot change
        return list(lexical), None
    embedder = loaded()
    if embedder is None:
        return list(lexical), None
    retired = cache.retired if cache is not None and active_only else None
    lexical_ids = [c.id for c in lexical]
    unseen = None
    if memo is not None:
        held = memo.current(store, embedder, visible, index.generation())
        empty = not len(held)
    else:
        held = kept_vectors(app, store, embedder)
        # the records the session may not use are left out of the nearest, as a warm
        # process's retired ones are; the lexical candidates are all among the others
        unseen = Unseen(held, partial(store.visible_records, visible, active_only=active_only))
        retired = unseen.start(lexical_ids)
        empty = not held.shown(retired) if unseen.whole else False
    # the model's tokenizer encodes UTF-8: half of a surrogate pair (JSON may escape one)
    # raised there, where the lexical engine takes any str
    vector = None if empty else embedder.query(well_formed(query))
    # hub values over every stored vector, on both paths (:class:`VectorMemo.crowd_of`)
    crowd = None if vector is None or not centred_script(embedder.calibration, query) else (
        held.crowd() if memo is None else memo.crowd_of(store, embedder))
    centred = CENTRED_CANDIDATES if crowd is not None and centres(
        embedder.calibration, query, crowd.count) else 0
    while True:
        ids, cosines = ([], []) if vector is None else held.nearest(
            vector, lexical_ids, SEMANTIC_CANDIDATES, retired, centred, crowd)
        if unseen is not None and unseen.found_among(ids):
            retired = unseen.flags  # (chosen again without them)
            continue
        side, extra = semantic_side(ids, cosines, lexical_ids, embedder.calibration,
                                    query=query, hubs=held.hubs(ids, crowd)
                                    if centred and crowd is not None else ())
        found = store.candidates(extra) if extra else []
        gone = [c.id for c in found if c.status != "active"] if active_only else []
        # (each time, at least one record noted retired: never again among the nearest)
        if not gone or cache is None or not cache.retire_items(gone):
            break
    if store.damaged or held.rejected:  # the matrix names its rejects when it is built
        drop_damaged(app, store, held, embedder)
    if empty:
        if_missing_wake(app, store, embedder.model)
        return list(lexical), None
    return [*lexical, *(c for c in found if c.id not in gone)], side


def kept_vectors(app: Waymarks, store: VectorStore, embedder: Embedder) -> Nearest:
    """Every current vector of the embedder's model, for a one-shot process: from the file
    beside the projection when it was written from the rows stored now
    (:mod:`waymarks.semantic.sidecar`: one mapped read), else read from SQLite, each row
    checked. The prompt path only reads the file: one that is missing, stale or damaged
    is written by the home's background worker, woken here (one ``open`` and a failed
    ``flock`` while it runs), after it embeds (:func:`refresh_kept_vectors`); the first
    one-shot recall after the rows changed paid the read, the file's write and its
    ``fsync`` (10k: 21-33 ms of CPU, 77-98 ms wall). One that cannot be read (a directory
    or a FIFO in its place) leaves the rows read from SQLite, the same answers."""
    from waymarks.semantic import sidecar
    from waymarks.service.semantic_backfill import wake

    path = _kept_file(store)
    if path is not None:
        try:
            kept = sidecar.read(path, store.stamp(), embedder.model, embedder.dim,
                                store.kept_written())
        except sidecar.Damaged:
            kept = None
        except OSError:
            kept, path = None, None
        if kept is not None:
            return kept
    held = new_matrix(embedder.dim)
    held.extend(store.vectors(embedder.model))
    if path is not None and len(held) and not store.damaged and _replaceable(path) \
            and kept_unwritable(app.home, store) is None:
        wake(app.home)  # (the worker writes it anew; damaged rows: once they are dropped)
    return held


def _kept_file(store: VectorStore) -> Path | None:
    """Where the file of kept vectors of ``store``'s database is (``None`` in memory)."""
    from waymarks.semantic import sidecar

    database = store.database_file()
    return sidecar.path_of(database) if database else None


def _replaceable(path: Path) -> bool:
    """Whether the worker may write the file of kept vectors at ``path``: nothing there,
    or a regular file. A symbolic link is read through but never replaced (the atomic
    write refuses one, as it refuses a directory or a FIFO): a stale or foreign file
    behind one woke a worker on every one-shot recall, each reading every row to write
    nothing."""
    from waymarks.files.atomic import refuse_unless_regular

    try:
        refuse_unless_regular(str(path))
    except OSError:  # (NotARegularFile, or a home that cannot be looked in)
        return False
    return True


def refresh_kept_vectors(app: Waymarks, vectors: Vectors | None = None,
                         still_home: Callable[[], object] | None = None) -> bool:
    """Write the file :func:`kept_vectors` reads when it does not hold the rows stored now
    (missing, stale or damaged: a damaged one noted in the log once it is replaced);
    whether it wrote. The
    background worker's and ``waymarks index --semantic``'s, after they embed: never a
    prompt's. Not written when a row read is damaged (a recall drops it, and the worker
    embeds its record again, then writes it) nor when a write landed during the read.
    ``still_home``: the worker's check that its home is its own, made before the write."""
    from waymarks.semantic import sidecar
    from waymarks.service.logs import log_event

    vectors = vectors if vectors is not None else vectors_of(app, catch_up=False)
    if vectors is None:
        return False
    embedder, store = vectors.embedder, VectorStore(vectors.index.db)
    path = _kept_file(store)
    if path is None or not _replaceable(path):
        return False
    stamp = store.stamp()
    damaged = False
    try:
        if sidecar.read(path, stamp, embedder.model, embedder.dim) is not None:
            return False
    except sidecar.Damaged:
        damaged = True  # (said once it is replaced: each pass that could not said it again)
    except OSError:
        return False
    held = new_matrix(embedder.dim)
    held.extend(store.vectors(embedder.model))
    if not len(held):
        return False
    held.rows()  # (built now: the rows that are not unit vectors are named)
    if store.damaged or held.rejected or store.stamp() != stamp:
        return False
    if still_home is not None:
        still_home()
    try:
        sidecar.write(path, stamp, embedder.model, held)
    except OSError as exc:  # a full disk, a read-only home: the rows are read from SQLite
        _kept_write_failed(app, store, exc)
        return False
    if damaged:
        log_event(app.home, app.clock.now(), "semantic_vectors_file_replaced", code="damaged")
    _note_kept(app, partial(store.note_kept_written, sidecar.identity(path)))
    return True


def _kept_write_failed(app: Waymarks, store: VectorStore, exc: OSError) -> None:
    """The file of kept vectors could not be written: marked in the projection
    (:meth:`VectorStore.note_kept_failed`), so the one-shot recalls of the next
    :data:`KEPT_RETRY_S` seconds wake no worker for it (each started one, a process and a
    model load, failing the same way), and logged (``semantic_vectors_file_failed``, the
    error's code) when no mark was there: once while it keeps failing. A mark left as a
    file in the home was lost where the home could take no new file (out of inodes, a
    full disk the database still had room in): every pass logged again, every recall woke
    a worker and ``status`` said nothing."""
    import errno
    import time

    from waymarks.service.logs import log_event

    code = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
    if store.kept_failed() is None:
        log_event(app.home, app.clock.now(), "semantic_vectors_file_failed", code=code)
    _note_kept(app, partial(store.note_kept_failed, code, time.time()))


def _note_kept(app: Waymarks, note: Callable[[], None]) -> None:
    """Note how the write of the file of kept vectors went (``note``: a
    :class:`VectorStore` method's); nothing when the database cannot take it (a full disk
    may be why): a failure unmarked wakes a worker from the next recall, as before there
    were marks, and a file written but not noted is checked whole by each reader."""
    import sqlite3

    with suppress(sqlite3.Error, OSError, ServiceError), app.projection.transaction():
        note()


def kept_unwritable(home: Path, store: VectorStore) -> str | None:
    """Why no worker is woken to write ``home``'s file of kept vectors now (the last write
    failed less than :data:`KEPT_RETRY_S` ago, as ``store``'s projection notes), with the
    fix; else ``None``."""
    marked = store.kept_failed()
    failed = None if marked is None else fresh(*marked, KEPT_RETRY_S)
    if failed is None:
        return None
    code, failed_at = failed
    return (f"the file of kept vectors in {home} could not be written ({code}), so each "
            f"one-shot recall reads the vectors from the database (slower, the same "
            f"answers) and no worker tries again before {until(failed_at, KEPT_RETRY_S)}: "
            f"free space on its disk or make the folder writable, then run "
            f"`{named_command(str(home), 'index', '--semantic')}`")


def if_missing_wake(app: Waymarks, store: VectorStore, model: str) -> None:
    """Vectors are stored, but none of ``model`` that this query may use: after an engine
    upgrade (a new model string) every record holds the old model's, which no write
    replaces; a recall fell back to the lexical engine for ever, nothing re-embedding.
    Wake the background worker when records miss a vector of ``model`` (a probe past
    its watermark; a running worker costs the wake an ``open`` and a ``flock``)."""
    from waymarks.service.semantic_backfill import wake
    from waymarks.service.semantic_skips import skipped

    if store.missing(model, 1, skipped(app.home, model)):
        wake(app.home)


def drop_damaged(app: Waymarks, store: VectorStore, held: Nearest, embedder: Embedder
                 ) -> None:
    """Drop the vector rows the read found damaged, and those the matrix left out (not
    unit vectors of the embedder's length), and wake the background worker to embed their
    records again; the rest of the database is sound and stays (the records are scored
    lexically meanwhile).

    Only when the writer's turn is free at once: a recall that waited for it here queued
    behind every writer for a repair it does not need, and failed after the busy timeout
    behind one stopped holding it. When busy, the rows stay (their records scored
    lexically); a long-lived process keeps their IDs to try again at its next recall, a
    one-shot one's next recall finds them again, and ``index --semantic`` drops them."""
    from waymarks.service.semantic_backfill import wake

    ids = [*store.damaged, *held.rejected]
    store.damaged.clear()
    held.rejected.clear()
    try:
        with app.projection.transaction(wait=False):
            store.drop_damaged(ids, embedder.model, unit_vector(embedder.dim))
    except WriterBusy:
        held.rejected.extend(ids)  # (the memo's: looked at again by its next recall)
        return
    wake(app.home)


def drop_unsound(app: Waymarks, vectors: Vectors) -> int:
    """``waymarks index --semantic``: drop every stored row that is damaged (fails its
    checksum, or is no unit vector of the embedder's length), so that its record is
    embedded with the ones missing; how many. A recall finds only the rows it reads (of
    what its session may see); this reads them all (a full pass, as ``health`` makes)."""
    store = VectorStore(vectors.index.db)
    model, usable = vectors.embedder.model, unit_vector(vectors.embedder.dim)
    with app.projection.transaction():
        store.recheck_done(model, vectors.skipped)
        return store.drop_damaged(store.unsound(model, usable), model, usable)


ProgressFn = Callable[[int, int], None]


def embed_pending(index: RecallIndex, embedder: Embedder | None = None,
                  limit: int | None = None, progress: ProgressFn | None = None,
                  transaction: Callable[[], AbstractContextManager[object]] | None = None,
                  before_batch: Callable[[], None] | None = None, *,
                  skipped: Mapping[str, str] = NONE_SKIPPED, guard: Guard | None = None
                  ) -> int:
    """Embed records that have no current vector, in committed batches; returns how many.

    ``limit``: stop after about this many (``None``: all). ``progress(done, total)`` after
    each batch. ``transaction``: a context manager factory for each batch's write (the
    projection's), so an interrupted run keeps every finished batch. ``before_batch``:
    called before each batch's records are chosen (it may wait). ``skipped``: records set
    aside, left out (:func:`waymarks.service.semantic_skips.skipped`); ``guard``: the
    background worker's, which notes each engine call and sets aside what fails (its
    ``skipped`` then)."""
    embedder = embedder if embedder is not None else loaded()
    if embedder is None:
        return 0
    store = VectorStore(index.db)
    records, done_before = store.counts(embedder.model)
    total = records - done_before
    done = 0
    while limit is None or done < limit:
        size = BATCH if limit is None else min(BATCH, limit - done)
        if before_batch is not None:
            before_batch()
        skip = guard.skipped if guard is not None else skipped
        todo = store.missing(embedder.model, size, skip)
        if not todo:
            break
        rows = guard.embed(embedder, todo) if guard is not None else [
            (i, t, v) for (i, t), v in zip(
                todo, embedder.passages([text for _, text in todo]), strict=True)]
        with transaction() if transaction is not None else nullcontext():
            store.put(embedder.model, rows)
            store.settle(embedder.model, skip)  # past this batch: the next looks after it
            advance_sum(store, embedder, index.generation())  # (when one is kept)
        done += len(rows)  # without the ones set aside (the next batch is after them)
        if progress is not None:
            progress(done, max(total, done))
    return done


class Vectors(msgspec.Struct, frozen=True):
    """The process's embedder and the recall index whose records it embeds."""

    embedder: Embedder
    index: RecallIndex
    #: records the background worker set aside (:mod:`waymarks.service.semantic_skips`)
    skipped: Mapping[str, str] = NONE_SKIPPED

    def counts(self) -> tuple[int, int]:
        """(records, records with a current vector)."""
        return VectorStore(self.index.db).counts(self.embedder.model)

    def set_aside(self) -> int:
        """How many records were set aside as ones that cannot be embedded."""
        return VectorStore(self.index.db).records_among(self.skipped) if self.skipped else 0

    def missing(self) -> int:
        """How many records have no current vector and are not set aside (when none has,
        as it usually is, without counting: records past the vectors' watermark are
        looked at)."""
        if not VectorStore(self.index.db).missing(self.embedder.model, 1, self.skipped):
            return 0
        records, vectors = self.counts()
        return max(records - vectors - self.set_aside(), 1)  # another text's is counted

    def summary(self, embedded: int, **first: object) -> dict[str, Any]:
        """What ``waymarks index --semantic`` reports: ``first``, what was embedded here,
        the counts and the model."""
        records, vectors = self.counts()
        return {"available": True, **first, "embedded": embedded, "records": records,
                "vectors": vectors, "model": self.embedder.model}


#: what ``waymarks index --semantic`` reports without the extra
UNAVAILABLE: Final[Mapping[str, object]] = MappingProxyType({"available": False,
                                                             "embedded": 0})


def unavailable(**first: object) -> dict[str, Any]:
    """What is reported without an embedder: ``first``, and ``problem`` when the switch
    holds a value that is neither on nor off (it is then off)."""
    problem = switch_problem()
    return {**first, "available": False} if problem is None else {
        **first, "available": False, "problem": problem}


def missing_reason() -> str:
    """Why there is no embedder where the switch holds an on or off value, with its fix:
    the switch when it is off, else the extra (one sentence named both, "not installed
    … or WAYMARKS_SEMANTIC is off", to a person who had switched it off)."""
    if not enabled():
        return (f"{SWITCH} is off ({SWITCH}={os.environ.get(SWITCH, '')!r}): unset it, or "
                "set it to on, to embed; recall stays lexical")
    return ("the semantic extra is not installed (pip install 'waymarks[semantic]'); "
            "recall stays lexical")


def vectors_of(app: Waymarks, *, catch_up: bool = True,
               transaction: Callable[[], AbstractContextManager[object]] | None = None
               ) -> Vectors | None:
    """The embedder and the recall index, ``catch_up``: caught up with the items first
    (the records as recall, or a worker, would find them; in ``transaction``, by default
    the projection's); ``None`` without the extra."""
    from waymarks.service.semantic_skips import skipped

    embedder = loaded()
    if embedder is None:
        return None
    index = app.projection.recall_index()
    skip = skipped(app.home, embedder.model)
    if catch_up and not app.read_only:  # (else read as it is: nothing is written)
        with (transaction or app.projection.transaction)():
            index.catch_up()
            # the vectors' watermark past what is embedded (after a rebuild: every record
            # looked at once), so that asking what is missing looks only at new records
            VectorStore(index.db).settle(embedder.model, skip)
    return Vectors(embedder, index, skip)


def missing_vectors(app: Waymarks) -> int:
    """How many recall records have no current vector (0 without the extra), counted after
    the index caught up with the items, as a worker would find them."""
    vectors = vectors_of(app)
    return 0 if vectors is None else vectors.missing()


def wait_for_vectors(app: Waymarks, timeout: float) -> dict[str, Any]:
    """``waymarks index --semantic --wait``: wait for the home's background worker until
    every record has a vector (waking one for what is missing; nothing is embedded in
    this process), then the counts; ``waited`` says how it ended (see
    :func:`waymarks.service.semantic_backfill.wait`)."""
    from waymarks.service.recovery import recovering
    from waymarks.service.semantic_backfill import wait

    if vectors_of(app, catch_up=False) is None:  # each count of the wait catches up
        return unavailable(**UNAVAILABLE)
    # each count reopens a database another process replaced (deleted, or set aside as
    # damaged) meanwhile, as any read does: the wait raised a traceback mid-way, while the
    # worker went on to embed every claim into the new one
    waited = wait(app.home, lambda: recovering(missing_vectors)(app), timeout=timeout)
    vectors = recovering(vectors_of)(app, catch_up=False)
    assert vectors is not None
    return vectors.summary(0, waited=waited, **worker_problem(app.home))


def vector_status(app: Waymarks) -> dict[str, object]:
    """How far the stored vectors are (for ``waymarks status``): the model, records,
    records with a current vector, and the background worker's progress. Counts only."""
    from waymarks.service.semantic_backfill import progress, started_unnoted

    try:
        vectors = vectors_of(app)
    except ServiceError as exc:  # status shows it (the command that shows what is wrong)
        if exc.code != BROKEN:
            raise
        return {"available": False, "broken": True, "problem": str(exc)}
    if vectors is None:
        return unavailable()
    records, stored = vectors.counts()
    aside = vectors.set_aside()
    return {"available": True, "model": vectors.embedder.model, "records": records,
            "vectors": stored, "missing": records - stored - aside, "skipped": aside,
            "otherModels": other_model_vectors(app),
            "background": progress(app.home, partial(missing_vectors, app))
            or started_unnoted(app.home),
            **worker_problem(app.home),
            **({"keptFile": kept} if (kept := kept_unwritable(
                app.home, VectorStore(vectors.index.db))) else {})}


def other_model_vectors(app: Waymarks) -> dict[str, int]:
    """Records holding only another model's vector, by model (for ``health``; nothing
    without the extra): not used, and embedded again by the background worker."""
    vectors = vectors_of(app, catch_up=False)
    return {} if vectors is None else VectorStore(vectors.index.db).other_models(
        vectors.embedder.model)


def worker_problem(home: Path) -> dict[str, str]:
    """``{"problem": ...}`` when ``WAYMARKS_SEMANTIC_BACKFILL`` holds a value that is
    neither on nor off (the background worker is then off), as :func:`unavailable` says
    ``WAYMARKS_SEMANTIC``'s, or when the worker's lock in ``home`` cannot be opened (no
    worker can start); else nothing."""
    from waymarks.service import semantic_backfill

    problem = semantic_backfill.switch_problem()
    if problem is None and semantic_backfill.available():
        problem = semantic_backfill.lock_problem(home)
    return {} if problem is None else {"problem": problem}
