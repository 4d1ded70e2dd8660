"""Memory evolution for one home: capture, the consolidation step, forget.

The canonical home of everything learned is the **evolution ledger**, one Pi v3 session
file at ``<home>/evolution/ledger.jsonl`` whose entries are ``custom`` entries of type
``waymarks-evolution-v1`` (sources, claims, refusals, settlements, forgets), appended
through the ledger's own locked append path. ``waymarks.db`` only projects it
(:mod:`waymarks.store.evolution`), so deleting the database loses nothing.

:class:`Evolution` implements :class:`~waymarks.core.model_port.ConsolidationStep`, the seam
the job queue runs: ``unsettled`` → ``request_for`` → (the queue calls a model) →
``apply`` or ``give_up``. It performs no network I/O and holds no lease.

What must stay true:
- every write runs under the ledger's exclusive lock with the projection brought up to
  date first, so two processes applying one source write it once (the second finds it
  settled) and a decision is never made against stale state;
- applying is idempotent per source: a settled source changes nothing;
- a reply computed against claim states that changed since its request was built (a
  person's feedback or edit, another write) is not committed: ``stale``, nothing written;
- a reply that breaks the output contract writes nothing and leaves the source unsettled
  (``invalid_output`` is correctable: the queue may retry with a correction);
- nothing learned can touch a pin or a person-confirmed memory (see
  :mod:`waymarks.core.evolution.decide`); a reply that tries (or names a cross-origin or
  newer record) writes only its refusals, with fixed reasons, and leaves the source
  unsettled: the queue pauses it (``write_rejected``), and a paused job is not settled;
- persisted settlement codes are fixed strings: an error code outside the allowlist is
  stored as ``unknown``, never as text someone passed in.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from waymarks.core.evolution.capture import sanitize, summary_claims
from waymarks.core.evolution.fold import ClaimRow, SourceRow
from waymarks.core.evolution.model import (
    AUTHORITY_REASONS,
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    EvolutionRecord,
    ForgetRecord,
    SettledRecord,
    SourceRecord,
    claim_id,
    encode_record,
    source_id,
)
from waymarks.core.model_port import (
    MODEL_ERROR_CODES,
    ModelReply,
    ModelRequest,
    SourceRef,
    StepOutcome,
)
from waymarks.core.privacy import LEVELS
from waymarks.ledger.log import SessionFileError
from waymarks.ledger.session_file import SessionFile
from waymarks.service.evolution_lookup import ReplyLookup, disputed
from waymarks.service.learning import has_ledger as has_ledger  # re-exported
from waymarks.service.learning import ledger_path as ledger_path  # re-exported
from waymarks.service.outcomes import LedgerDamaged as LedgerDamaged  # re-exported
from waymarks.service.ports import Clock, IdSource, RandomIds, SystemClock, iso
from waymarks.service.recovery import SQLITE_ERRORS, is_damage, open_recovering, set_aside_alone
from waymarks.store.evolution import EvolutionStore
from waymarks.store.writer_lock import FileIdentity, file_identity

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

# The consolidation modules (contract, decide, request: ~15 ms of imports) are imported
# where they are used: capture runs on a host's hook path and needs none of them.

LEDGER_SESSION_ID: Final = "waymarks-evolution"
DB_NAME: Final = "waymarks.db"
#: settlement codes besides the model port's error codes and the authority reasons
STEP_CODES: Final = frozenset({"applied", "refused_only", "no_change", "withheld",
                               "budget_spent", "no_target", "untrusted"})
SETTLEMENT_CODES: Final = STEP_CODES | MODEL_ERROR_CODES | AUTHORITY_REASONS


def _why(path: Path, exc: Exception) -> str:
    """What is wrong with the ledger, without the fix a session file's error suggests."""
    if isinstance(exc, PermissionError):  # (is_file() is False too: it cannot be looked at)
        return exc.strerror or "Permission denied"
    if not path.is_file():
        return "not a regular file"
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc).removeprefix(f"{path}: ").split(" (", 1)[0].split(";", 1)[0]


