"""The rows of ``evolution.db`` as this code writes them, and their validation on read
(EVOLUTION item 79): split from :mod:`waymarks.store.jobs` so the store stays one idea.

A row that is not one this code writes (a damaged page, a hand edit, a newer writer's
value) raises :class:`BadRowError` when parsed; the store leaves it out of reads and names
it, so one bad row never stops the queue. Only allowlisted codes are ever stored
(:func:`code`), never free text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

import msgspec

from waymarks.core.model_port import MODEL_ERROR_CODES

#: codes a wait reason may take (why a due job was not attempted)
WAIT_REASONS: Final = frozenset({
    "no_route", "privacy", "cooldown", "hourly_cap", "daily_budget", "source_cap",
    "price_unknown", "learning_off", "source_models", "origin_config_invalid"})
#: codes a call outcome may take besides the model error codes
#: (``interrupted``: its lease expired while it was reserved, its process gone; schema 5)
CALL_OUTCOMES: Final = frozenset({"reserved", "ok", "late", "stale", "interrupted"}
                                 ) | MODEL_ERROR_CODES
#: outcome codes of a consolidation step a job may record (anything else is stored as
#: ``write_rejected``)
STEP_CODES: Final = frozenset({"applied", "refused_only", "no_change", "invalid_output",
                               "write_rejected", "interrupted", "budget_spent"})
STATES: Final = ("pending", "retrying", "leased", "paused", "settled", "given_up")
#: the last error of a job imported with failures whose cause the old store did not keep
#: (pi-memory-evolution, EVOLUTION item 81)
CAUSE_UNKNOWN: Final = "cause_unknown"
ALLOWED_CODES: Final = WAIT_REASONS | CALL_OUTCOMES | STEP_CODES | {CAUSE_UNKNOWN}


def route_key(provider: str, model: str) -> str:
    """How a job's ``models`` list names a route: its provider and model together (the
    same model name served by another provider is another route; a list of model names
    alone skipped it as "tried")."""
    return json.dumps([provider, model])


def route_entry(models: Sequence[str], provider: str, model: str) -> str | None:
    """The entry of a job's ``models`` list that stands for the route, if any: its
    :func:`route_key`, or a bare model name a release before the keys wrote (and schema
    step 4 could not give a provider: no call of the source names it). Matched on the
    name alone, such an entry counts for the route instead of beside it: a row an older
    release wrote held every model past the per-source budget for good."""
    key = route_key(provider, model)
    if key in models:
        return key
    return model if model in models else None


def code(value: str | None) -> str | None:
    """An allowlisted code, or ``ValueError`` (never store free text)."""
    if value is not None and value not in ALLOWED_CODES:
        raise ValueError("not an allowlisted evolution code")
    return value


#: the largest integer a SQLite column holds (a larger Python int raises OverflowError)
SQLITE_MAX_INT: Final = 2**63 - 1


def stored_count(value: int) -> int:
    """A count as a call's accounting row can hold it: one past SQLite's 64 bits (or
    below 0) is no count at all, 0, never an ``OverflowError`` that leaves the call
    reserved and its job leased until the lease runs out."""
    return value if 0 <= value <= SQLITE_MAX_INT else 0


class Job(msgspec.Struct, frozen=True):
    source_id: str
    origin: str
    classification: str
    captured_at: str
    state: str
    attempt: int
    calls: int
    models: tuple[str, ...]
    spent_ms: int
    failures: int
    output_failures: int
    retry_at: int
    checked_at: int
    owner: str | None
    lease_until: int | None
    last_error: str | None
    wait_reason: str | None


class Lease(msgspec.Struct, frozen=True):
    """A claimed attempt. Only the holder of this exact token may settle it."""

    source_id: str
    owner: str
    attempt: int
    until_ms: int


class Cooldown(msgspec.Struct, frozen=True):
    provider: str
    model: str  # ``ANY_MODEL`` for the whole provider
    until_ms: int
    reason: str | None


JOB_COLUMNS: Final = ("source_id, origin, classification, captured_at, state, attempt, calls, "
                       "models, spent_ms, failures, output_failures, retry_at, checked_at, "
                       "owner, lease_until, last_error, wait_reason")


class BadRowError(ValueError):
    """A row that is not one this code writes (damaged, or edited by hand)."""


_CLASSIFICATIONS: Final = frozenset({"normal", "internal", "sensitive", "local-only"})


def _text(value: object, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise BadRowError("not a text")
    return value


def _count(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadRowError("not a count")
    return value


def parse_job(row: Sequence[object]) -> Job:
    """A job from its columns; ``BadRowError`` when any column is not what this code
    writes (identity, origin, state, counters, codes, the lease pair, the model list)."""
    (sid, origin, level, captured, state, attempt, calls, models, spent, failures, outputs,
     retry, checked, owner, until, error, wait) = row
    if state not in STATES or level not in _CLASSIFICATIONS:
        raise BadRowError("state or classification")
    try:
        names = json.loads(_text(models))
    except ValueError as exc:
        raise BadRowError("models") from exc
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise BadRowError("models")
    leased = state == "leased"
    if leased != (owner is not None) or leased != (until is not None):
        raise BadRowError("lease")
    if (error is not None and error not in ALLOWED_CODES) or (
            wait is not None and wait not in WAIT_REASONS):
        raise BadRowError("code")
    if any(ord(c) < 32 for c in _text(origin)):
        raise BadRowError("origin")
    return Job(_text(sid), str(origin), str(level), _text(captured), str(state),
               _count(attempt), _count(calls), tuple(names), _count(spent), _count(failures),
               _count(outputs), _count(retry), _count(checked),
               None if owner is None else _text(owner),
               None if until is None else _count(until), error, wait)


class QueueHealth(msgspec.Struct, frozen=True):
    """What :meth:`JobStore.check` found: the schema marker and every row that is not one
    this code writes (IDs only, never content)."""

    schema: int
    expected: int
    bad_jobs: tuple[str, ...]
    bad_calls: tuple[int, ...]
    bad_routes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return (self.schema == self.expected and not self.bad_jobs and not self.bad_calls
                and not self.bad_routes)

    def to_json(self) -> dict[str, object]:
        return {"ok": self.ok, "schema": self.schema, "expectedSchema": self.expected,
                "badJobs": list(self.bad_jobs), "badCalls": list(self.bad_calls),
                "badRoutes": list(self.bad_routes)}


def call_ok(row: Sequence[object]) -> bool:
    (_id, source, owner, attempt, provider, model, reserved, outcome, tokens_in, tokens_out,
     usd, duration) = row
    try:
        for value in (source, owner, provider, model):
            _text(value)
        for value in (attempt, reserved, tokens_in, tokens_out, duration):
            _count(value)
    except BadRowError:
        return False
    return outcome in CALL_OUTCOMES and (usd is None or (
        isinstance(usd, float | int) and usd >= 0))


def route_ok(row: Sequence[object]) -> bool:
    provider, model, until, reason, failures = row
    try:
        _text(provider), _text(model), _count(until), _count(failures)
    except BadRowError:
        return False
    return reason is None or reason in ALLOWED_CODES
