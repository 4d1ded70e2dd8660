"""Bounds on a claim's values ("holds at most 100 jobs", "never sends more than 50 emails
per minute", "keeps at least 3 replicas"): a ceiling or a floor, not an amount. Read as
words of the subject, a bound made its claim about a narrower thing ("most" of "at most"),
and a denied one ("never … more than 50") denied its amount, so "The mailer sends 200
emails per minute." was written beside a ceiling of 50. A bound is now compared with an
amount of the same measure by size: an amount past it contradicts it, one within it
agrees; two bounds of one kind are compared as their amounts are (another ceiling is
another fact's value). Pure."""

from __future__ import annotations

from fractions import Fraction
from typing import Final, Protocol

from waymarks.core.claim_denials import NEGATION, clause_before
from waymarks.core.claim_values import PLAIN_NUMBER, per_second
from waymarks.core.lazy_re import lazy

#: the words of a bound right before a value (a negation earlier in the clause turns it:
#: "never more than 50" is at most 50, "not fewer than 3" at least 3)
_BOUND_BEFORE: Final = lazy(
    r"\b(at most|no more than|up to|max|maximum|more than|fewer than|less than"
    r"|at least|no less than|no fewer than|min|minimum) $")
_CEILINGS: Final = frozenset(
    ("at most", "no more than", "up to", "max", "maximum", "fewer than", "less than"))
#: the kinds of value a bound is compared on by size (:func:`waymarks.core.contradiction`'s
#: prefixes): a count or a plain number, a duration, a size, a percentage, a rate
_SIZED: Final = frozenset(("c:", "v:", "d:", "b:", "p:", "r:"))

#: a bound said in other words before a number, and the words :data:`_BOUND_BEFORE` reads
#: ("never exceeds 50", "no longer than 8 hours", "is limited to 25 MB", "不超过 5 秒",
#: "至少需要 2 个"): read as words of the subject ("exceed", "limited", 超) and a denied
#: amount, the claim was about a narrower thing, and "uses 80 connections" was written
#: beside "never exceeds 50 connections"
_WORDED: Final = (
    (lazy(r"\b(?:(?:does|do|did|must|should|will|can|may|shall)(?: not|n't)|never|cannot"
          r"|can't|won't|not) (?:ever )?exceed(?:s|ing)? (?=\d)|\bnot exceeding (?=\d)"
          r"|\bno (?:longer|larger|bigger|higher|greater|later) than (?=\d)"
          r"|\b(?:(?:is|are) )?(?:limited|capped) (?:to|at) (?!at |up |max)(?=\d)"), "at most "),
    (lazy(r"\bexceed(?:s|ing)? (?=\d)|\bno (?:shorter|smaller|lower) than (?=\d)"),
     "more than "),
    # what is refused past an amount is accepted up to it ("Request bodies larger than 2 MB
    # are rejected." is "… up to 2 MB are accepted.": read as an amount, it agreed with
    # nothing and "… up to 10 MB are accepted." was written beside it)
    (lazy(r"\b(?:larger|bigger|greater|longer|higher|more|over|above)(?: than)? (?=\d)"
          r"(\S+(?: [a-z]+)?) (are|is|get|gets) (?:rejected|refused|dropped|denied|blocked)\b"),
     r"at most \1 \2 accepted"),
    (lazy(r"(?:不超过|不得超过|不能超过|最多|不高于|不大于) ?(?=\d)"), " at most "),
    (lazy(r"(?:不少于|不低于|不小于|至少|最少) ?(?=\d)"), " at least "),
    (lazy(r"(?:至少|最少)(需要|要|有|保留|保持|运行)(?= ?\d)"), r"\1 at least"),
    (lazy(r"(?:最多|不超过)(需要|要|有|保留|保持|运行)(?= ?\d)"), r"\1 at most"),
)
_WORDED_HINT: Final = lazy(
    r"exceed|than|limited|capped|over|above|超过|最多|高于|大于|少于|低于|小于|至少|最少")


def worded_bounds(text: str) -> str:
    """``text`` (folded, in lower case) with each bound said in other words before a number
    (:data:`_WORDED`) written as :data:`_BOUND_BEFORE` reads it."""
    if _WORDED_HINT.search(text) is None:
        return text
    for pattern, words in _WORDED:
        text = pattern.sub(words, text)
    return text


CEILING: Final = "<="
FLOOR: Final = ">="


def bound_at(text: str, start: int) -> tuple[str, int] | None:
    """The bound (:data:`CEILING` or :data:`FLOOR`) the words right before the value at
    ``start`` put on it, and where those words start; ``None`` when there are none."""
    found = _BOUND_BEFORE.search(text, max(0, start - 16), start)
    if found is None:
        return None
    ceiling = found.group(1) in _CEILINGS
    if NEGATION.search(clause_before(text, found.start())) is not None:
        ceiling = not ceiling  # "never sends more than 50": at most 50
    return (CEILING if ceiling else FLOOR), found.start()


def _size(value: str) -> tuple[str, Fraction] | None:
    """A value's measure and its size in that measure's unit, or ``None`` for a value of
    no size (a version, a path, a word)."""
    kind = value[:2]
    if kind not in _SIZED:
        return None
    if kind == "r:":
        return per_second(value)
    amount = value[2:].rstrip("sb%") if kind in ("d:", "b:", "p:") else value[2:]
    if PLAIN_NUMBER.fullmatch(amount) is None or amount.count(".") > 1:
        return None
    return ("n:" if kind in ("c:", "v:") else kind), Fraction(amount)


class Bounded(Protocol):
    """A claim's signature, as far as its bounds go."""

    @property
    def values(self) -> frozenset[str]: ...
    @property
    def denied(self) -> frozenset[str]: ...
    @property
    def bounds(self) -> frozenset[tuple[str, str]]: ...


def _asserted(side: Bounded) -> dict[str, str]:
    """Each value ``side`` asserts and its bound (``""`` for an amount)."""
    bounds = dict(side.bounds)
    return {value: bounds.get(value, "") for value in side.values - side.denied}


def bounds_clash(mine: Bounded, theirs: Bounded) -> bool | None:
    """Whether two claims' asserted values disagree by size: an amount past the other's
    bound, or a floor above the other's ceiling. ``None`` when no bound meets an amount or
    a bound of the other kind of the same measure (the values are then compared as values
    are)."""
    verdicts: list[bool] = []
    for one, one_bound in _asserted(mine).items():
        for other, other_bound in _asserted(theirs).items():
            if one_bound == other_bound:
                continue
            sizes = _size(one), _size(other)
            if sizes[0] is None or sizes[1] is None or sizes[0][0] != sizes[1][0]:
                continue
            verdicts.append(_past(sizes[0][1], one_bound, sizes[1][1], other_bound))
    return any(verdicts) if verdicts else None


def _past(one: Fraction, one_bound: str, other: Fraction, other_bound: str) -> bool:
    """Whether ``other`` (an amount or the other kind of bound) lies past the bound
    ``one`` (or ``one`` past ``other``'s, when ``one`` is an amount)."""
    if one_bound == CEILING:
        return other > one
    if one_bound == FLOOR:
        return other < one
    return _past(other, other_bound, one, one_bound)
