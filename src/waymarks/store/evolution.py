"""The projection of the evolution ledger: learned claims, sources, events, suppressions.

The evolution ledger (one Pi v3 session file in the home, ``customType``
``waymarks-evolution-v1`` entries) is canonical; these tables are derived from it by the one
fold of :mod:`waymarks.core.evolution.fold`, so deleting ``waymarks.db`` loses nothing: the
next sync folds the whole ledger again and every claim, its history and every suppression
come back identically (``tests/evolution/test_projection.py`` checks incremental == rebuild).

Invariants:
- records are folded in ledger order; ``evo_meta`` holds the checkpoint (byte offset,
  entries read, a fingerprint of the bytes before it, records folded), so a sync decodes
  only what was appended since, and a ledger that is not the one folded so far (replaced,
  rewritten, shorter) is folded again from the start, and so is one whose checkpoint is
  damaged (not a count, or missing beside folded events);
- a database whose evolution tables lack what this version reads is damage
  (:class:`~waymarks.store.integrity.ProjectionDamaged` on open): the service sets it
  aside, as it does for the rest of the projection;
- a sync's records, effects and checkpoint are written in one transaction; a long fold
  (the first beside a new database) is many such syncs of :data:`FOLD_CHUNK` records, each
  checkpoint just past its last record, so a fold killed midway resumes;
- nothing here decides authority: that is :mod:`waymarks.core.evolution.decide`'s, before
  records are appended.
Operational state (jobs, leases, route health) is not here: it belongs to the job queue.
The event history's reads are :mod:`waymarks.store.evolution_events`' (a base class).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TypeVar

import msgspec

from waymarks.core.evolution.fold import ClaimRow, Effect, SourceRow, fold
from waymarks.core.evolution.model import EVOLUTION_CUSTOM_TYPE, claim_id, decode_record
from waymarks.core.evolution.rows import Analysis
from waymarks.ledger.entries import Custom, marked_custom_entries
from waymarks.ledger.log import SessionLog
from waymarks.store import binding
from waymarks.store.evolution_events import EVENT_COLUMNS as EVENT_COLUMNS
from waymarks.store.evolution_events import EventReads
from waymarks.store.evolution_events import EventRow as EventRow
from waymarks.store.evolution_rows import (
    CLAIM_COLUMNS,
    SOURCE_COLUMNS,
    TERMS_ENCODER,
    SqliteEvoView,
    claim_row,
    source_row,
)
from waymarks.store.evolution_schema import (
    CACHE_TABLES,
    DERIVED_TABLES,
    EXPECTED_COLUMNS,
    schema_problem,
)
from waymarks.store.integrity import (
    ProjectionDamaged,
    ProjectionReplaced,
    refuse_cut_to_nothing,
    refuse_foreign,
)
from waymarks.store.migrations import migrate
from waymarks.store.private import private_database
from waymarks.store.wal import enter_wal
from waymarks.store.writer_lock import file_identity, holds_turn, waited_for, writer_turn

BUSY_TIMEOUT_MS: Final = 30_000
_Row = TypeVar("_Row")
#: the most records one transaction of a fold writes (~0.15 s of CPU): the first fold of a
#: large ledger (a new or set-aside database: ~70 s at 60k learned claims) held the
#: writer's turn throughout, and every prompt's hook, waiting 1 s for its own write, got
#: no context, pins included; a fold killed in the middle started again from nothing
FOLD_CHUNK: Final = 1_000
#: the most claims one transaction of a cache's write (analyses, postings) holds
WRITE_CHUNK: Final = 2_000
#: the pause between two parts of a fold or a write, for a woken waiter to take the
#: writer's turn
PART_PAUSE_S: Final = 0.01
#: the longest a part waits for threads of its own process waiting for the turn to take it
#: (each also gives up after its own busy timeout)
YIELD_LIMIT_S: Final = 1.0


def let_waiters_in(db_path: Path) -> None:
    """Between two parts of a long fold or write: pause, then while a thread of this
    process still waits for the writer's turn (:func:`~waymarks.store.writer_lock.
    waited_for`), pause again, up to :data:`YIELD_LIMIT_S`. Another process's waiter
    gets the pause alone. A pause of 10 ms alone was too short on a busy machine for a
    thread of the same process (a Pi plan beside its bridge's start-up fold) to be run:
    the next part took the turn again, and the plan waited seconds. A caller whose thread
    still holds the turn (inside a transaction) goes on at once: no waiter could take it,
    and the pause waited out the whole limit for nothing."""
    if holds_turn(db_path):
        return
    time.sleep(PART_PAUSE_S)
    for _ in range(int(YIELD_LIMIT_S / PART_PAUSE_S)):
        if not waited_for(db_path):
            return
        time.sleep(PART_PAUSE_S)


class EvolutionStore(EventReads):
    """The evolution tables of one ``waymarks.db`` (its own connection; migrates on open)."""

    def __init__(self, path: Path, now_ms: int, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS
                 ) -> None:
        private_database(path)
        refuse_cut_to_nothing(path)  # as the projection's open: damage, not a lock to wait on
        binding.install()
        self.path = path
        self.busy_timeout_s = busy_timeout_ms / 1000
        #: the file this connection opened (taken before the open, as the projection's)
        self.identity = file_identity(path)
        self.db = sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000,
                                  check_same_thread=False)
        try:
            self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            refuse_foreign(self.db)  # another program's database is set aside untouched
            enter_wal(self.db, busy_timeout_ms / 1000)
            migrate(self.db, now_ms)
            problem = schema_problem(self.db, EXPECTED_COLUMNS)
            if problem is not None:
                raise ProjectionDamaged(problem)
        except BaseException:
            self.db.close()
            raise
        self.view = SqliteEvoView(self.db)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction in the writer's turn (:mod:`waymarks.store.writer_lock`),
        refused if another process replaced the file meanwhile (set it aside as damaged)."""
        with writer_turn(self.path, self.busy_timeout_s):
            if file_identity(self.path) != self.identity:
                raise ProjectionReplaced(f"{self.path} was replaced by another process")
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    # -- folding ----------------------------------------------------------------------

    def fold_in_parts(self, ledger: SessionLog,
                      read_on: Callable[[], None] | None = None) -> int:
        """:meth:`sync` ``ledger`` to its end, :data:`FOLD_CHUNK` records per transaction
        (each its own, with its checkpoint); returns the number of records folded. Between
        two parts, the writer's turn goes to a process waiting for it (a prompt's hook,
        whose plan writes too and waits 1 s), readers see the records folded so far, and a
        fold killed in the middle resumes where its last part committed. Another process
        may fold meanwhile, past what ``ledger`` has read (records it appended since):
        ``read_on`` then reads the rest of the ledger, which :meth:`sync` would otherwise
        take for a shorter one and fold again from the start."""
        total = 0
        while True:
            with self.transaction():
                if read_on is not None and (self._count_meta("offset") or 0) > ledger.offset:
                    read_on()
                folded = self.sync(ledger, FOLD_CHUNK)
            total += folded
            if folded < FOLD_CHUNK:
                return total
            # a waiter the release woke takes the turn first: taken again at once, the
            # turn went back to this fold, and hooks waiting 1 s for it still gave up
            let_waiters_in(self.path)

    def sync(self, ledger: SessionLog, limit: int | None = None) -> int:
        """Fold what ``ledger`` holds past the checkpoint (inside :meth:`transaction`);
        returns the number of records folded. Only the bytes past the checkpoint are
        decoded; a ledger that is not the one folded so far (another session, shorter, or
        other bytes before the checkpoint) is folded again from the start. ``limit``: fold
        at most that many records, the checkpoint just past the last of them (a fold of a
        large ledger commits in parts, :data:`FOLD_CHUNK`, each resumed from the one before
        as an append is); fewer than ``limit`` folded means the checkpoint is the end."""
        offset, entries, done = (self._count_meta(n) for n in ("offset", "entries", "folded"))
        if None in (offset, entries, done) or (not offset and self._holds_events()) or (
                offset and (self._meta("ledger") != ledger.session_id
                            or offset > ledger.offset
                            or ledger.fingerprint(offset) != self._meta("fingerprint"))):
            # a checkpoint that is not a count, or none beside folded events, is damage to
            # the derived tables (folding on top of them broke seq's uniqueness): refold
            self.reset()
            offset = entries = done = 0
        assert offset is not None and entries is not None and done is not None
        if offset == ledger.offset:
            return 0
        folded = 0
        for entry, end, read in marked_custom_entries(ledger, EVOLUTION_CUSTOM_TYPE, offset,
                                                      entries):
            if folded == limit:
                break
            folded += 1
            self._fold_entry(entry, done + folded)
            offset, entries = end, read
        else:  # read to the end: the checkpoint is the end, lines past the last record too
            offset, entries = ledger.offset, ledger.entry_count
        for name, value in (("offset", offset), ("entries", entries),
                            ("fingerprint", ledger.fingerprint(offset)),
                            ("folded", done + folded), ("ledger", ledger.session_id)):
            self._set_meta(name, str(value))
        return folded

    def _fold_entry(self, entry: Custom, seq: int) -> None:
        """Fold one ledger entry as record ``seq``: its event, and the claims it changed."""
        record = decode_record(entry.data)
        effect = (fold(self.view, record, seq) if record is not None
                  else Effect("unknown", "", False, "not_understood"))
        self.db.execute(
            "INSERT INTO evo_events (seq, entry_id, op, subject, applied, reason, actor,"
            " at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, entry.id, effect.op, effect.subject, int(effect.applied), effect.reason,
             effect.actor, effect.at))
        for change in effect.changes:
            self.db.execute(
                "INSERT INTO evo_changes (seq, claim_id, before, after) VALUES (?, ?, ?, ?)",
                (seq, change.claim_id, None if change.before is None
                 else TERMS_ENCODER.encode(change.before).decode(),
                 TERMS_ENCODER.encode(change.after).decode()))

    def vouched(self, session_id: str, size: int, fingerprint: Callable[[int], str]) -> int:
        """How many bytes of a ledger of ``session_id`` holding ``size`` bytes the
        checkpoint vouches for (its offset, when ``fingerprint(offset)`` is the one
        recorded); 0 when it vouches for none: :meth:`sync` folds that ledger from the
        start (another session, shorter, other bytes before the checkpoint)."""
        offset = self._count_meta("offset")
        if not offset or offset > size or self._meta("ledger") != session_id or \
                fingerprint(offset) != self._meta("fingerprint"):
            return 0
        return offset

    def reset(self) -> None:
        """Forget everything derived (the next sync folds the whole ledger)."""
        for table in (*DERIVED_TABLES, *CACHE_TABLES):
            self.db.execute(f"DELETE FROM {table}")

    def _count_meta(self, name: str) -> int | None:
        """A checkpoint count (0 when absent), or ``None`` when what is stored is none."""
        value = self._meta(name)
        if value is None:
            return 0
        return int(value) if value.isascii() and value.isdigit() else None

    def _holds_events(self) -> bool:
        return self.db.execute("SELECT 1 FROM evo_events LIMIT 1").fetchone() is not None

    def _meta(self, name: str) -> str | None:
        row = self.db.execute("SELECT value FROM evo_meta WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, name: str, value: str) -> None:
        self.db.execute("INSERT INTO evo_meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
                        " DO UPDATE SET value = excluded.value", (name, value))

    # -- reads ------------------------------------------------------------------------

    def claims(self, *, states: Sequence[str] | None = None,
               origin: str | None = None) -> list[ClaimRow]:
        """Claims (in ``states``, of ``origin`` when given), oldest first."""
        sql = f"SELECT {CLAIM_COLUMNS} FROM evo_claims WHERE 1"
        args: list[object] = []
        if states is not None:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args.extend(states)
        if origin is not None:
            sql += " AND origin = ?"
            args.append(origin)
        return [claim_row(r) for r in self.db.execute(sql + " ORDER BY seq", args)]

    def unsettled(self, limit: int) -> list[SourceRow]:
        return [source_row(r) for r in self.db.execute(
            f"SELECT {SOURCE_COLUMNS} FROM evo_sources WHERE settled IS NULL"
            " ORDER BY seq LIMIT ?", (limit,))]

    def sources(self) -> list[SourceRow]:
        return [source_row(r) for r in self.db.execute(
            f"SELECT {SOURCE_COLUMNS} FROM evo_sources ORDER BY seq")]

    def source_levels(self) -> dict[str, str]:
        """Each claim source's privacy level, by source ID: a captured source's own, and
        a person's correction (``manual:…``, no captured source) the level of the claim
        it corrected, followed back to a captured one. Without it a correction of a
        claim learned from ``sensitive`` text fell to the default level, and went to a
        provider that may see only ``normal``. Two corrections can share a source ID
        (one millisecond, an import's times): the stricter level stands. A correction
        whose chain reaches no captured source is ``local-only`` (fail closed)."""
        from waymarks.core.privacy import is_level, level_rank

        levels = {source_id: level for source_id, level in self.db.execute(
            "SELECT source_id, classification FROM evo_sources")}
        rows = self.db.execute(
            "SELECT id, source_id, replaces FROM evo_claims WHERE method = 'manual'"
            " AND replaces IS NOT NULL").fetchall()
        if not rows:
            return levels
        source_of = dict(self.db.execute(
            "SELECT id, source_id FROM evo_claims WHERE id IN (SELECT replaces FROM"
            " evo_claims WHERE method = 'manual' AND replaces IS NOT NULL)"))
        corrects = {cid: replaces for cid, _source, replaces in rows}
        found: dict[str, str] = {}  # claim -> its level, memoised along each chain

        def level_of(claim: str) -> str:
            seen: list[str] = []
            while claim not in found and claim not in seen:
                seen.append(claim)
                captured = levels.get(str(source_of.get(claim)))
                if captured is not None and is_level(captured):
                    found[claim] = captured
                elif claim in corrects:
                    claim = corrects[claim]
            level = found.get(claim, "local-only")
            for step in seen:
                found[step] = level
            return level

        manual: dict[str, str] = {}
        for _cid, source_id, replaces in rows:
            level = level_of(replaces)
            manual[source_id] = max(manual.get(source_id, level), level, key=level_rank)
        for source_id, level in manual.items():
            levels.setdefault(source_id, level)
        return levels

    def events(self) -> list[tuple[int, str, str, str, int, str]]:
        return [tuple(r) for r in self.db.execute(
            "SELECT seq, entry_id, op, subject, applied, reason FROM evo_events ORDER BY seq")]

    def suppressions(self) -> list[str]:
        return [str(k) for (k,) in self.db.execute(
            "SELECT key FROM evo_suppressed ORDER BY key")]

    def counts(self) -> dict[str, int]:
        """Claims by state, and sources pending, settled and retired unsent because their
        project is not trusted (settled ``untrusted``: counted apart, never in settled;
        no content)."""
        out = {f"claims_{state}": int(n) for state, n in self.db.execute(
            "SELECT state, count(*) FROM evo_claims GROUP BY state")}
        pending, settled, retired = self.db.execute(
            "SELECT count(*) FILTER (WHERE settled IS NULL),"
            " count(*) FILTER (WHERE settled IS NOT NULL AND settled != 'untrusted'),"
            " count(*) FILTER (WHERE settled = 'untrusted') FROM evo_sources").fetchone()
        out["sources_pending"], out["sources_settled"] = int(pending), int(settled)
        out["sources_retired_untrusted"] = int(retired)
        return out

    def explicit_targets(self, ids: Sequence[str]) -> dict[str, tuple[str, str, str, int]]:
        """Pins and memory items among ``ids``: id -> (kind, status, owner, created_at ms),
        where owner is the project path, or the session ID of a session-scoped item."""
        out: dict[str, tuple[str, str, str, int]] = {}
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            for item_id, kind, status, owner, created in self.db.execute(
                    "SELECT id, kind, status, coalesce(project_path, session_id), created_at"
                    f" FROM items WHERE id IN ({','.join('?' * len(chunk))})", chunk):
                out[str(item_id)] = (str(kind), str(status), str(owner), int(created))
        return out

    # -- events, receipts, robust reads (memory evolution II) ---------------------------

    def last_seq(self) -> int:
        """The position of the last record folded (0 before any)."""
        return int(self._meta("folded") or 0)

    def imported(self, *, consumed: bool = True) -> bool:
        """Whether a legacy import that consumed the JSONL ledgers has completed in this
        home (``consumed=False``: any legacy import, a database that left them open too)."""
        sql = "SELECT 1 FROM evo_events WHERE op = 'imported' AND applied = 1"
        if consumed:
            sql += " AND reason != 'legacy_import_open'"
        return self.db.execute(sql + " LIMIT 1").fetchone() is not None

    def imported_digests(self) -> list[str]:
        """The ledger digests of every completed legacy import (normally one)."""
        return [str(d) for (d,) in self.db.execute(
            "SELECT subject FROM evo_events WHERE op = 'imported' AND applied = 1"
            " ORDER BY seq")]

    def signature(self) -> tuple[str, str, str, str]:
        """What identifies the folded state: the ledger, records folded, byte offset and
        the fingerprint of those bytes (a cache of derived reads is valid while it holds)."""
        return (self._meta("ledger") or "", self._meta("folded") or "0",
                self._meta("offset") or "0", self._meta("fingerprint") or "")

    def origin_generation(self, origin: str) -> int:
        """How many memory-changing events touched claims of ``origin`` (EVOLUTION item
        57, F2): a claim created, or its content, kind or state changed. Feedback,
        confirmation stamps and aliases alone do not count, so a reply is not thrown away
        because someone marked a claim useful while the model was thinking."""
        row = self.db.execute(
            "SELECT count(*) FROM evo_changes c JOIN evo_claims k ON k.id = c.claim_id"
            " WHERE k.origin = ? AND (c.before IS NULL"
            " OR json_extract(c.before, '$.state') IS NOT json_extract(c.after, '$.state')"
            " OR json_extract(c.before, '$.content') IS NOT json_extract(c.after, '$.content')"
            " OR json_extract(c.before, '$.kind') IS NOT json_extract(c.after, '$.kind'))",
            (origin,)).fetchone()
        return int(row[0])

    def changing_sources(self) -> set[str]:
        """The sources that changed learned memory when applied: each that created a claim
        as provisional (its creation event: one kept aside as conflicted is not) or
        refreshed a state. From the events, not from the claims' state now, which a later
        forget or resolve moves (forgetting a quarantined variant made its source count)."""
        return {str(s) for (s,) in self.db.execute(
            "SELECT DISTINCT json_extract(c.after, '$.sourceId') FROM evo_changes c"
            " JOIN evo_events e ON e.seq = c.seq WHERE e.applied = 1"
            " AND json_extract(c.after, '$.state') = 'provisional'"
            " AND ((e.op IN ('claim', 'imported') AND c.before IS NULL)"
            " OR (e.op = 'refresh' AND c.claim_id = e.subject))") if s is not None}

    def readable_claims(self, states: Sequence[str] | None = None
                        ) -> tuple[list[ClaimRow], list[str]]:
        """Claims (in ``states``) that are well formed and whose ID is the hash of their
        (origin, kind, content), and the IDs of those that are not: one bad row is left
        out and named, it never makes the whole read fail (EVOLUTION item 77)."""
        sql = f"SELECT {CLAIM_COLUMNS} FROM evo_claims"
        args: list[object] = []
        if states is not None:
            sql += f" WHERE state IN ({','.join('?' * len(states))})"
            args.extend(states)
        return _readable(self.db.execute(sql + " ORDER BY seq", args))

    def readable_by_id(self, ids: Sequence[str], states: Sequence[str]
                       ) -> tuple[list[ClaimRow], list[str]]:
        """:meth:`readable_claims` of the claims ``ids`` only (a ranking corpus following
        a change reads just the claims it touched)."""
        good: list[ClaimRow] = []
        bad: list[str] = []
        wanted = sorted(set(ids))
        marks = ",".join("?" * len(states))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            found = _readable(self.db.execute(
                f"SELECT {CLAIM_COLUMNS} FROM evo_claims WHERE state IN ({marks})"
                f" AND id IN ({','.join('?' * len(chunk))})", [*states, *chunk]))
            good += found[0]
            bad += found[1]
        return good, bad

    def changed_since(self, seq: int) -> set[str]:
        """The claims an event after position ``seq`` changed."""
        return {str(c) for (c,) in self.db.execute(
            "SELECT DISTINCT claim_id FROM evo_changes WHERE seq > ?", (seq,))}

    def entries_folded(self) -> int:
        """The ledger entries read up to the checkpoint (with :meth:`signature`'s offset:
        where a reader of what was appended since starts)."""
        return int(self._meta("entries") or 0)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction: the reads inside see one state of the projection."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    # -- the analysis cache (migration 11) ----------------------------------------------

    def analyses(self, ids: Sequence[str] | None = None) -> dict[str, Analysis]:
        """Every stored claim analysis by claim ID, or those of ``ids`` (a row that does
        not decode is left out: the caller analyses that claim again)."""
        out: dict[str, Analysis] = {}
        decode = _FEATURES_DECODER.decode
        sql = "SELECT claim_id, key, body, aliases, quoted, origin, body_count FROM evo_analysis"
        rows = self.db.execute(sql) if ids is None else self.db.execute(
            sql + " WHERE claim_id IN (SELECT value FROM json_each(?))",
            (TERMS_ENCODER.encode(list(ids)).decode(),))
        for cid, key, body, aliases, quoted, origin, count in rows:
            try:
                out[str(cid)] = Analysis(str(key), decode(body), decode(aliases),
                                         decode(quoted), decode(origin), int(count))
            except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
                continue
        return out

    def put_analyses(self, rows: Sequence[tuple[str, Analysis]]) -> bool:
        """Store (replace) claim analyses, in one transaction; ``False`` (nothing stored)
        when the database is busy past its timeout or read-only: it is a cache, and the
        caller goes on without it."""
        encode = TERMS_ENCODER.encode
        try:
            self._put_analyses(rows, encode)
        except sqlite3.OperationalError:
            return False
        return True

    def _put_analyses(self, rows: Sequence[tuple[str, Analysis]],
                      encode: Callable[[object], bytes]) -> None:
        def put(db: sqlite3.Connection, part: Sequence[tuple[str, Analysis]]) -> None:
            db.executemany(
                "INSERT OR REPLACE INTO evo_analysis (claim_id, key, body, aliases, quoted,"
                " origin, body_count) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(cid, a.key, encode(a.body).decode(), encode(a.aliases).decode(),
                  encode(a.quoted).decode(), encode(a.origin).decode(), a.body_count)
                 for cid, a in part])

        self.write_in_parts(rows, put)

    def write_in_parts(self, rows: Sequence[_Row],
                       write: Callable[[sqlite3.Connection, Sequence[_Row]], None]) -> None:
        """``write`` ``rows`` :data:`WRITE_CHUNK` at a time, each part in a transaction of
        its own, the writer's turn left to a woken waiter between two (as
        :meth:`fold_in_parts` does): the Claude Code helper's start wrote the analyses and
        ~757k postings of 60k learned claims in one transaction, seconds in which every
        prompt's hook, waiting 1 s for its own write, added no context, pins included.
        For caches only, whose readers tell a part written from a whole (the postings'
        sentinel rows, the analyses by claim)."""
        for start in range(0, len(rows), WRITE_CHUNK):
            if start:
                let_waiters_in(self.path)
            with self.transaction() as db:
                write(db, rows[start:start + WRITE_CHUNK])


_FEATURES_DECODER: Final = msgspec.json.Decoder(tuple[str, ...])


def _readable(rows: Iterator[Sequence[object]] | sqlite3.Cursor
              ) -> tuple[list[ClaimRow], list[str]]:
    """The well-formed rows whose ID is their content's hash, and the IDs of the others."""
    good: list[ClaimRow] = []
    bad: list[str] = []
    for raw in rows:
        try:
            row = claim_row(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
            bad.append(str(raw[0]))
            continue
        if row.id != claim_id(row.origin, row.kind, row.content):
            bad.append(row.id)
            continue
        good.append(row)
    return good, bad