class Captured(msgspec.Struct, frozen=True):
    """What a capture did: the source's ID, whether it was new, how many local claims."""

    source_id: str
    new: bool
    local_claims: int = 0


class Evolution:
    """Learning for one home (see the module docstring)."""

    def __init__(self, home: Path, *, clock: Clock | None = None,
                 ids: IdSource | None = None, busy_timeout_ms: int | None = None) -> None:
        self.home = home
        self.clock = clock or SystemClock()
        self.ids = ids or RandomIds()
        #: how long a write waits for a busy ``waymarks.db`` and for the learned ledger's
        #: lock (capture: short, then queued; a hook: its own bound)
        self.busy_timeout_ms = busy_timeout_ms
        self._ledger: SessionFile | None = None
        self._ledger_identity: FileIdentity | None = None  # the file ``_ledger`` opened
        self._store: EvolutionStore | None = None
        #: source ID -> (offered claim IDs, digest of their states) of the request built
        #: last (item 36: a reply computed against a state changed since is not committed)
        self._in_flight: dict[str, tuple[tuple[str, ...], str]] = {}
        #: the origin generation each pending request was built at (item 57)
        self._generations: dict[str, int] = {}
        #: set by :func:`waymarks.service.evolution_feedback.dry_run` and, for a rehearsing
        #: ``Waymarks``, by :func:`evolution_for`: an edit decides (every check, under the
        #: lock) and stops before appending
        self.dry_run = False
        #: the calling host's (Pi's) (project, trusted): :func:`.trust_held.sendable`
        self.host_trust: tuple[str, bool] | None = None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Evolution:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------------

    @property
    def ledger(self) -> SessionFile:
        """The learned ledger. A long-lived object (the helper's captures, a recovery
        tick's step) whose file was moved aside (the fix for a damaged one) or replaced
        since it was opened reads the file at the path from then on, as a new process
        would (never while it holds the ledger's lock): it failed every capture and check
        until the process ended."""
        path = ledger_path(self.home)
        if self._ledger is not None and not self._ledger.holds_lock and (
                file_identity(path) != self._ledger_identity):
            self._ledger = None
        if self._ledger is None:
            if not has_ledger(self.home):
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                with contextlib.suppress(FileExistsError):  # a concurrent creator won
                    self._ledger = SessionFile.create(path, LEDGER_SESSION_ID,
                                                      iso(self.clock.now()), str(self.home))
                    self._ledger_identity = file_identity(path)
            if self._ledger is None:
                try:
                    identity = file_identity(path)  # before the open, as the stores do
                    self._ledger = SessionFile.open(path)
                except (SessionFileError, OSError) as exc:
                    raise LedgerDamaged(path, _why(path, exc),
                                        isinstance(exc, PermissionError)) from exc
                self._ledger_identity = identity
            if self.busy_timeout_ms is not None:  # a hook's or a capture's short wait:
                # the ledger's lock waited its 30 s default, past Claude Code's 10 s
                self._ledger.lock_wait_s = self.busy_timeout_ms / 1000
        return self._ledger

    def holds_current_files(self) -> bool:
        """Whether the database this object holds open is still the file at its path:
        between two requests of a warm process another process may have set it aside.
        (The ledger follows its path by itself: :attr:`ledger`.)"""
        return self._store is None or file_identity(self.home / DB_NAME) == self._store.identity

    @property
    def store(self) -> EvolutionStore:
        """The evolution tables; a damaged database is set aside and a new one opened
        (:func:`~waymarks.service.recovery.open_recovering`)."""
        if self._store is None:
            self._store = open_recovering(self._open_store, self.home / DB_NAME,
                                          self.clock.now)
        return self._store

    def _open_store(self) -> EvolutionStore:
        now_ms = int(self.clock.now().timestamp() * 1000)
        if self.busy_timeout_ms is None:
            return EvolutionStore(self.home / DB_NAME, now_ms)
        return EvolutionStore(self.home / DB_NAME, now_ms, busy_timeout_ms=self.busy_timeout_ms)

    def _set_aside(self, problem: Exception) -> None:
        """The database proved damaged while in use: set it aside; reopened on next use."""
        found = self._store.identity if self._store is not None else None
        self.close()
        set_aside_alone(self.home / DB_NAME, problem, self.clock.now(), found)

    def sync(self) -> int:
        """Fold what the ledger holds past the projection's checkpoint (a damaged database
        is set aside and the ledger folded into a new one). A ledger not opened yet whose
        end is the checkpoint is not read at all: every prompt's plan synced, and opening
        the ledger read all of it (seconds at 60k learned claims) to fold nothing."""
        if self._ledger is None and self._folded_to_end():
            return 0
        self._read_on()
        return self._locked_sync()

    def _read_on(self) -> None:
        """Read what was appended to the ledger since (``LedgerDamaged`` if it cannot)."""
        try:
            self.ledger.refresh()
        except (SessionFileError, OSError) as exc:  # replaced or cut since it was opened
            raise LedgerDamaged(self.ledger.path, _why(self.ledger.path, exc),
                                isinstance(exc, PermissionError)) from exc

    def _folded_to_end(self) -> bool:
        """Whether the projection's checkpoint is the end of the file at the ledger's path
        (see :meth:`_unfolded`). Anything else (a byte appended, a file cut or replaced,
        one that cannot be read, a damaged database) is for :meth:`sync`'s full path,
        which reads the ledger and says what is wrong."""
        return self._unfolded() == 0

    def _unfolded(self) -> int | None:
        """The bytes of the file at the ledger's path the checkpoint does not vouch for:
        past it, or the whole file when the bytes before it are not those folded (its
        size, and the fingerprint of the 256 bytes before it, as a session ledger's
        checkpoint is checked). ``None`` when that cannot be told here (no regular file,
        an empty or unreadable one, a damaged database: the sync says what is wrong)."""
        path = ledger_path(self.home)
        try:
            found = os.stat(path)
            if not stat.S_ISREG(found.st_mode) or not found.st_size:
                return None
            return found.st_size - self.store.vouched(
                LEDGER_SESSION_ID, found.st_size, SessionFile.unread(path).fingerprint)
        except (OSError, *SQLITE_ERRORS):
            return None

    def unfolded_bytes(self) -> int:
        """How many bytes of the ledger a :meth:`sync` now would fold: those past the
        projection's checkpoint, or all of them when nothing is folded yet or the ledger
        is not the one folded (an older copy restored, a line edited: folded again from
        the start; counting from the checkpoint, a hook took it for nothing to fold)."""
        return self._unfolded() or 0

    def rebuild(self) -> int:
        """Drop the evolution tables' derived state and fold the whole evolution ledger
        again, in one transaction (``waymarks rebuild-index``): the result is what an
        incremental projection holds (the same fold, the same order). Returns the number of
        records folded. Runs under the ledger lock, so no append lands half-folded."""
        with self.ledger.locked(), self.store.transaction():
            self.store.reset()
            return self.store.sync(self.ledger)

    def _append(self, records: Sequence[EvolutionRecord]) -> None:
        """Append ``records`` (call under ``self.ledger.locked()``), then project them."""
        stamp = iso(self.clock.now())
        for record in records:
            self.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                                "data": encode_record(record), "timestamp": stamp},
                               self.ids.entry_id)
        try:
            self.store.fold_in_parts(self.ledger)
        except SQLITE_ERRORS as exc:  # appended: done; the next open folds it into a new
            if not is_damage(exc):  # database (an edit that happened is never a failure)
                raise
            self._set_aside(exc)

    def _locked_sync(self) -> int:
        """Fold what the ledger holds past the checkpoint. A database found damaged, or
        replaced by another process that found it so (while a model call was in flight,
        say), is set aside or left to it, and the ledger folded into the file at the path:
        a reply applied then is written, not failed with its paid answer thrown away."""
        try:
            return self.store.fold_in_parts(self.ledger, self._read_on)
        except SQLITE_ERRORS as exc:
            if not is_damage(exc):
                raise
            self._set_aside(exc)
        return self.store.fold_in_parts(self.ledger, self._read_on)

    # -- capture ------------------------------------------------------------------------

    def capture(self, origin: str, kind: str, text: str, *, session: str,
                key: str) -> Captured | None:
        """Store one sanitized source: a user ``statement``, or a compaction ``summary``
        with up to 16 local claims (evidence ``summary/local``). ``key`` identifies the
        capture within ``session`` (a message or compaction ID), so capturing the same
        thing twice gives one source. ``None`` when nothing of ``text`` may be stored
        (all of it local-only, or blank)."""
        return self.capture_many(origin, session, [(kind, key, text)])[0]

    def capture_many(self, origin: str, session: str,
                     items: Sequence[tuple[str, str, str]]) -> list[Captured | None]:
        """Capture several (kind, key, text) at once: one lock, one projection sync (the
        hook path). Kind ``statement`` is a user statement; ``summary`` a compaction
        summary (with its local claims)."""
        from waymarks.service.config import unmarked_level
        from waymarks.service.evolution_attempt import home_route_keys

        # unmarked text is at the level the person's policy gives it (a configuration that
        # cannot be read: nothing is kept, as nothing of it could be sent)
        default = unmarked_level(self.home, origin)
        keys = home_route_keys(self.home)  # a route's own key pasted: no rule knows it
        prepared = []
        for kind, key, text in items:
            clean = sanitize(text, default, secrets=keys)
            prepared.append(None if clean is None else (
                kind, source_id(origin, kind, session, key), *clean))
        at = iso(self.clock.now())
        out: list[Captured | None] = []
        records: list[EvolutionRecord] = []
        with self.ledger.locked():
            self._locked_sync()
            seen: set[str] = set()
            for item in prepared:
                if item is None:
                    out.append(None)
                    continue
                kind, sid, body, level = item
                if sid in seen or self.store.view.source(sid) is not None:
                    out.append(Captured(sid, False))
                    continue
                seen.add(sid)
                basis = "summary" if kind == "summary" else "user_statement"
                records.append(SourceRecord(SCHEMA_VERSION, sid, origin, kind, basis,  # type: ignore[arg-type]
                                            body, level, at, session))
                bullets = summary_claims(body) if kind == "summary" else []
                index = self.store.view.worded_index(origin) if bullets else None
                local = [c for c in bullets if not disputed(self.store, origin, c, index)
                         and not self.store.view.forgotten(origin, c, index)]
                evidence = Evidence("summary", "local", sid, at)
                records.extend(ClaimRecord(SCHEMA_VERSION, claim_id(origin, "fact", c), origin,
                                           "fact", c, evidence) for c in local)
                out.append(Captured(sid, True, len(local)))
            if records:
                self._append(records)
        return out

    # -- the consolidation step (core.model_port.ConsolidationStep) ----------------------

    def unsettled(self, limit: int) -> list[SourceRef]:
        """Sources captured but not yet settled, oldest first. Capture requests waiting
        in the spool are drained first (item 11: the recovery tick, ``evolve`` and every
        queue check retry a capture that failed; one listing when there are none)."""
        from waymarks.service.capture_spool import drain

        drain(self.home, self)
        self.sync()
        # a source row with a classification this code does not know is damaged: left out
        # (``evolution status`` names it), the others still reach the queue (item 79)
        return [SourceRef(s.source_id, s.origin, s.classification, s.captured_at)
                for s in self.store.unsettled(limit)
                if s.classification in LEVELS and s.origin and s.source_id]

    def _without_route_keys(self, request: ModelRequest) -> ModelRequest:
        """``request`` with the routes' own keys redacted: a source captured by a process
        that lacked the variable kept a pasted key, and it went to every route."""
        from waymarks.core.evolution.capture import without_values
        from waymarks.core.records import replace
        from waymarks.service.evolution_attempt import home_route_keys

        prompt = without_values(request.prompt, home_route_keys(self.home))
        return request if prompt == request.prompt else replace(request, prompt=prompt)

    def request_for(self, source_id: str) -> ModelRequest | None:
        """The call to make for a source; ``None`` when it needs none (settled, unknown,
        or nothing of it may be sent: then it is settled ``withheld``, or ``untrusted``)."""
        self.sync()
        source = self.store.view.source(source_id)
        if source is None or source.settled is not None:
            return None
        from waymarks.core.evolution.progress import build_request as progress_request
        from waymarks.core.evolution.progress import is_progress
        from waymarks.core.evolution.request import build_request
        from waymarks.service.trust_held import sendable

        offered = self._offered(source)
        progress = is_progress(source)  # a work source: only its nominated targets
        trusted = sendable(self.home, source.kind, source.origin, self.host_trust)
        build = progress_request if progress else build_request
        request = build(source, offered) if trusted else None  # (no rule trusts it now)
        if request is not None:
            request = self._without_route_keys(request)
            ids = tuple(c.id for c, _level in offered)
            self._in_flight[source_id] = (ids, self._digest(ids))
        # what the model is shown is as of this generation of the origin's memory; a reply
        # applied after it changed is stale (item 57)
        self._generations[source_id] = self.store.origin_generation(source.origin)
        if request is None:
            code = "no_target" if progress and not offered else "withheld"
            code = code if trusted else "untrusted"
            with self.ledger.locked():
                self._locked_sync()
                if self._unsettled(source_id) is not None:
                    self._append([SettledRecord(SCHEMA_VERSION, source_id, code,
                                                iso(self.clock.now()))])
        return request

    def apply(self, source_id: str, reply: ModelReply, at: str, *,
              secrets: frozenset[str] = frozenset()) -> StepOutcome:
        """Validate ``reply`` against the output contract and write what it may; a claim
        holding one of ``secrets`` (the routes' keys) is refused as a credential is."""
        from waymarks.core.evolution.confirm import confirmations
        from waymarks.core.evolution.contract import ContractBreak, parse_reply
        from waymarks.core.evolution.decide import decide

        parsed = parse_reply(reply.text)
        with self.ledger.locked():
            self._locked_sync()
            source = self._unsettled(source_id)
            if source is None:
                return StepOutcome("no_change")
            seen = self._generations.pop(source_id, None)
            if seen is not None and seen != self.store.origin_generation(source.origin):
                # the origin's memory changed while the model worked on an older view of
                # it: nothing is written; the queue re-reads (a fresh request) within the
                # source's caps (item 57, error policy "stale result")
                return StepOutcome("stale")
            if isinstance(parsed, ContractBreak):
                self.last_break = parsed.rule
                return StepOutcome("invalid_output", rule=parsed.rule)
            flight = self._in_flight.get(source_id)
            if flight is not None and self._digest(flight[0]) != flight[1]:
                # a claim the model was shown changed since (feedback, an edit, another
                # source's write): its reply is stale; nothing is written, the source stays
                # unsettled (the queue re-reads once, as for a changed generation)
                self._in_flight.pop(source_id, None)
                return StepOutcome("stale")
            chosen = frozenset(c.id for c, _level in self._offered(source))
            decision = decide(source, parsed, chosen, ReplyLookup(self.store, parsed), at,
                              secrets=secrets)
            # a reply refused for authority writes nothing of itself (the job pauses)
            confirm = confirmations(source, parsed, chosen, decision.records,
                                    self.store.view.claim) if decision.settles else []
            settlement = [SettledRecord(SCHEMA_VERSION, source_id, decision.code, at,
                                        decision.written, decision.refused)
                          ] if decision.settles else []
            self._append([*decision.records, *confirm, *settlement])
            self._in_flight.pop(source_id, None)
        return StepOutcome(decision.code, decision.written, decision.refused)

    def _digest(self, ids: Sequence[str]) -> str:
        from waymarks.core.evolution.rows import state_digest

        return state_digest({cid: self.store.view.claim(cid) for cid in ids})

    #: the contract rule the last ``invalid_output`` broke (a fixed name), for a correction
    last_break: str | None = None

    def give_up(self, source_id: str, code: str, at: str) -> None:
        """Settle a source the queue will not consolidate (its attempt budget is spent)."""
        fixed = code if code in SETTLEMENT_CODES else "unknown"
        with self.ledger.locked():
            self._locked_sync()
            if self._unsettled(source_id) is not None:
                self._append([SettledRecord(SCHEMA_VERSION, source_id, fixed, at)])

    def _unsettled(self, source_id: str) -> SourceRow | None:
        source = self.store.view.source(source_id)
        return source if source is not None and source.settled is None else None

    def _offered(self, source: SourceRow) -> list[tuple[ClaimRow, str]]:
        from waymarks.core.evolution import progress
        from waymarks.core.evolution.request import offered

        # a damaged claim row is left out (``evolution status`` names it), never offered
        # and never allowed to stop the source's consolidation (item 79)
        readable, _bad = self.store.readable_claims(["provisional"])
        claims = [c for c in readable if c.origin == source.origin]
        chosen = progress.offered if progress.is_progress(source) else offered
        levels = self.store.source_levels()  # a correction: the corrected claim's level
        return [(claim, levels.get(claim.source_id, "normal"))
                for claim in chosen(source, claims)]

    # -- reads and edits ----------------------------------------------------------------

    def claims(self, states: Sequence[str] | None = None) -> list[ClaimRow]:
        self.sync()
        return self.store.claims(states=states)

    def claim(self, claim_id: str) -> ClaimRow | None:
        self.sync()
        return self.store.view.claim(claim_id)

    def forget(self, claim_id: str) -> bool:
        """Forget one evolved claim by its exact ID; ``False`` when there is no such active
        claim. Its content is suppressed in its origin from then on."""
        with self.ledger.locked():
            self._locked_sync()
            claim = self.store.view.claim(claim_id)
            if claim is None or claim.state == "forgotten":
                return False
            self._append([ForgetRecord(SCHEMA_VERSION, claim_id, iso(self.clock.now()))])
        return True

    def counts(self) -> dict[str, int]:
        self.sync()
        return self.store.counts()


