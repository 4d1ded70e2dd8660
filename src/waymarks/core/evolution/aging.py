"""Aging of learned claims at read time (EVOLUTION items 29, 30, 32, 33).

A learned claim fades with the time since it was last *confirmed*, never by rewriting it:
freshness and dormancy are computed when a claim is read, from its kind and two dates the
caller passes in (nothing here reads a clock). No kind is ever deleted for its age.

- freshness = ``floor + (1 - floor) * 2 ** (-age / half_life)``, ages below 0 clamped to 0;
- past its kind's horizon a claim is **dormant**: never offered for automatic injection, but
  still stored, recallable on an explicit request and a replacement candidate;
- a pinned claim (004 pin) has freshness 1 and is never dormant.

The factors multiply a claim's rank only *after* the relevance gates (they reorder what is
already relevant, they never make an irrelevant claim eligible): evidence weight
``1 + 0.04 * priority``; utility useful 1.05 / unhelpful 0.90; accuracy accurate 1.05 /
incorrect 0.50 (an ``incorrect`` claim is also quarantined by its lifecycle). These are
policy weights, not probabilities of truth.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

import msgspec

from waymarks.core.evolution.model import priority

DAY_SECONDS: Final = 86_400.0


class AgingRule(msgspec.Struct, frozen=True):
    half_life_days: float
    floor: float
    dormant_after_days: float


#: the seed's table (kind -> half-life, floor, dormant horizon)
AGING: Final[dict[str, AgingRule]] = {
    "project_state": AgingRule(3, 0.50, 7),
    "fact": AgingRule(60, 0.50, 180),
    "decision": AgingRule(120, 0.60, 365),
    "preference": AgingRule(240, 0.70, 730),
}
#: a kind outside the table ages as a fact (the most common learned kind)
DEFAULT_RULE: Final = AGING["fact"]

UTILITY_FACTORS: Final = {"useful": 1.05, "unhelpful": 0.90}
ACCURACY_FACTORS: Final = {"accurate": 1.05, "incorrect": 0.50}
EVIDENCE_STEP: Final = 0.04


def parse_time(stamp: str) -> float | None:
    """Seconds since the epoch of an ISO-8601 stamp (``Z`` accepted); ``None`` if invalid."""
    try:
        parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.timestamp()


def later(a: str, b: str) -> bool:
    """Whether time ``a`` is strictly after time ``b`` (unreadable times are never later)."""
    pa, pb = parse_time(a), parse_time(b)
    return pa is not None and pb is not None and pa > pb


def age_days(confirmed_at: str, now: str) -> float:
    """Days from ``confirmed_at`` to ``now``; a future (or unreadable) date is age 0."""
    then, current = parse_time(confirmed_at), parse_time(now)
    if then is None or current is None:
        return 0.0
    return max(0.0, (current - then) / DAY_SECONDS)


def freshness(kind: str, age: float, *, pinned: bool = False) -> float:
    """The freshness factor of a claim of ``kind`` that is ``age`` days old."""
    if pinned:
        return 1.0
    rule = AGING.get(kind, DEFAULT_RULE)
    age = max(0.0, age)
    decay: float = 2.0 ** (-age / rule.half_life_days)
    return rule.floor + (1.0 - rule.floor) * decay


def dormant(kind: str, age: float, *, pinned: bool = False) -> bool:
    """Whether a claim of ``kind``, ``age`` days since confirmation, is past its horizon."""
    if pinned:
        return False
    return max(0.0, age) > AGING.get(kind, DEFAULT_RULE).dormant_after_days


def evidence_weight(basis: str, kind: str) -> float:
    return 1.0 + EVIDENCE_STEP * priority(basis, kind)


def utility_factor(verdict: str | None) -> float:
    return UTILITY_FACTORS.get(verdict or "", 1.0)


def accuracy_factor(verdict: str | None) -> float:
    return ACCURACY_FACTORS.get(verdict or "", 1.0)


class Aging(msgspec.Struct, frozen=True):
    """What reading a claim at ``now`` says about its age (for ranking and ``show``)."""

    age_days: float
    freshness: float
    dormant: bool


def aging(kind: str, confirmed_at: str, now: str, *, pinned: bool = False) -> Aging:
    age = age_days(confirmed_at, now)
    return Aging(age, freshness(kind, age, pinned=pinned), dormant(kind, age, pinned=pinned))
