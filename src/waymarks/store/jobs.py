"""The evolution job queue's operational state: ``<home>/evolution.db`` (EVOLUTION G 57-67, 82).

Why a file of its own: jobs, leases, route cooldowns and call accounting are operational
state, not memory. They are not in any ledger, so they must not live in ``waymarks.db``
(the disposable projection): rebuilding or setting that aside must never reset backoff or
let a process spend the hourly call ceiling twice.

What must stay true:
- every write is a short ``BEGIN IMMEDIATE`` transaction; none is ever open across a model
  call (the worker calls in between), and candidates are read outside the write lock;
- a lease is checked by its token (owner + attempt) and its expiry: a late result of an
  old owner matches no row and changes nothing. ``settle``, ``give_up`` and ``fail`` all
  refuse (return False) once the lease has expired, even before the sweep or a new owner
  has touched the row: a worker that outlived its lease has no say over the job;
- the hourly ceiling is counted from ``model_calls`` inside the transaction that reserves a
  call, so processes sharing this file can never exceed it together; so is the daily cost
  ceiling: a reserved call carries its worst-case cost from the moment it is reserved
  (``estimated_usd``, replaced by what it cost when it ends), and a reservation is refused
  when the day's spend, calls in flight included, plus its own worst case passes the
  ceiling. A call whose lease expired while it was reserved (its process died) keeps that
  worst case and ends ``interrupted`` (the provider may well have answered and billed);
- only allowlisted codes are stored (``last_error``, ``wait_reason``, call outcomes):
  :func:`_code` refuses anything else, so no provider body or exception text can land here;
- the file is WAL, ``synchronous=FULL``, mode 0600; a schema newer than this code is
  refused before any DDL;
- every job row is validated when it is read (EVOLUTION item 79): a row whose state,
  codes, counters, lease or model list is not one this code writes is left out of every
  read and named in :attr:`JobStore.bad_jobs` (``evolution status`` lists it), so one
  damaged row never stops the queue from working on the others. :meth:`JobStore.check`
  validates every table and the schema marker for status.

Times are integer milliseconds since the epoch, passed in by the caller (the store reads no
clock).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from waymarks.core.evolution_policy import NO_ANSWER_CODES
from waymarks.core.model_port import SourceRef
from waymarks.store import binding
from waymarks.store.integrity import refuse_cut_to_nothing
from waymarks.store.job_routes import ANY_MODEL, RouteState
from waymarks.store.job_rows import (
    ALLOWED_CODES,
    CALL_OUTCOMES,
    CAUSE_UNKNOWN,
    JOB_COLUMNS,
    STATES,
    STEP_CODES,
    WAIT_REASONS,
    BadRowError,
    Cooldown,
    Job,
    Lease,
    QueueHealth,
    call_ok,
    parse_job,
    route_entry,
    route_key,
    route_ok,
    stored_count,
)
from waymarks.store.job_rows import code as _code
from waymarks.store.job_schema import MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError
from waymarks.store.private import private_database
from waymarks.store.wal import enter_wal
from waymarks.store.writer_lock import file_identity

__all__ = ["ALLOWED_CODES", "ANY_MODEL", "CALL_OUTCOMES", "DB_FILE", "MIGRATIONS",
           "SCHEMA_VERSION", "STATES", "STEP_CODES", "WAIT_REASONS", "BadRowError", "Cooldown",
           "Job", "JobStore", "Lease", "QueueHealth", "SchemaTooNewError"]

DB_FILE: Final = "evolution.db"

class JobStore(RouteState):
    """One connection to ``evolution.db``. Not shared between threads."""

    def __init__(self, path: Path) -> None:
        private_database(path)
        refuse_cut_to_nothing(path)  # damage (set aside), not a holder's lock to wait on
        self.path = path
        #: IDs of job rows left out of reads because they are not well formed (item 79)
        self.bad_jobs: set[str] = set()
        binding.install()
        #: the file this connection opened, taken before the open (see :meth:`replaced`)
        self.identity = file_identity(path)
        self.db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        self.db.execute("PRAGMA busy_timeout = 30000")
        enter_wal(self.db, 30.0)
        self.db.execute("PRAGMA synchronous = FULL")
        self._migrate()

    @classmethod
    def open(cls, home: Path) -> JobStore:
        return cls(home / DB_FILE)

    def close(self) -> None:
        self.db.close()

    def replaced(self) -> bool:
        """Whether the file at the path is no longer the one this connection opened:
        another process set it aside as damaged and made a new one, or the person moved
        it aside. A long-lived queue then reopens the path; writing on into the copy
        would let it and every other process lease the same job, each in its own file."""
        return file_identity(self.path) != self.identity

    # --- schema ------------------------------------------------------------------------

    def _migrate(self) -> None:
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise SchemaTooNewError(
                f"{self.path} has schema {version}; this Waymarks knows up to {SCHEMA_VERSION}:"
                " upgrade Waymarks (or move the file aside to start the queue afresh)")
        while version < SCHEMA_VERSION:
            with self.write():
                current = int(self.db.execute("PRAGMA user_version").fetchone()[0])
                if current != version:  # another process migrated meanwhile
                    version = current
                    continue
                MIGRATIONS[version](self.db)
                version += 1
                self.db.execute(f"PRAGMA user_version = {version}")

    def schema_version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction (the write lock is taken up front, so two
        processes never both read-then-write the same row)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- reconcile ---------------------------------------------------------------------

    def known(self, source_ids: Iterable[str]) -> set[str]:
        ids = list(source_ids)
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self.db.execute(
                f"SELECT source_id FROM jobs WHERE source_id IN ({marks})", chunk))
        return found

    def add_jobs(self, refs: Iterable[SourceRef], now: int) -> int:
        """Jobs for sources not yet known (pending, due now); returns how many were new.
        Reads first and takes the write lock only when something is new."""
        refs = list(refs)
        known = self.known(r.source_id for r in refs)
        fresh = [r for r in refs if r.source_id not in known]
        if not fresh:
            return 0
        with self.write() as db:
            before = db.total_changes
            db.executemany(
                "INSERT OR IGNORE INTO jobs (source_id, origin, classification, captured_at, "
                "state, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)",
                [(r.source_id, r.origin, r.classification, r.captured_at, now, now)
                 for r in fresh])
            return db.total_changes - before

    def add_requeued(self, jobs: Sequence[tuple[SourceRef, int]], now: int) -> int:
        """Jobs imported from another store with ``failures`` already spent, due now, their
        last error :data:`CAUSE_UNKNOWN` (item 81); a job this queue made meanwhile for the
        same source (reconcile, no attempt yet) takes them on. Returns how many."""
        with self.write() as db:
            before = db.total_changes
            db.executemany(
                "INSERT INTO jobs (source_id, origin, classification, captured_at, state, "
                "failures, retry_at, last_error, created_at, updated_at) VALUES "
                "(?, ?, ?, ?, 'retrying', ?, ?, ?, ?, ?) ON CONFLICT "
                "(source_id) DO UPDATE SET state = 'retrying', failures = excluded.failures,"
                " retry_at = excluded.retry_at, last_error = excluded.last_error, updated_at = "
                "excluded.updated_at WHERE jobs.state = 'pending' AND jobs.attempt = 0 "
                "AND jobs.failures = 0",
                [(r.source_id, r.origin, r.classification, r.captured_at, failures, now,
                  CAUSE_UNKNOWN, now, now) for r, failures in jobs if failures > 0])
            return db.total_changes - before

    # --- reads (no lock) ---------------------------------------------------------------

    def _valid(self, rows: Iterable[Sequence[object]], limit: int | None = None) -> list[Job]:
        """The well-formed jobs among ``rows`` (up to ``limit``); the others are named in
        :attr:`bad_jobs` and left out, so they never hide the good ones behind them."""
        found: list[Job] = []
        for row in rows:
            try:
                found.append(parse_job(row))
            except (BadRowError, TypeError, ValueError):
                self.bad_jobs.add(str(row[0]))
                continue
            if limit is not None and len(found) >= limit:
                break
        return found

    def job(self, source_id: str) -> Job | None:
        """The job of ``source_id``; None when there is none or its row is not well formed
        (then it is named in :attr:`bad_jobs`; see :meth:`is_bad`)."""
        row = self.db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE source_id = ?",
                              (source_id,)).fetchone()
        found = [] if row is None else self._valid([row])
        return found[0] if found else None

    def is_bad(self, source_id: str) -> bool:
        """Whether the job row of ``source_id`` exists and is not well formed."""
        row = self.db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE source_id = ?",
                              (source_id,)).fetchone()
        return row is not None and not self._valid([row])

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        """Source IDs that start with ``prefix`` (exact byte comparison, no wildcards)."""
        rows = self.db.execute(
            "SELECT source_id FROM jobs WHERE substr(source_id, 1, ?) = ? "
            "ORDER BY source_id LIMIT ?", (len(prefix), prefix, limit))
        return [str(r[0]) for r in rows]

    def due(self, now: int, limit: int) -> list[Job]:
        """Due jobs, least recently checked first (candidate selection: no lock held)."""
        rows = self.db.execute(
            f"SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('pending', 'retrying') "
            "AND retry_at <= ? ORDER BY checked_at, captured_at, source_id", (now,))
        return self._valid(rows, limit)

    def jobs_in(self, states: Sequence[str], limit: int) -> list[Job]:
        marks = ",".join("?" * len(states))
        rows = self.db.execute(
            f"SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ({marks}) "
            "ORDER BY retry_at, source_id", tuple(states))
        return self._valid(rows, limit)

    def counts(self, now: int | None = None) -> dict[str, int]:
        """Jobs by state. With ``now``, a lease that has ended (its process was killed)
        is not "in flight": it counts as ``retrying``, which the next check makes it (an
        ``interrupted`` failure), and status no longer says "1 in flight" for it."""
        found = dict.fromkeys(STATES, 0)
        ended = "" if now is None else (
            "CASE WHEN state = 'leased' AND lease_until <= :now THEN 'retrying' ELSE state END")
        for state, count in self.db.execute(
                f"SELECT {ended or 'state'} AS shown, COUNT(*) FROM jobs GROUP BY shown",
                {"now": now}):
            found[str(state)] = int(count)
        return found

    def heal(self, settled: Callable[[list[str]], set[str]], now: int) -> int:
        """Settle the open jobs whose source ``settled`` says the learned ledger settled
        (the ledger is canonical): a process killed between its ledger write and its
        job's update left the job retrying, counted so by `evolution status` (and waiting
        out its backoff) while `learn status` said settled. A live lease is its holder's
        to end. Returns how many were healed."""
        ids = [str(r[0]) for r in self.db.execute(
            "SELECT source_id FROM jobs WHERE state IN ('pending', 'retrying', 'paused') "
            "OR (state = 'leased' AND lease_until <= ?)", (now,))]
        done = sorted(settled(ids)) if ids else []
        if not done:
            return 0
        with self.write() as db:
            before = db.total_changes
            db.executemany(
                "UPDATE jobs SET state = 'settled', owner = NULL, lease_until = NULL, "
                "last_error = NULL, wait_reason = NULL, updated_at = ? WHERE source_id = ? "
                "AND (state IN ('pending', 'retrying', 'paused') OR (state = 'leased' AND "
                "lease_until <= ?))", [(now, i, now) for i in done])
            return db.total_changes - before

    def source_ids(self) -> set[str]:
        """Every source the queue holds a job for, in any state."""
        return {str(r[0]) for r in self.db.execute("SELECT source_id FROM jobs")}

    def check(self) -> QueueHealth:
        """Validate every row and the schema marker (``evolution status``; a full scan,
        never on a hook's path)."""
        bad_jobs = sorted({str(r[0]) for r in self.db.execute(
            f"SELECT {JOB_COLUMNS} FROM jobs") if not self._valid([r])})
        bad_calls = [int(r[0]) for r in self.db.execute(
            "SELECT id, source_id, owner, attempt, provider, model, reserved_at, outcome, "
            "input_tokens, output_tokens, estimated_usd, duration_ms FROM model_calls")
            if not call_ok(r)]
        bad_routes = [f"{r[0]}/{r[1]}" for r in self.db.execute(
            "SELECT provider, model, cooldown_until, reason, transport_failures "
            "FROM route_health") if not route_ok(r)]
        return QueueHealth(self.schema_version(), SCHEMA_VERSION, tuple(bad_jobs),
                           tuple(bad_calls), tuple(bad_routes))

    def open_jobs(self) -> int:
        """Jobs not settled (any other state), read through the state index: the recovery
        tick asks this every check, with thousands of settled jobs beside them."""
        row = self.db.execute(
            "SELECT COUNT(*) FROM jobs WHERE state IN ('pending', 'retrying', 'leased', "
            "'paused', 'given_up')").fetchone()
        return int(row[0])

    def wait_reasons(self) -> dict[str, int]:
        rows = self.db.execute(
            "SELECT wait_reason, COUNT(*) FROM jobs WHERE wait_reason IS NOT NULL AND "
            "state IN ('pending', 'retrying') GROUP BY wait_reason")
        return {str(r): int(c) for r, c in rows}

    def origins_waiting(self, reason: str, limit: int) -> list[str]:
        """The origins of due jobs that wait for ``reason`` (status names their files)."""
        rows = self.db.execute(
            "SELECT DISTINCT origin FROM jobs WHERE wait_reason = ? AND state IN "
            "('pending', 'retrying') ORDER BY origin LIMIT ?", (reason, limit))
        return [str(r[0]) for r in rows]

    def calls_since(self, since: int) -> int:
        """Reserved calls since ``since``: the shared rolling ceiling counts these."""
        row = self.db.execute("SELECT COUNT(*) FROM model_calls WHERE reserved_at > ?",
                              (since,)).fetchone()
        return int(row[0])

    def usd_since(self, since: int) -> float:
        """The estimated cost of the calls reserved since ``since``: a call in flight at its
        worst case, as the daily ceiling counts it."""
        return _usd_since(self.db, since)

    def recent_calls(self, limit: int) -> list[dict[str, object]]:
        rows = self.db.execute(
            "SELECT provider, model, outcome, reserved_at, duration_ms, input_tokens, "
            "output_tokens, estimated_usd, forced, reported_usd, reasoning_tokens "
            "FROM model_calls ORDER BY id DESC LIMIT ?", (limit,))
        keys = ("provider", "model", "outcome", "reservedAt", "durationMs", "inputTokens",
                "outputTokens", "estimatedUsd", "forced", "reportedUsd", "reasoningTokens")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # --- leases ------------------------------------------------------------------------

    def expire_leases(self, now: int, retry_at: Callable[[int], int]) -> int:
        """Expired leases become ``interrupted`` failures with backoff (item 59).
        ``retry_at(failures)`` gives the due time after that many failures.
        A call the dead lease still had reserved ends ``interrupted`` and keeps the
        worst-case cost it was reserved at: the provider may have answered and billed it
        (before, it stayed ``reserved`` at no cost for good)."""
        stale = self.db.execute(
            "SELECT source_id, failures, owner, attempt FROM jobs WHERE state = 'leased' "
            "AND lease_until <= ?", (now,)).fetchall()
        if not stale:
            return 0
        changed = 0
        with self.write() as db:
            for source_id, failures, owner, attempt in stale:
                cur = db.execute(
                    "UPDATE jobs SET state = 'retrying', owner = NULL, lease_until = NULL, "
                    "failures = failures + 1, retry_at = ?, last_error = 'interrupted', "
                    "updated_at = ? WHERE source_id = ? AND state = 'leased' "
                    "AND lease_until <= ?",
                    (retry_at(int(failures) + 1), now, source_id, now))
                if cur.rowcount:
                    db.execute(
                        "UPDATE model_calls SET outcome = 'interrupted', finished_at = ? "
                        "WHERE source_id = ? AND owner = ? AND attempt = ? AND "
                        "outcome = 'reserved'", (now, source_id, owner, attempt))
                changed += cur.rowcount
        return changed

    def lease(self, source_id: str, owner: str, now: int, until: int, *,
              forced: bool = False) -> Lease | None:
        """Claim a job for one attempt, or None when someone else has it, it is not due,
        or it is settled. ``forced`` (``evolve SOURCE``) ignores the source's delay and a
        pause, never a live lease or a settled job."""
        states = "('pending', 'retrying', 'paused')" if forced else "('pending', 'retrying')"
        due = "" if forced else " AND retry_at <= :now"
        with self.write() as db:
            cur = db.execute(
                f"UPDATE jobs SET state = 'leased', owner = :owner, lease_until = :until, "
                f"attempt = attempt + 1, checked_at = :now, updated_at = :now, "
                f"wait_reason = NULL WHERE source_id = :id AND state IN {states}{due}",
                {"owner": owner, "until": until, "now": now, "id": source_id})
            if cur.rowcount != 1:
                return None
            attempt = db.execute("SELECT attempt FROM jobs WHERE source_id = ?",
                                 (source_id,)).fetchone()[0]
        return Lease(source_id, owner, int(attempt), until)

    def holds(self, lease: Lease, now: int) -> bool:
        """Is ``lease`` still the live lease of its job?"""
        row = self.db.execute(
            "SELECT 1 FROM jobs WHERE source_id = ? AND state = 'leased' AND owner = ? "
            "AND attempt = ? AND lease_until > ?",
            (lease.source_id, lease.owner, lease.attempt, now)).fetchone()
        return row is not None

    def release(self, lease: Lease, now: int, wait_reason: str | None) -> bool:
        """Give a lease back without a failure (cancelled, or it could not be sent now):
        the job is pending again and due at once; ``wait_reason`` says why it waits."""
        _code(wait_reason)
        with self.write() as db:
            cur = db.execute(
                "UPDATE jobs SET state = 'pending', owner = NULL, lease_until = NULL, "
                "wait_reason = ?, updated_at = ? WHERE source_id = ? AND state = 'leased' "
                "AND owner = ? AND attempt = ?",
                (wait_reason, now, lease.source_id, lease.owner, lease.attempt))
            return cur.rowcount == 1

    def mark_waiting(self, source_id: str, reason: str, now: int) -> None:
        """Record why a due job was not attempted (it stays due; nothing is claimed)."""
        _code(reason)
        with self.write() as db:
            db.execute("UPDATE jobs SET wait_reason = ?, checked_at = ? WHERE source_id = ? "
                       "AND state IN ('pending', 'retrying')", (reason, now, source_id))

    # --- calls -------------------------------------------------------------------------

    def reserve_call(self, lease: Lease, provider: str, model: str, now: int, *,
                     hourly_cap: int, source_calls: int, source_models: int,
                     daily_usd: float | None, forced: bool = False,
                     worst_usd: float | None = None) -> int | str:
        """Reserve one model call under the shared ceilings, in one transaction: the row id
        of the reservation, or a wait reason: ``source_cap`` when the source spent its
        calls, ``source_models`` when this model would be one more than the source may use
        (another model it used may still be tried). ``forced`` skips the per-source caps,
        never the shared hourly or daily ceilings (item 69). ``worst_usd``: the call's
        worst-case cost, stored on the reservation so every process counts it while it is
        in flight; ``daily_budget`` when the day's spend (reservations included) plus it
        passes ``daily_usd`` (before, only finished calls counted and the call's own cost
        did not: three processes spent $1.20 of a $0.50 ceiling together)."""
        with self.write() as db:
            row = db.execute(
                "SELECT calls, models, owner, attempt, state FROM jobs WHERE source_id = ?",
                (lease.source_id,)).fetchone()
            if row is None or row[4] != "leased" or (row[2], row[3]) != (lease.owner,
                                                                          lease.attempt):
                return "source_cap"
            calls, models = int(row[0]), list(json.loads(str(row[1])))
            hour = int(db.execute("SELECT COUNT(*) FROM model_calls WHERE reserved_at > ?",
                                  (now - 3_600_000,)).fetchone()[0])
            if hour >= hourly_cap:
                return "hourly_cap"
            if daily_usd is not None:
                spent = _usd_since(db, now - 86_400_000)
                if spent >= daily_usd or spent + (worst_usd or 0.0) > daily_usd:
                    return "daily_budget"
            if not forced and calls >= source_calls:
                return "source_cap"
            held = route_entry(models, provider, model)
            if not forced and held is None and len(models) >= source_models:
                return "source_models"  # this route is past the source's model budget
            if held is None:
                models.append(route_key(provider, model))
            db.execute("UPDATE jobs SET calls = calls + 1, models = ? WHERE source_id = ?",
                       (json.dumps(models), lease.source_id))
            cur = db.execute(
                "INSERT INTO model_calls (source_id, owner, attempt, provider, model, "
                "reserved_at, outcome, forced, estimated_usd) VALUES "
                "(?, ?, ?, ?, ?, ?, 'reserved', ?, ?)",
                (lease.source_id, lease.owner, lease.attempt, provider, model, now,
                 int(forced), worst_usd))
            return int(cur.lastrowid or 0)

    def finish_call(self, call_id: int, outcome: str, now: int, duration_ms: int, *,
                    input_tokens: int = 0, output_tokens: int = 0,
                    estimated_usd: float | None = None, reported_usd: float | None = None,
                    reasoning_tokens: int = 0) -> None:
        """Record how a reserved call ended (cost accounting, item 66): usage, the cost
        estimated from the route's prices and the cost the provider reported, if any.
        A count no adapter should have passed (past SQLite's integers) is stored as 0."""
        if outcome not in CALL_OUTCOMES:
            raise ValueError("not an allowlisted call outcome")
        input_tokens, output_tokens, reasoning_tokens, duration_ms = (
            stored_count(n) for n in (input_tokens, output_tokens, reasoning_tokens,
                                      duration_ms))
        with self.write() as db:
            db.execute(
                "UPDATE model_calls SET outcome = ?, finished_at = ?, duration_ms = ?, "
                "input_tokens = ?, output_tokens = ?, estimated_usd = ?, reported_usd = ?, "
                "reasoning_tokens = ? WHERE id = ?",
                (outcome, now, duration_ms, input_tokens, output_tokens, estimated_usd,
                 reported_usd, reasoning_tokens, call_id))
            db.execute(
                "UPDATE jobs SET spent_ms = spent_ms + ? WHERE source_id = "
                "(SELECT source_id FROM model_calls WHERE id = ?)", (duration_ms, call_id))

    def refund_call(self, call_id: int) -> None:
        """A finished call the provider refused without an answer (``NO_ANSWER_CODES``:
        rate limited, quota, auth, no completion API) spent none of its source's budget:
        the source gets the call back and, unless another of its calls reached that model
        (or may have: one interrupted while reserved), the model's place among the
        ``sourceModels`` it may use. Before, two 429s used up ``sourceModels = 2`` and the
        next route found the source "spent": given up for good. The hourly ceiling still
        counts the call (its row stays)."""
        with self.write() as db:
            row = db.execute("SELECT source_id, provider, model, outcome FROM model_calls "
                             "WHERE id = ?", (call_id,)).fetchone()
            if row is None or row[3] not in NO_ANSWER_CODES:
                return
            source_id, provider, model = str(row[0]), str(row[1]), str(row[2])
            job = db.execute("SELECT models FROM jobs WHERE source_id = ?",
                             (source_id,)).fetchone()
            if job is None:
                return
            models = list(json.loads(str(job[0])))
            marks = ", ".join("?" * len(NO_ANSWER_CODES))
            other = db.execute(
                f"SELECT 1 FROM model_calls WHERE source_id = ? AND provider = ? AND "
                f"model = ? AND id != ? AND outcome NOT IN ({marks}) LIMIT 1",
                (source_id, provider, model, call_id, *sorted(NO_ANSWER_CODES))).fetchone()
            held = route_entry(models, provider, model)
            if other is None and held is not None:
                models.remove(held)
            db.execute("UPDATE jobs SET calls = MAX(calls - 1, 0), models = ? WHERE "
                       "source_id = ?", (json.dumps(models), source_id))

    def call_outcome(self, call_id: int, outcome: str) -> None:
        """Correct how a finished call ended (a reply found stale when applied)."""
        if outcome not in CALL_OUTCOMES:
            raise ValueError("not an allowlisted call outcome")
        with self.write() as db:
            db.execute("UPDATE model_calls SET outcome = ? WHERE id = ?", (outcome, call_id))

    # --- settling ----------------------------------------------------------------------

    def settle(self, lease: Lease, code: str, now: int) -> bool:
        """The attempt consolidated the source (``applied``/``refused_only``/``no_change``):
        done for good.
        False when the lease is no longer this holder's or has expired (a late result:
        ignored)."""
        return self._end(lease, now, state="settled", code=code)

    def give_up(self, lease: Lease, code: str, now: int) -> bool:
        """The source will not be consolidated (its budget is spent); False when the lease
        is no longer this holder's, or has expired."""
        return self._end(lease, now, state="given_up", code=code)

    def fail(self, lease: Lease, code: str, now: int, *, output: bool, pause: bool,
             retry_at: Callable[[int], int]) -> bool:
        """A counted failure: backoff (``retry_at(consecutive failures)``) or a pause.
        False (nothing changed) when the lease is no longer this holder's, or has expired."""
        _code(code)
        with self.write() as db:
            row = db.execute(
                "SELECT failures, output_failures FROM jobs WHERE source_id = ? AND "
                "state = 'leased' AND owner = ? AND attempt = ? AND lease_until > ?",
                (lease.source_id, lease.owner, lease.attempt, now)).fetchone()
            if row is None:
                return False
            failures = int(row[0]) + 1
            outputs = int(row[1]) + (1 if output else 0)
            db.execute(
                "UPDATE jobs SET state = ?, owner = NULL, lease_until = NULL, failures = ?, "
                "output_failures = ?, retry_at = ?, last_error = ?, updated_at = ? "
                "WHERE source_id = ?",
                ("paused" if pause else "retrying", failures, outputs,
                 retry_at(failures), code, now, lease.source_id))
            return True

    def _end(self, lease: Lease, now: int, *, state: str, code: str) -> bool:
        _code(code)
        with self.write() as db:
            cur = db.execute(
                "UPDATE jobs SET state = ?, owner = NULL, lease_until = NULL, last_error = ?, "
                "wait_reason = NULL, updated_at = ? WHERE source_id = ? AND state = 'leased' "
                "AND owner = ? AND attempt = ? AND lease_until > ?",
                (state, None if state == "settled" else code, now, lease.source_id,
                 lease.owner, lease.attempt, now))
            return cur.rowcount == 1

    def begin_correction(self, lease: Lease, now: int) -> bool:
        """Spend the source's one format correction (item 61), recording the contract
        break that calls for it as an output failure while the lease is kept. False (and
        nothing changed) when it was spent before (any earlier output failure) or the
        lease is not live: the break is then an ordinary output failure."""
        with self.write() as db:
            cur = db.execute(
                "UPDATE jobs SET output_failures = output_failures + 1, "
                "last_error = 'invalid_output', updated_at = ? WHERE source_id = ? AND "
                "state = 'leased' AND owner = ? AND attempt = ? AND lease_until > ? AND "
                "output_failures = 0", (now, lease.source_id, lease.owner, lease.attempt, now))
            return cur.rowcount == 1

    def failures_of(self, source_id: str) -> tuple[int, int]:
        row = self.db.execute("SELECT failures, output_failures FROM jobs WHERE source_id = ?",
                              (source_id,)).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))


def _usd_since(db: sqlite3.Connection, since: int) -> float:
    row = db.execute("SELECT COALESCE(SUM(estimated_usd), 0) FROM model_calls "
                     "WHERE reserved_at > ?", (since,)).fetchone()
    return float(row[0])