@contextlib.contextmanager
def evolution_for(app: Waymarks) -> Iterator[Evolution]:
    """The home's learned memory, opened for one command of ``app``: while ``app`` rehearses
    (``Waymarks.rehearsing``: every check, nothing appended) so do the edits made through
    it (:attr:`Evolution.dry_run`).

    Why: a rehearsal (the web inspector's ``/confirm``) must append nothing to either
    ledger; a command that opened the evolution state without carrying the app's
    rehearsal over would really forget or correct a claim before the person said yes.
    This is the one place the two are joined."""
    with Evolution(app.home) as evo:
        evo.dry_run = app.rehearsing
        yield evo


def rebuild_evolution(home: Path, clock: Clock | None = None, ids: IdSource | None = None
                      ) -> int | None:
    """Refold the evolution tables of ``home`` from its evolution ledger (``None``: there is
    no ledger, nothing is created)."""
    if not has_ledger(home):
        return None
    with Evolution(home, clock=clock, ids=ids) as evo:
        return evo.rebuild()


def drain_captures(home: Path) -> dict[str, object]:
    """Drain the home's capture spool once (a detached drainer, tests): counts only."""
    from waymarks.service.capture_spool import CAPTURE_BUSY_MS, drain

    with Evolution(home, busy_timeout_ms=CAPTURE_BUSY_MS) as evo:
        return drain(home, evo).to_json()


def warm(kept: dict[Path, Evolution], home: Path, *,
         busy_timeout_ms: int | None = None) -> Evolution:
    """The ``Evolution`` of ``home`` a long-lived process keeps in ``kept`` between
    requests (its ledger reader and projection then read only what was appended), opened
    anew when the database it holds is no longer the one at its path
    (:meth:`Evolution.holds_current_files`; its ledger follows its path by itself): it
    would go on working on the set-aside file, while a new process works on the new one."""
    evo = kept.get(home)
    if evo is not None and not evo.holds_current_files():
        kept.pop(home).close()
        evo = None
    if evo is None:
        evo = kept[home] = Evolution(home, busy_timeout_ms=busy_timeout_ms)
    return evo
