"""The full rebuild of the projection: every derived row written again from the ledgers.

A rebuild folds every record in memory and bulk-loads ``items``, ``mutations``,
``entries`` and the recall index with their indexes dropped and built once after the
rows (:mod:`waymarks.store.bulk`), the cyclic GC paused; a re-fold
(:meth:`Projection.refold`) writes ``items`` and ``mutations`` the same way from the
stored mutations. Both run inside the caller's transaction: a failed or killed one
leaves the old projection whole."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from waymarks.core.model import MutationRecord
from waymarks.core.rules import ItemState
from waymarks.ledger.log import SessionLog
from waymarks.store import entries as entries_index
from waymarks.store import recall_index
from waymarks.store.integrity import groups_of, write_groups
from waymarks.store.rows import HELD_SEQ, item_row
from waymarks.store.source_policy import LOST_EXCLUSIONS
from waymarks.store.view import INSERT_ITEM

if TYPE_CHECKING:
    from waymarks.store.projection import Projection

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

