"""The evolution job queue's fixed numbers and its error policy (seed 004, EVOLUTION G 57-67).

Why a table and not code spread over the worker: the queue must react to a failed model call
the same way in every process and every host, and the reaction must be reviewable in one
place. Everything here is a pure function of allowlisted codes (``MODEL_ERROR_CODES``) and
numbers passed in: no clock, no randomness (jitter is a number in ``[0, 1)`` the caller
draws), no I/O.

What must stay true:
- a source's backoff (``retry_at``) and a route's cooldown are separate: an error either
  cools a route down, or counts against the source, or both, but a cooldown never moves a
  source's retry time (item 60);
- ``cancelled`` never counts as a failure and never backs off (item 61);
- only allowlisted codes appear in an :class:`ErrorAction`, so nothing else can be
  persisted from it (item 67).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from waymarks.core.model_port import MODEL_ERROR_CODES

#: backoff after the 1st, 2nd, 3rd and every later consecutive failure (item 60)
BACKOFF_S: Final = (60.0, 300.0, 900.0, 3600.0)
#: jitter: a delay moves by at most this fraction either way
JITTER: Final = 0.2
#: one attempt's deadline, and the cumulative model time a source may use (item 54)
ATTEMPT_DEADLINE_S: Final = 120.0
SOURCE_BUDGET_S: Final = 300.0
#: a lease outlives the attempt's deadline by this margin (item 57: 120 + 30 = 150 s)
LEASE_MARGIN_S: Final = 30.0
#: failures that pause a source: 3 contract breaks, or 5 of any other kind (item 61)
PAUSE_AFTER_OUTPUT_FAILURES: Final = 3
PAUSE_AFTER_FAILURES: Final = 5
#: transport failures in a row on one route before it cools down (item 63)
TRANSPORT_FAILURES_BEFORE_COOLDOWN: Final = 2
#: the recovery tick: one source per check, this long after the previous one ended (item 7)
TICK_INTERVAL_S: Final = 15.0

#: set in the environment of a process a consolidation call started (``claude -p``): Waymarks
#: inside it captures nothing and starts no recovery (a call must not trigger another)
CHILD_ENV: Final = "WAYMARKS_EVOLUTION_CHILD"

Scope = Literal["none", "provider", "model"]
Counts = Literal["none", "failure", "output"]


@dataclass(frozen=True, slots=True)
class ErrorAction:
    """What one failed call does.

    ``cooldown`` names what cools down (a whole provider, one model, or nothing) for
    ``cooldown_s`` seconds; ``counts`` says whether the source records a failure (and
    which kind); ``transport`` marks failures that only cool a route down once they
    repeat; ``pause`` stops the source until someone runs ``evolve`` on it.
    """

    code: str
    cooldown: Scope
    cooldown_s: float
    counts: Counts
    transport: bool = False
    pause: bool = False
    #: the same-provider fallback models may be tried after this failure (not for auth or
    #: quota: another model of the same account fails the same way, item 64)
    same_provider_fallback: bool = True


#: code -> (cooldown scope, seconds, counts, transport, same-provider fallback)
_TABLE: Final[dict[str, tuple[Scope, float, Counts, bool, bool]]] = {
    "auth": ("provider", 900.0, "none", False, False),          # 401/403: 15 min
    "rate_limited": ("model", 60.0, "none", False, True),        # 429
    "quota": ("provider", 3600.0, "none", False, False),         # 402 / quota: 1 h or reset
    "timeout": ("none", 0.0, "failure", True, True),             # retry; 2 in a row: 15 min
    "overloaded": ("none", 0.0, "failure", True, True),          # 5xx
    "network": ("none", 0.0, "failure", True, True),
    "bad_request": ("model", 3600.0, "failure", False, True),    # 400/404/422, overflow: 1 h
    "invalid_output": ("none", 0.0, "output", False, True),      # then an alternate model
    "unavailable": ("provider", 900.0, "none", False, False),    # no completion API here
    "unknown": ("none", 0.0, "failure", False, True),
    "cancelled": ("none", 0.0, "none", False, True),             # never a failure
}
assert set(_TABLE) == MODEL_ERROR_CODES, "every model error code has a policy"

#: failures that are the provider's refusal, without an answer (a route-level failure, not
#: the source's): such a call spends none of the source's own budget (``refund_call``)
NO_ANSWER_CODES: Final = frozenset(code for code, row in _TABLE.items()
                                   if row[2] == "none" and code != "cancelled")

#: a repeated transport failure cools the model down this long
TRANSPORT_COOLDOWN_S: Final = 900.0
#: a supplied quota reset is honoured within these bounds (item 63: "1 h or until the
#: supplied reset")
QUOTA_RESET_BOUNDS_S: Final = (60.0, 86400.0)
#: a rate limit's cooldown is never shorter than this
RATE_LIMIT_MIN_S: Final = 60.0


def action_for(code: str, retry_after_s: float | None = None) -> ErrorAction:
    """The policy for an allowlisted error ``code``; an unknown code is ``unknown``.

    ``retry_after_s`` (a provider's Retry-After) lengthens a rate-limit cooldown, never
    shortens it; for ``quota`` it is the supplied reset, which replaces the 1 h default."""
    key = code if code in _TABLE else "unknown"
    scope, seconds, counts, transport, fallback = _TABLE[key]
    if key == "rate_limited" and retry_after_s is not None and retry_after_s > seconds:
        seconds = min(retry_after_s, 86400.0)
    if key == "quota" and retry_after_s is not None:  # the provider said when it resets
        low, high = QUOTA_RESET_BOUNDS_S
        seconds = min(max(retry_after_s, low), high)
    return ErrorAction(key, scope, seconds, counts, transport, False, fallback)


def step_action(outcome_code: str) -> Literal["settled", "output", "pause"]:
    """What a consolidation step's outcome does to its job: ``applied``,
    ``refused_only`` (its claims refused alone: nothing learned) and ``no_change`` settle
    it, ``invalid_output`` is an output failure, anything else (an authority refusal)
    pauses the source at once (item 61)."""
    if outcome_code in ("applied", "refused_only", "no_change"):
        return "settled"
    if outcome_code == "invalid_output":
        return "output"
    return "pause"


def backoff_s(consecutive_failures: int, jitter: float) -> float:
    """Seconds until a source that failed ``consecutive_failures`` times (>= 1) is due
    again: 1 m / 5 m / 15 m / 1 h, moved by at most ``JITTER`` either way.

    ``jitter`` is in ``[0, 1)`` (0.5 is no change); values outside are clamped."""
    step = BACKOFF_S[min(max(consecutive_failures, 1), len(BACKOFF_S)) - 1]
    fraction = min(max(jitter, 0.0), 1.0)
    return step * (1.0 + JITTER * (2.0 * fraction - 1.0))


def should_pause(failures: int, output_failures: int) -> bool:
    """True once a source has failed often enough to stop retrying it on its own."""
    return (failures >= PAUSE_AFTER_FAILURES
            or output_failures >= PAUSE_AFTER_OUTPUT_FAILURES)


def lease_s(attempt_deadline_s: float) -> float:
    """How long a lease lasts: the attempt's deadline plus the margin."""
    return attempt_deadline_s + LEASE_MARGIN_S


def attempt_deadline_s(timeout_s: float, spent_s: float, budget_s: float) -> float:
    """One attempt's deadline: the per-attempt timeout, clamped by what is left of the
    source's cumulative budget (a backup gets a fresh deadline, never a longer total)."""
    return max(0.0, min(timeout_s, budget_s - spent_s))
