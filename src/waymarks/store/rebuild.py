"""The full rebuild of the projection: every derived row written again from the ledgers.

A rebuild folds every record in memory and bulk-loads ``items``, ``mutations``,
``entries`` and the recall index with their indexes dropped and built once after the
rows (:mod:`waymarks.store.bulk`), the cyclic GC paused; a re-fold
(:meth:`Projection.refold`) writes ``items`` and ``mutations`` the same way from the
stored mutations. Both run inside the caller's transaction: a failed or killed one
leaves the old projection whole."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from waymarks.core.model import MutationRecord
from waymarks.core.rules import ItemState
from waymarks.ledger.log import SessionLog
from waymarks.store import entries as entries_index
from waymarks.store import recall_index
from waymarks.store.integrity import groups_of, write_groups
from waymarks.store.migrations import migrate
from waymarks.store.private import private_database
from waymarks.store.rows import item_row
from waymarks.store.source_policy import LOST_EXCLUSIONS
from waymarks.store.view import INSERT_ITEM

if TYPE_CHECKING:
    from waymarks.store.projection import Projection

#: the ``seq`` a held-back mutation's row counts on from: it has no place in the replay
#: order (a rebuild numbers 1..n what it applies), and one numbered right after those
#: took the number of the next record applied, which a rebuild then gave it instead
HELD_SEQ: Final = 1 << 60


def rebuild_in_place(projection: Projection, sessions: Iterable[SessionLog],
                     now_ms: int) -> int:
    """Replace all derived state of ``projection`` with a replay of ``sessions``, inside
    its transaction; returns mutations replayed. The cyclic GC is paused for all of it
    (the recall index too: analysing every claim while a million records are alive made
    each full collection rescan all of them)."""
    from waymarks.core.bulk import gc_paused

    with gc_paused():
        return _rebuild(projection, sessions, now_ms)


def _rebuild(projection: Projection, sessions: Iterable[SessionLog], now_ms: int) -> int:
    from waymarks.store.bulk import bulk_load

    db = projection.db
    for table in ("items", "mutations", "anomalies", "sources"):
        db.execute(f"DELETE FROM {table}")
    # the recall generation survives (the reset below counts it up): other processes'
    # in-memory recall copies compare it to notice a reset; back at 1 they kept
    # postings for renumbered rows and set a healthy database aside as damaged
    db.execute("DELETE FROM meta WHERE name NOT IN ('recall_generation', ?)",
               (LOST_EXCLUSIONS,))  # (local policy's note: not derived)
    entries_index.forget(db)
    records: list[MutationRecord] = []
    with entries_index.bulk(db):
        for session in sessions:
            projection._save_source(session, now_ms)
            entries_index.record(db, session)
            db.executemany(
                "INSERT OR IGNORE INTO anomalies (session_id, line, entry_id, kind, detail)"
                " VALUES (?, ?, ?, ?, ?)",
                [(session.session_id, a.line, a.entry_id, a.kind, a.detail)
                 for a in session.anomalies],
            )
            records.extend(session.records)
    with bulk_load(db, ("items", "mutations", "recall_records")):
        items = write_replay_bulk(projection, records)
        # the recall index too, in the same transaction and from the fold's own states
        # (built lazily, the first recall after a rebuild paid for all of it: about
        # 17 s at 100k memories)
        recall_index.RecallIndex(db).index_states(items)
    # (the claims' subject terms are left to the next write, or to rebuild-index: a
    # rebuild may run inside a read, a hook's, that signs no claim)
    return len(records)


def write_replay(projection: Projection, records: list[MutationRecord]) -> None:
    """Fold ``records`` into emptied ``items`` and ``mutations`` (a re-fold)."""
    from waymarks.core.bulk import gc_paused
    from waymarks.store.bulk import bulk_load

    with gc_paused(), bulk_load(projection.db, ("items", "mutations")):
        write_replay_bulk(projection, records)


def write_replay_bulk(projection: Projection, records: list[MutationRecord]
                      ) -> Iterable[ItemState]:
    """Fold ``records`` into emptied ``items`` and ``mutations`` (inside
    :func:`~waymarks.store.bulk.bulk_load`); returns every item state written.
    The fold's modules are imported here: a recall that finds its projection current
    never folds (nor does any read)."""
    from waymarks.core.replay import SOURCE_EXCLUDED, MemoryView, hold_back, replay_each
    from waymarks.store import claim_subjects

    db = projection.db
    kept, held = hold_back(records, projection.withheld_sessions())
    projection._checkpoints.rewritten()  # (the log holds all of it: copied at the commit)
    recall_index.reset(db)  # item sequence numbers change: re-index on demand
    db.execute("DELETE FROM items")
    claim_subjects.reset(db)  # items are numbered afresh: caught up on demand
    # each mutation's row written as the fold applies it (no list of every effect)
    ordered, view = sorted(kept, key=lambda r: r.order), MemoryView()
    projection._insert_mutations(replay_each(ordered, view))
    projection._insert_mutations(
        (seq, record, SOURCE_EXCLUDED) for seq, record in enumerate(
            sorted(held, key=lambda r: r.order), start=HELD_SEQ + 1))
    states = view.items.values()
    db.executemany(INSERT_ITEM, (item_row(s) for s in states))
    write_groups(db, Counter(
        group for s in states
        for group in groups_of(s.kind, s.session_id, s.item.scope, s.item.project_path)))
    if ordered:
        projection._set_last_order(ordered[-1].order)
    else:
        db.execute("DELETE FROM meta WHERE name = 'last_order'")
    return states


# -- a rebuild into a fresh file ---------------------------------------------------------

#: beside the projection, the file a rebuild writes before it takes the projection's
#: place (one name: what a killed rebuild left there is removed by the next)
FRESH_SUFFIX: Final = ".rebuilding"
#: the tables a rebuild writes again whole; every other table (source exclusions, stored
#: vectors, learned memory, the schema's history) is local state, copied as it is
DERIVED: Final = frozenset({
    "items", "mutations", "anomalies", "sources", "entries", "item_groups", "meta",
    "recall_records", "claim_subjects", "claim_terms", "sqlite_sequence"})
#: what ``meta`` keeps through a rebuild (the rest is derived)
KEPT_META: Final = ("recall_generation", LOST_EXCLUSIONS)
#: how long the old file's log is waited for, held by a reader of an older snapshot,
#: before the new file is copied in instead of renamed
READERS_WAIT_MS: Final = 1000


def rebuild_fresh(projection: Projection, sessions: Iterable[SessionLog], now_ms: int,
                  then: Callable[[], object] | None = None) -> int:
    """Rebuild ``projection`` into a new file beside it and put that file in its place
    once it is whole; returns mutations replayed. ``then`` runs on the new file after the
    replay, before it takes the place (``rebuild-index``'s claim subjects).

    In the writer's turn (not in :meth:`Projection.transaction`): the new file is written
    with no journal, in one transaction synced at its commit (a crash or a full disk leaves the old
    projection in place, and the next rebuild removes the leftover), its local state
    (:data:`DERIVED`'s complement) copied from the old one, then renamed over
    it, after the old one's log was copied into it and emptied
    (:func:`_take_place`). ``projection`` is then open on the new file."""
    path = projection.path
    fresh_path = path.with_name(f"{path.name}{FRESH_SUFFIX}")
    with projection._writer_turn():
        remove_fresh(path)
        private_database(fresh_path)
        fresh = sqlite3.connect(fresh_path, isolation_level=None, check_same_thread=False)
        try:
            fresh.execute("PRAGMA journal_mode = OFF")
            fresh.execute("PRAGMA synchronous = OFF")
            migrate(fresh, now_ms)
            _copy_local_state(fresh, path)
            fresh.execute("PRAGMA synchronous = FULL")  # (its one commit syncs the file)
            fresh.execute("BEGIN")
            count = _replay_into(projection, fresh, sessions, now_ms, then)
            fresh.execute("COMMIT")
            fresh.execute("PRAGMA journal_mode = WAL")  # (stored in the file)
        except BaseException:
            fresh.close()
            remove_fresh(path)
            raise
        fresh.close()
        _take_place(projection, fresh_path, now_ms)
    return count


def remove_fresh(path: Path) -> None:
    """Remove what a rebuild of the projection at ``path`` left beside it (killed)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{FRESH_SUFFIX}{suffix}")


def _copy_local_state(fresh: sqlite3.Connection, path: Path) -> None:
    """Copy into ``fresh`` (its schema made, in a transaction) every row of the old
    projection at ``path`` a rebuild keeps: the tables it does not write, and ``meta``'s
    :data:`KEPT_META`."""
    fresh.execute("ATTACH DATABASE ? AS old", (str(path),))
    fresh.execute("BEGIN")
    try:
        tables = [name for (name,) in fresh.execute(
            "SELECT name FROM old.sqlite_master WHERE type = 'table' AND sql NOT LIKE"
            " 'CREATE VIRTUAL TABLE%' AND name NOT LIKE 'recall_terms%'"
            " AND name NOT LIKE 'sqlite_%' ORDER BY name") if name not in DERIVED]
        for table in tables:
            fresh.execute(f"DELETE FROM main.{table}")  # (the schema's history, say)
            fresh.execute(f"INSERT INTO main.{table} SELECT * FROM old.{table}")
        if fresh.execute("SELECT 1 FROM old.sqlite_master WHERE name = 'sqlite_sequence'"
                         ).fetchone():
            marks = ",".join("?" * len(tables))
            fresh.execute("DELETE FROM main.sqlite_sequence")
            fresh.execute(f"INSERT INTO main.sqlite_sequence SELECT * FROM old.sqlite_sequence"
                          f" WHERE name IN ({marks})", tables)
        fresh.execute("DELETE FROM main.meta")
        fresh.execute("INSERT INTO main.meta SELECT * FROM old.meta WHERE name IN (?, ?)",
                      KEPT_META)
        fresh.execute("COMMIT")
    finally:
        if fresh.in_transaction:
            fresh.execute("ROLLBACK")
        fresh.execute("DETACH DATABASE old")


def _replay_into(projection: Projection, fresh: sqlite3.Connection,
                 sessions: Iterable[SessionLog], now_ms: int,
                 then: Callable[[], object] | None) -> int:
    """:meth:`Projection.rebuild` with ``projection`` writing through ``fresh``."""
    from waymarks.store.view import SqliteView

    old, view = projection.db, projection.view
    projection.db, projection.view = fresh, SqliteView(fresh)
    try:
        count = projection.rebuild(sessions, now_ms)
        if then is not None:
            then()
        return count
    finally:
        projection.db, projection.view = old, view


def _take_place(projection: Projection, fresh_path: Path, now_ms: int) -> None:
    """Put the whole, synced file at ``fresh_path`` in place of ``projection``'s and open
    ``projection`` on it (in the writer's turn). The old file's log is copied into it and
    truncated first, and its ``-wal`` and ``-shm`` removed before the rename: a log left
    beside the new file would be read as its own. A process reading the old file keeps
    reading it (its descriptors), and reopens the new one at its next request, as after
    any replacement (:class:`ProjectionReplaced`). When a reader of an older snapshot
    keeps the log from being emptied, the new file's pages are copied into the old one
    instead, in one transaction (SQLite's backup)."""
    path, db = projection.path, projection.db
    db.execute(f"PRAGMA busy_timeout = {READERS_WAIT_MS}")
    try:
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(projection.busy_timeout_ms)}")
    if busy:
        source = sqlite3.connect(fresh_path)
        try:
            source.backup(db)
        finally:
            source.close()
        remove_fresh(path)
        projection._start_reads()
        projection._checkpoints.committed(db)  # (the log holds the whole database now)
        return
    placement = projection.placement
    projection.close()
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
    os.replace(fresh_path, path)
    from waymarks.ledger.session_file import fsync_dir

    fsync_dir(path.parent)
    projection.__init__(path, now_ms, projection.busy_timeout_ms)  # type: ignore[misc]
    projection.placement = placement

