"""Conversational neighbours: a record weighed in part by the records captured beside it.

A conversation answers across turns: the turn that holds the answer ("Yes, last Tuesday")
often shares no word with the question, while the turn before or after it does ("Did
you go to the support group?"). So a record's relevance gains a share (``weight``) of
the best relevance among its *neighbours*: the candidates of the same origin (session)
captured at most :data:`NEIGHBOUR_SPAN` places before or after it, in capture order
(``created_at``, then ID), and at most :data:`NEIGHBOUR_WINDOW_MS` apart in time (two
records of one session an hour apart are not one exchange).

Only a captured conversational *turn* (a record of kind ``"turn"``: :data:`CONVERSATIONAL`)
has neighbours, and only turns lend: a written claim ("Payments deploys via Argo CD") says
all it means, and the claim remembered a minute before it in the same project is another
fact, not the question half of an exchange. Every record of a project store is such a
claim (kind ``"memory"``; a host's capture keeps the person's statements as claims, never
the turns), so there the gain is none: with it, the everyday stores of
``benchmarks/everyday.py --semantic`` recalled the claims beside a right one
(``docs/recall.md``).

It is a ranking signal only: no gate reads it (coverage, eligibility and the meaning
veto are the record's own), so a store whose digest is empty stays empty; it orders the
records and moves the relative cutoff among those that pass. The neighbours' own
relevance is taken before any gain (no chain of records lifting one another). A
candidate the destination may not receive lends nothing.

Pure: it reads the scored candidates only (their origin and capture time), never the
store. The weight comes with the semantic model's calibration (``Calibration.neighbours``):
measured on the LoCoMo development split, see ``docs/recall.md``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Final

import msgspec

if TYPE_CHECKING:
    from waymarks.recall.scoring import Scored

#: how many places before and after a record its neighbours may be (same origin)
NEIGHBOUR_SPAN: Final = 2
#: how far apart in capture time (ms) two records may be and still be neighbours
NEIGHBOUR_WINDOW_MS: Final = 10 * 60 * 1000
#: the kinds of record that are conversational turns, the only ones with neighbours
CONVERSATIONAL: Final = frozenset({"turn"})


def with_neighbours(scored: Sequence[Scored], weight: float,
                    withheld: Collection[str] = frozenset()) -> list[Scored]:
    """``scored`` with each record's relevance and rank raised by ``weight`` times the
    best of its neighbours' (see the module); the same list when ``weight`` is 0."""
    if not weight or len(scored) < 2:
        return list(scored)
    by_origin: dict[str, list[int]] = {}
    for at, s in enumerate(scored):
        if s.candidate.kind not in CONVERSATIONAL:
            continue  # a claim: neither gains nor lends (see the module)
        by_origin.setdefault(s.candidate.origin, []).append(at)
    gains: dict[int, tuple[float, float]] = {}
    for places in by_origin.values():
        if len(places) < 2:
            continue
        places.sort(key=lambda at: (scored[at].candidate.created_at, scored[at].candidate.id))
        for pos, at in enumerate(places):
            here = scored[at].candidate.created_at
            relevance = rank = 0.0
            for other in places[max(0, pos - NEIGHBOUR_SPAN):pos + NEIGHBOUR_SPAN + 1]:
                s = scored[other]
                if other == at or s.candidate.id in withheld \
                        or abs(s.candidate.created_at - here) > NEIGHBOUR_WINDOW_MS:
                    continue
                relevance, rank = max(relevance, s.relevance), max(rank, s.rank)
            if relevance or rank:
                gains[at] = (relevance, rank)
    out = list(scored)
    for at, (relevance, rank) in gains.items():
        s = scored[at]
        out[at] = msgspec.structs.replace(s, relevance=s.relevance + weight * relevance,
                                          rank=s.rank + weight * rank)
    return out
