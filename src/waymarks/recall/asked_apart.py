"""What a record answers of a query asking several attributes that the records within the
cutoff do not: :func:`asked_apart`, read by :mod:`waymarks.recall.scoring`'s cut so a record
answering another asked attribute of the same subject is measured against the best of its
own attribute (out of ``scoring.py``, at its 600-line cap)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from waymarks.recall.gates import NONE, QueryFacts, values_said

if TYPE_CHECKING:
    from waymarks.recall.scoring import Candidate, Scored


def asked_apart(facts: QueryFacts, kept: Sequence[Scored]) -> Callable[[Scored], frozenset[str]]:
    """The attributes a record answers that none of ``kept`` (the records within the
    cutoff) answers, when it holds their subject: each focus feature they all hold, but
    the asked attributes and the word right before one ("node" of "node version").
    "The billing database port is 5433." is no answer to "which port and python version
    does the billing service use?" beside "The billing service runs Python 3.12.": it
    lacks the service."""
    left = unanswered(facts, kept)
    if not left:
        return lambda s: NONE
    focus = [f for f, _ in facts.focus]
    qualifiers = {before for before, f in pairwise(focus) if f in facts.asked}
    subject = frozenset(focus).difference(facts.asked, qualifiers).intersection(
        *({f for f in focus if f in s.candidate.body or f in s.candidate.aliases}
          for s in kept))

    def apart(s: Scored) -> frozenset[str]:
        if any(f not in s.candidate.body and f not in s.candidate.aliases for f in subject):
            return NONE
        return left.intersection(answers(facts, s.candidate))
    return apart


def answers(facts: QueryFacts, candidate: Candidate) -> frozenset[str]:
    """The attributes of a query asking several (:attr:`QueryFacts.asked`) that the
    candidate says, each a strong match: by its word, an alias, or a value of its shape."""
    if not facts.asked:
        return NONE
    said = values_said(facts, candidate) if facts.valued else NONE
    return frozenset(a for a in facts.asked
                     if a in candidate.body or a in candidate.aliases or a in said)


def unanswered(facts: QueryFacts, kept: Iterable[Scored]) -> frozenset[str]:
    """The asked attributes none of ``kept`` (the records within the cutoff) answers."""
    if not facts.asked:
        return NONE
    return frozenset(facts.asked).difference(*(answers(facts, s.candidate) for s in kept))
