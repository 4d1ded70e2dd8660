"""The SQLite projection of the session ledgers: apply, checkpoint, rebuild.

Invariants:
- every mutation applied and the checkpoint of its source (byte offset, lines, entries)
  are written in one transaction, so after any crash the projection is either before or
  after a mutation, never half-way, and the next sync continues from the checkpoint;
- mutations are applied in canonical replay order. A sync that finds a record ordered
  before one already applied (a sibling session read late) re-folds everything from the
  stored mutations instead of applying out of order: incremental always equals rebuild;
  so does one that cannot tell from its new records alone which of them a withheld
  source holds back (:mod:`waymarks.store.withheld`);
- the database holds nothing canonical: deleting it loses only derived state;
- every item, mutation, recall and source (checkpoint) row carries its checksum, and
  every item counts in its groups (:mod:`waymarks.store.integrity`), written in the same
  transaction as the row:
  a row read back that fails its checksum, or a listing short of its count, is damage.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Final

import msgspec

from waymarks.core.codec import decode_payload, encode_payload
from waymarks.core.model import (
    MEMORY_CUSTOM_TYPE,
    PIN_CUSTOM_TYPE,
    MemoryMutation,
    MutationRecord,
    PinMutation,
    mutation_kind,
    status_target,
)
from waymarks.core.rules import Applied, MutationEffect, apply_mutation
from waymarks.ledger.log import SessionLog
from waymarks.store import binding, integrity
from waymarks.store import entries as entries_index
from waymarks.store.epoch import Epoch
from waymarks.store.evolution_schema import EXPECTED_COLUMNS as EVOLUTION_COLUMNS
from waymarks.store.evolution_schema import schema_problem
from waymarks.store.integrity import ITEM_COLUMNS as ITEM_COLUMNS  # re-exported
from waymarks.store.integrity import (
    MUTATION_FIELDS,
    SOURCE_FIELDS,
    ProjectionDamaged,
    ProjectionReplaced,
    checksum,
    database_bytes,
    decoding,
    fts_problems,
    verify_all,
    verify_blob_row,
)
from waymarks.store.migrations import migrate
from waymarks.store.private import private_database
from waymarks.store.reads import ProjectionReads
from waymarks.store.rows import HELD_SEQ as HELD_SEQ  # re-exported
from waymarks.store.rows import item_row as item_row  # re-exported
from waymarks.store.rows import state_from_row as state_from_row  # re-exported
from waymarks.store.source_policy import SourcePolicy
from waymarks.store.view import SqliteView as SqliteView  # re-exported
from waymarks.store.wal import Checkpointer, enter_wal
from waymarks.store.writer_lock import WriterBusy, begin_immediate, file_identity, writer_turn

__all__ = ["ITEM_COLUMNS", "Projection", "ProjectionDamaged", "SqliteView", "SyncReport",
           "item_row", "state_from_row"]

BUSY_TIMEOUT_MS: Final = 30_000
_ENCODER: Final = msgspec.json.Encoder()
_INSERT_MUTATION: Final = (
    "INSERT INTO mutations (seq, session_id, entry_id, entry_index, timestamp_ms, mutation_id,"
    " kind, operation, target_id, payload, effect, note, parent_id, checksum)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)

#: the status of a source file outside the directories where its project keeps sessions:
#: read for its own session's items, but its project mutations are held back
FOREIGN_LOCATION: Final = "foreign-location"
#: where a source file may speak for its project: ``None``, or (status, detail) saying why
#: not (the service knows the home and its configured session roots)
Placement = Callable[[SessionLog], tuple[str, str] | None]

#: what each table must have for this version to work with it
EXPECTED_COLUMNS: Final = {
    "items": ITEM_COLUMNS,
    "mutations": "seq, session_id, entry_id, entry_index, timestamp_ms, mutation_id, kind, "
                 "operation, target_id, payload, effect, note, checksum",
    "sources": f"{SOURCE_FIELDS}, updated_at, status, checksum",
    "anomalies": "session_id, line, entry_id, kind, detail",
    "meta": "name, value",
    "recall_records": "item_id, kind, status, origin, created_at, text, fields, body_count,"
                      " evidence, source, checksum",
    "item_groups": "kind, grp, count",
    "entries": "session_id, idx, id, parent_id, seg, compaction, checksum",
    "claim_subjects": "partition, term, item",
    "claim_terms": "partition, term, claims",
    "recall_vectors": "item_id, model, text_hash, vector, checksum",
    **EVOLUTION_COLUMNS,
}


class SyncReport(msgspec.Struct, frozen=True):
    applied: int
    refolded: bool
    skipped: frozenset[str] = frozenset()  # sessions someone else had indexed meanwhile


class Projection(ProjectionReads, SourcePolicy):
    """One SQLite projection database, opened and migrated."""

    def __init__(self, path: Path, now_ms: int, busy_timeout_ms: int = BUSY_TIMEOUT_MS
                 ) -> None:
        """``busy_timeout_ms``: how long a statement or a write's turn waits for another
        process holding the database (a hook, which must answer within its own timeout,
        waits less)."""
        self.path = path
        private_database(path)  # 0600 (and its -wal, -shm): it holds every stored text
        integrity.refuse_cut_to_nothing(path)
        # check_same_thread=False: adapters (the MCP server) may call from a worker thread;
        # they serialize calls themselves, one at a time per service object
        binding.install()
        #: the file this connection opened (a transaction refuses to commit into another);
        #: taken before the open: a file replaced in between is then a harmless reopen,
        #: never a new file's identity on a connection to the set-aside one
        self.identity = file_identity(path)
        self.db = sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000,
                                  check_same_thread=False)
        self.view = SqliteView(self.db)  # (a transaction clears its mark: the checks' too)
        self._checkpoints = Checkpointer(path, busy_timeout_ms / 1000)
        try:
            self.wait_for_others(busy_timeout_ms)
            integrity.refuse_foreign(self.db)  # before WAL mode rewrites its header
            enter_wal(self.db, busy_timeout_ms / 1000)
            # The ledger is the durable copy; the projection can be rebuilt, so NORMAL suffices.
            self.db.execute("PRAGMA synchronous = NORMAL")
            # WAL checkpoints fsync the database: run them beside the write path, not inside it
            self.db.execute("PRAGMA wal_autocheckpoint = 0")
            # a log SQLite starts over (all of it copied) is cut to what the commit that
            # started it wrote: its file's size is then the log's (see store/wal.py)
            self.db.execute("PRAGMA journal_size_limit = 0")
            migrate(self.db, now_ms)
            self._verify()
        except UnicodeDecodeError as exc:
            # SQLite quoted a damaged schema in its error message, which is then not text
            self.db.close()
            raise ProjectionDamaged("the schema holds bytes that are not text") from exc
        except BaseException:
            self.db.close()
            raise
        self._start_reads()

    def _start_reads(self) -> None:
        """The views and memos reads use, over the connection just opened."""
        self.view = SqliteView(self.db)
        self.epoch = Epoch(self.db)
        self._listings = {}
        self._by_id = {}
        self._by_id_token = None
        self._known = None
        self._given_keys = None
        self.placement: Placement = lambda _session: None

    def wait_for_others(self, busy_timeout_ms: int) -> None:
        """Wait ``busy_timeout_ms`` from now on for another process holding the database
        (a statement and a write's turn; the background checkpoints keep theirs)."""
        self.busy_timeout_ms = busy_timeout_ms
        self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")

    def _verify(self) -> None:
        """The schema holds what this version reads; and, while the database is small
        enough for it to be cheap, every row is as written (see
        :mod:`waymarks.store.integrity`)."""
        problem = schema_problem(self.db, EXPECTED_COLUMNS)
        if problem is not None:
            raise ProjectionDamaged(problem)
        if database_bytes(self.db) <= integrity.OPEN_CHECK_MAX_BYTES:
            problems = verify_all(self.db)
            if not problems:  # the index recall answers from (a write statement to SQLite)
                problems = self._fts_problems_if_free()
            if problems:
                raise ProjectionDamaged(problems[0])

    def _fts_problems_if_free(self) -> list[str]:
        """FTS5's check of the recall index, in a write transaction taken only if the
        writer's turn is free at once; else not checked (the next open does): waiting for
        it here made every read of a small home queue behind writers, and fail after the
        busy timeout behind one that was stopped (Ctrl-Z) holding its turn."""
        try:
            with self.transaction(wait=False):
                return fts_problems(self.db, ("recall_terms",))
        except WriterBusy:
            return []

    def close(self) -> None:
        self._checkpoints.close(self.db)
        self.db.close()

    def checkpoints_deferred(self) -> AbstractContextManager[None]:
        """Inside it, a passive checkpoint that falls due starts only as it ends (wrapped
        around a session lock's hold: starting its thread is not paid by the writers
        waiting for the lock)."""
        return self._checkpoints.deferred()

    @contextmanager
    def transaction(self, *, wait: bool = True) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``): committed on exit, rolled back on error.

        Writers first queue on an ``flock`` beside the database: SQLite's own busy wait
        sleeps and retries, so under load one process can lose the race for seconds while
        others commit and begin again. The kernel lock hands the turn over directly.
        ``wait=False``: :class:`WriterBusy` at once when another process has the turn.
        """
        with self._writer_turn(wait):
            begin_immediate(self.db, self.path, self.busy_timeout_ms, wait=wait)
            self.view.began()  # (its reads kept until this connection changes a row)
            self._checkpoints.began()
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:  # also when COMMIT itself failed (busy, full)
                    self.db.execute("ROLLBACK")
                self._checkpoints.rolled_back()
                raise
            finally:  # (another connection may write once this one's has ended)
                self.view.forget_caught_up()
            # still the writer's turn: starting the log over holds SQLite's write lock, and
            # one stopped there (Ctrl-Z) must look to the others like the stopped writer
            # it is (readers skip what needs the turn), not a free turn whose lock then
            # keeps them waiting the whole busy timeout
            self._checkpoints.committed(self.db)

    @contextmanager
    def _writer_turn(self, wait: bool = True) -> Iterator[None]:
        """The writer's turn (:mod:`waymarks.store.writer_lock`); then, that the file at
        the path is still the one this connection opened: another process that found it
        damaged set it aside meanwhile, and nothing may be committed into the copy."""
        with writer_turn(self.path, self.busy_timeout_ms / 1000 if wait else 0):
            if file_identity(self.path) != self.identity:
                raise ProjectionReplaced(f"{self.path} was replaced by another process")
            yield

    def checkpoint_offset(self, session_id: str) -> int | None:
        """How far into a source the projection has read, or ``None`` if never."""
        row = self.view.source_row(session_id)
        return None if row is None else int(row[3])

    # -- incremental ----------------------------------------------------------------

    def sync(self, session: SessionLog, now_ms: int) -> SyncReport:
        """Apply what ``session`` holds beyond its checkpoint; call inside :meth:`transaction`."""
        return self.sync_many([session], now_ms)

    def sync_many(self, sessions: Sequence[SessionLog], now_ms: int,
                  expected: Mapping[str, int | None] | None = None) -> SyncReport:
        """Apply what each session holds beyond its checkpoint, all at once: records are
        merged in replay order, and a re-fold (when any arrives out of order) runs once,
        not once per session. Call inside :meth:`transaction`.

        ``expected``: for readers of files this process does not write (no session lock),
        the checkpoint offset each was read against (``None``: no checkpoint). A session
        whose checkpoint moved meanwhile is skipped: another process indexed it, and a
        reader behind that checkpoint must not be mistaken for a shortened file."""
        fresh: list[MutationRecord] = []
        refold = False
        skipped: set[str] = set()
        for session in sessions:
            if expected is not None and self.checkpoint_offset(
                    session.session_id) != expected.get(session.session_id):
                skipped.add(session.session_id)
                continue
            records, reset = self._stage(session, now_ms)
            fresh.extend(records)
            refold = refold or reset
        done = frozenset(skipped)
        if not fresh and not refold:
            return SyncReport(0, False, done)
        fresh.sort(key=lambda r: r.order)
        # what a withheld source holds back, told from the new records where they can
        # tell it (:mod:`waymarks.store.withheld`): a re-fold of every stored mutation
        # for each write into such a session cost 7-12 s of CPU at 60k claims
        held = self._held(fresh) if fresh and not refold else set()
        kept = [r for i, r in enumerate(fresh) if held is None or i not in held]
        last = self._last_order()
        if held is None or refold or (last is not None and kept and kept[0].order < last):
            self._insert_mutations((0, r, None) for r in fresh)
            self.refold()
            return SyncReport(len(fresh), True, done)
        seq = self._max_seq()
        for i, record in enumerate(fresh):
            if i in held:  # (numbered as a rebuild numbers it: HELD_SEQ)
                from waymarks.store.withheld import SOURCE_EXCLUDED

                self._insert_mutations([(self._next_held_seq(), record, SOURCE_EXCLUDED)])
                continue
            seq += 1
            effect = apply_mutation(self.view, record, seq)
            self._insert_mutations([(seq, record, effect)])
        if kept:  # (a rebuild keeps the last applied one's)
            self._set_last_order(kept[-1].order)
        return SyncReport(len(fresh), False, done)

    def _held(self, fresh: list[MutationRecord]) -> set[int] | None:
        """The positions in ``fresh`` a withheld source holds back; ``None``: a re-fold
        must tell (:func:`waymarks.store.withheld.held_back`)."""
        withheld = self.withheld_sessions()
        if not withheld:
            return set()
        from waymarks.store.withheld import held_back

        return held_back(self.db, fresh, withheld)

    def _stage(self, session: SessionLog, now_ms: int) -> tuple[list[MutationRecord], bool]:
        """Advance ``session``'s checkpoint and anomalies; return its records past the old
        checkpoint, and whether a re-fold is due (its earlier state was forgotten because
        the file was replaced, or its location changed whether its project items count)."""
        sid = session.session_id
        checkpoint = self.view.source_row(sid)  # (kept from the write's earlier read)
        _sid, path, _cwd, offset, lines, entries, fingerprint, _project, _sum = (
            checkpoint or (sid, "", "", 0, 0, 0, "", "", 0))
        # shorter than what we read, or different bytes where we stopped: the file was
        # replaced or rewritten, so forget what it said and read it again
        reset = offset > session.offset or entries > session.entry_count or bool(
            fingerprint and session.fingerprint_as_read(offset) != fingerprint)
        if reset:
            self._forget_source(sid)
            offset, lines, entries = 0, 0, 0
        elif (checkpoint and offset == session.offset and lines == session.lines
              and path == str(session.path)):
            return [], False  # nothing new: no writes at all (the common case)
        session.read_since(entries)  # (a checkpoint put back behind this reader's start)
        # a source whose location newly withholds (or releases) its project mutations
        # needs a re-fold, as a status change does
        from bisect import bisect_left, bisect_right  # (a recall finds nothing new)

        reset = self._save_source(session, now_ms) or reset
        entries_index.record(self.db, session)
        self.db.executemany(
            "INSERT OR IGNORE INTO anomalies (session_id, line, entry_id, kind, detail) "
            "VALUES (?, ?, ?, ?, ?)",
            [(sid, a.line, a.entry_id, a.kind, a.detail)
             for a in session.anomalies[bisect_right(session.anomalies, lines,
                                                     key=lambda a: a.line):]],
        )
        # records and anomalies are kept in file order: only the tail past the checkpoint
        start = bisect_left(session.records, entries, key=lambda r: r.entry_index)
        fresh = list(session.records[start:])
        if fresh and not reset:
            # a reader resumed past its checkpoint cannot know the entry IDs before it: a
            # repeated ID is refused here, as a full reader would (never a second mutation)
            ids = [r.entry_id for r in fresh]
            known = {str(e) for (e,) in self.db.execute(
                f"SELECT entry_id FROM mutations WHERE session_id = ? AND entry_id IN"
                f" ({','.join('?' * len(ids))})", (sid, *ids))} if len(ids) < 900 else {
                str(e) for (e,) in self.db.execute(
                    "SELECT entry_id FROM mutations WHERE session_id = ?", (sid,))}
            repeated = [r for r in fresh if r.entry_id in known]
            if repeated:
                self.db.executemany(
                    "INSERT OR IGNORE INTO anomalies (session_id, line, entry_id, kind, detail)"
                    " VALUES (?, ?, ?, 'skipped', ?)",
                    [(sid, session.lines, r.entry_id, f"duplicate entry id {r.entry_id}")
                     for r in repeated])
                fresh = [r for r in fresh if r.entry_id not in known]
        return fresh, reset

    def refold(self) -> None:
        """Re-derive all item state from the stored mutations (inside a transaction)."""
        prefixed = ", ".join(f"m.{c}" for c in MUTATION_FIELDS.split(", "))
        rows = self.db.execute(
            f"SELECT {prefixed}, m.checksum, s.project FROM mutations m LEFT JOIN sources s"
            " ON s.session_id = m.session_id"
        ).fetchall()
        records = []
        for row in rows:
            verify_blob_row(row[:-1], "mutations")
            session_id, entry_id, entry_index, timestamp_ms, _mid, kind = row[:6]
            parent, payload, project = row[10], row[11], row[13]
            with decoding("a stored mutation"):
                decoded = decode_payload(
                    PIN_CUSTOM_TYPE if kind == "pin" else MEMORY_CUSTOM_TYPE, payload)
            if not isinstance(decoded, PinMutation | MemoryMutation):  # stored rows always are
                raise ProjectionDamaged("a stored mutation no longer decodes")
            records.append(MutationRecord(session_id, entry_id, entry_index, timestamp_ms,
                                          decoded, parent, project or ""))
        self.db.execute("DELETE FROM mutations")
        self._write_replay(records)

    # -- full rebuild (store/rebuild.py) ---------------------------------------------

    def rebuild(self, sessions: Iterable[SessionLog], now_ms: int) -> int:
        """Replace all derived state with a replay of ``sessions``; returns mutations replayed.

        Call inside :meth:`transaction`: a failed rebuild leaves the old projection intact
        (:func:`waymarks.store.rebuild.rebuild_in_place`)."""
        from waymarks.store.rebuild import rebuild_in_place

        return rebuild_in_place(self, sessions, now_ms)

    def _write_replay(self, records: list[MutationRecord]) -> None:
        from waymarks.store.rebuild import write_replay

        write_replay(self, records)

    # -- helpers --------------------------------------------------------------------

    def _save_source(self, session: SessionLog, now_ms: int) -> bool:
        """Record ``session``'s checkpoint and where its file is; returns whether that
        location changed whether its project mutations count (see :attr:`placement`)."""
        header = session.header
        placed = self.placement(session)
        status, detail = placed if placed is not None else (None, None)
        before = self.db.execute("SELECT status, project FROM sources WHERE session_id = ?",
                                 (session.session_id,)).fetchone()
        # a misplaced file gets its status; one back in place is available again; any
        # other status (missing, corrupt, ...) is the source checks' to change
        fields = (session.session_id, str(session.path), header.cwd if header else "",
                  session.offset, session.lines, session.entry_count,
                  session.fingerprint_as_read(session.offset), session.project)  # SOURCE_FIELDS
        # set, even to its value, a column rewrites its index's page (sources_by_project)
        moved = "" if before and before[1] == session.project else " project = excluded.project,"
        self.db.execute(
            "INSERT INTO sources (session_id, path, cwd, byte_offset, lines, entries,"
            " fingerprint, project, updated_at, status, status_detail, checksum)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, coalesce(?10, 'available'), ?11, ?13)"
            " ON CONFLICT (session_id) DO UPDATE"
            " SET path = excluded.path, cwd = excluded.cwd, byte_offset = excluded.byte_offset,"
            " lines = excluded.lines, entries = excluded.entries,"
            " updated_at = excluded.updated_at, fingerprint = excluded.fingerprint,"
            f"{moved} checksum = excluded.checksum,"
            " status = CASE WHEN ?10 IS NOT NULL THEN ?10 WHEN status = ?12 THEN 'available'"
            "  ELSE status END,"
            " status_detail = CASE WHEN ?10 IS NOT NULL THEN ?11 WHEN status = ?12 THEN NULL"
            "  ELSE status_detail END",
            (*fields, now_ms, status, detail, FOREIGN_LOCATION, checksum(fields)),
        )
        if before is None:  # nothing of it applied yet: its records are told apart as
            return False    # they come (:mod:`waymarks.store.withheld`), as any source's
        was = str(before[0])
        now = status or ("available" if was == FOREIGN_LOCATION else was)
        return (was == "available") != (now == "available")

    def _forget_source(self, session_id: str) -> None:
        entries_index.forget(self.db, session_id)
        self.db.execute("DELETE FROM mutations WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM anomalies WHERE session_id = ?", (session_id,))

    def _insert_mutations(
        self, rows: Iterable[tuple[int, MutationRecord, MutationEffect | None]]
    ) -> None:
        self.db.executemany(_INSERT_MUTATION, (_mutation_row(*row) for row in rows))

    def _max_seq(self) -> int:
        """The last ``seq`` in the replay order (not a held-back row's: :data:`HELD_SEQ`)."""
        return int(self.db.execute("SELECT coalesce(max(seq), 0) FROM mutations"
                                   " WHERE seq < ?", (HELD_SEQ,)).fetchone()[0])

    def _next_held_seq(self) -> int:
        return 1 + int(self.db.execute("SELECT max(coalesce((SELECT max(seq) FROM mutations),"
                                       " 0), ?)", (HELD_SEQ,)).fetchone()[0])

    def _last_order(self) -> tuple[Any, ...] | None:
        row = self.db.execute("SELECT value FROM meta WHERE name = 'last_order'").fetchone()
        if row is None:
            return None
        with decoding("meta last_order"):
            return tuple(msgspec.json.decode(row[0], type=list[Any]))

    def _set_last_order(self, order: tuple[Any, ...]) -> None:
        self.db.execute(
            "INSERT INTO meta (name, value) VALUES ('last_order', ?) "
            "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            (_ENCODER.encode(list(order)).decode(),),
        )


def _mutation_row(
    seq: int, record: MutationRecord, effect: MutationEffect | None
) -> tuple[Any, ...]:
    mutation = record.mutation
    target = status_target(mutation) if mutation.operation == "status" else (
        mutation.item.id if mutation.item else None
    )
    if isinstance(effect, Applied) and effect.changed:
        target = effect.changed[0].id  # the item it changed (a fork's copy: its own ID)
    applied = effect is None or isinstance(effect, Applied)
    payload = encode_payload(mutation)
    fields = (record.session_id, record.entry_id, record.entry_index, record.timestamp_ms,
              mutation.mutation_id, mutation_kind(mutation), mutation.operation, target,
              "applied" if applied else "ignored",
              None if effect is None or isinstance(effect, Applied) else effect.reason,
              record.parent_id)
    return (seq or None, *fields[:8], payload, *fields[8:], checksum(fields, payload))
