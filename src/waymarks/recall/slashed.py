"""Two lower-case words joined by a slash in a query: a folder, or the two words.

A query types "src/app" and "frontend/backend" alike, and the analysis reads both as a
path (:func:`waymarks.recall.analysis._slash_reading`): a record holds such a pair both
ways, as the path and as its words, but a claim saying "the frontend talks to the
backend" holds no path, so the literal gate refused it and the query recalled nothing.
Only the store can tell the two: the plan keeps the pair's words beside the literal
(:func:`with_words`), and once the store's statistics are known (:func:`settled`) the
literal stands when a record holds it (a folder: the words it was made of leave the
query, which stays as precise as before), else the words stand in its place.

Invariant: a plan without such a pair is returned unchanged (the same object).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, Protocol

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import word_feature

if TYPE_CHECKING:
    from waymarks.recall.analysis import Analysis
    from waymarks.recall.scoring import QueryPlan

#: a path literal of exactly two words of letters ("p:frontend/backend"; not "p:src/app/x")
_PAIR: Final = lazy(r"p:([^\W\d_]+)/([^\W\d_]+)")


class Counts(Protocol):
    @property
    def df(self) -> Mapping[str, int]: ...


def pair_words(literal: str) -> tuple[str, ...]:
    """The word features of a two-word path literal, or ``()`` when it is none (or one
    of its words is a stop word: the analysis reads such a pair as words already)."""
    match = _PAIR.fullmatch(literal)
    if match is None:
        return ()
    words = tuple(word_feature(word) for word in match.groups())
    return () if None in words else tuple(w for w in words if w is not None)


def with_words(analysis: Analysis) -> Analysis:
    """``analysis`` with the words of each typed two-word path literal right after it
    (they find the records that say the words apart; :func:`settled` keeps one reading)."""
    if not analysis.literals:
        return analysis
    features: list[str] = []
    for feature in analysis.features:
        features.append(feature)
        if feature in analysis.literals:
            features.extend(pair_words(feature))
    if len(features) == len(analysis.features):
        return analysis
    return msgspec.structs.replace(analysis, features=tuple(dict.fromkeys(features)))


def settled(plan: QueryPlan, stats: Counts) -> QueryPlan:
    """``plan`` with one reading of each two-word path literal: the literal when a record
    holds it (its words leave the focus), else its words (the literal leaves the focus
    and the literals, constraining nothing)."""
    if not plan.literals:
        return plan
    dropped: set[str] = set()
    unheld: set[str] = set()
    for literal in plan.literals:
        words = pair_words(literal)
        if not words:
            continue
        if stats.df.get(literal, 0):
            dropped.update(words)
        else:
            unheld.add(literal)
    if not dropped and not unheld:
        return plan
    dropped |= unheld
    return msgspec.structs.replace(
        plan, focus=_without(plan.focus, dropped), literals=plan.literals - unheld)


def _without(features: Sequence[str], dropped: set[str]) -> tuple[str, ...]:
    return tuple(f for f in features if f not in dropped)
