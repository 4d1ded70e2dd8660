"""A value read with its unit (:mod:`waymarks.core.contradiction`'s signatures): a
duration in seconds, a size in bytes, a percentage, a rate with its time unit and whose
each it is, a count of a noun. Pure. (Moved out of ``core/contradiction.py`` whole.)"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from waymarks.core.claim_names import COUNTED, SOLE_VERBS, VALUE_FOLLOWERS
from waymarks.core.claim_terms import RATE_NAMES as _RATE_NAMES
from waymarks.core.claim_terms import SECONDS as _SECONDS
from waymarks.core.claim_terms import UNIT_NAMES as _UNIT_NAMES
from waymarks.core.claim_values import PER as _PER
from waymarks.core.claim_values import decimal as _decimal
from waymarks.core.claim_words import STOP as _STOP
from waymarks.core.claim_words import term as _term
from waymarks.core.lazy_re import lazy

#: a number and the unit glued to it ("30s", "512mb", "50%"), as the signature's value
#: expression matched it
_NUMBER_AND_UNIT: Final = lazy(r"(\d+(?:\.\d+)?)([a-z%]*)")
#: a unit word after a number ("30 seconds", "512 MB", "30 秒"; a lone "m" is no unit)
_UNIT_AFTER: Final = lazy(
    r" ?(milliseconds?|millis|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?"
    r"|weeks?|(?:kilo|mega|giga|tera)?bytes?|[kmgt]i?b|%|percent|毫秒|秒|分钟|小时|天|周|ミリ秒|時間|分|밀리초|초|분|시간)"
    r"(?![a-z0-9_-])")
_SLASH_RATE: Final = lazy(r"(\d+(?:\.\d+)?)(/[a-z]+)")
#: whose each a rate is, after its time unit ("100 req/min per user", "… per client", "…
#: per API key"): a limit of each one is another attribute than the whole's ("10 req/s"),
#: deliberately two facts (read as a subject word after the value, it qualified it, and
#: the two were one rate with two values)
_RATE_SCOPE: Final = lazy(r" per ([a-z][a-z0-9-]*)\b")


def with_unit(text: str, raw: str, end: int) -> tuple[str, int, str]:
    """A value with its unit folded in, where the text after it ends, and a count noun
    between the value and its rate ("100 requests per minute": ``requests``, a subject
    word). A duration is in seconds ("30s", "30 seconds" and "30 秒" are one value, "30
    minutes" another); a size, a percentage and a rate keep their unit in its one name.
    The value's prefix is its kind (``contradicts`` compares values of one kind): ``v:`` a
    plain number, version, time, path or name, ``d:`` a duration, ``b:`` a size,
    ``p:`` a percentage, ``r:`` a rate (``s:``, a state, is the state's)."""
    number = _NUMBER_AND_UNIT.fullmatch(raw)
    if number is None:
        glued = _SLASH_RATE.fullmatch(raw)  # "100/min": a rate, not the path it looks like
        slash = _PER.fullmatch(glued.group(2)) if glued is not None else None
        if glued is None or slash is None:
            return "v:" + raw, end, ""
        return f"r:{_decimal(glued.group(1))}/{_RATE_NAMES[slash.group(4)]}", end, ""
    amount, unit = number.group(1), number.group(2)
    if not unit:
        following = _UNIT_AFTER.match(text, end)
        if following is not None and not (following.group(1) == "m" and following.start(1) > end):
            unit, end = following.group(1), following.end()
    value = "v:" + amount
    if not unit and "." not in amount and _PER.match(text, end) is None:
        counted = COUNTED.match(text, end)  # "1500 tests": a count of a thing, not a
        if counted is not None and counted.group(1) not in _STOP | VALUE_FOLLOWERS | (
                SOLE_VERBS):
            return "c:" + amount, end, ""  # duration (the noun stays a subject word)
    if unit in _SECONDS:
        value = f"d:{Fraction(amount) * _SECONDS[unit]}s"
    elif unit in ("%", "percent"):
        value = f"p:{_decimal(amount)}%"
    elif unit:  # a size in bytes ("1 GB" is "1024 MB"; binary multiples, as memory is)
        unit = _UNIT_NAMES.get(unit, unit)
        if unit[0] not in "bkmgt":  # no unit: "1.5x", "3.2rc" are the dotted names matched
            return "v:" + raw, end, ""  # (looked up in "bkmgt", "x" raised ValueError)
        value = f"b:{Fraction(amount) * 1024 ** 'bkmgt'.index(unit[0])}b"
    rate = _PER.match(text, end)
    if rate is None:
        return value, end, ""
    amount = _decimal(amount) if value[:2] == "v:" else value[2:]
    per = _RATE_NAMES[rate.group(2) or rate.group(4)]
    scope = _RATE_SCOPE.match(text, rate.end())
    if scope is None or scope.group(1) in _STOP:
        return f"r:{amount}/{per}", rate.end(), rate.group(1) or rate.group(3) or ""
    return (f"r:{amount}/{per}@{_term(scope.group(1))}", scope.end(),
            rate.group(1) or rate.group(3) or "")
