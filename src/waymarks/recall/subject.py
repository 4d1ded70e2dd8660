"""Where a feature matches a record, and whether a record is about the conversation's
subject (the context a follow-up inherits, :mod:`waymarks.recall.plan`).

A record is about the subject when it holds :data:`CONTEXT_SUBJECT_COVERAGE` of the
subject's weight, words and concepts alike (a word the store never saw weighs the most,
so an unknown subject stays one). A subject a facet question followed ("Redis cache",
then "what is the eviction policy?") is the conversation's too when a candidate about the
facet is about it as well (:attr:`~waymarks.recall.scoring.QueryPlan.parent`), and no
record about the facet alone answers what is asked (the orders database's port, not the
Redis cache's, after "Which database does the orders service use?").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, Protocol

import msgspec

from waymarks.recall.analysis import is_generic, is_numeric, word_order
from waymarks.recall.slashed import settled
from waymarks.recall.vocabulary import ATTRIBUTES

if TYPE_CHECKING:
    from waymarks.recall.scoring import Candidate, QueryPlan

FIELD_FACTORS: Final = {"body": 1.0, "aliases": 0.8, "quoted": 0.25, "origin": 0.2}
CONTEXT_SUBJECT_COVERAGE: Final = 0.6
#: words that say what kind of thing a subject is, not which one ("the review service",
#: "the orders database"): alone they name no subject
KINDS: Final = frozenset(
    """
    w:servic c:database c:cache w:server w:cluster w:app w:applic w:api w:system w:tool
    w:job w:worker w:queue w:broker w:pipelin w:endpoint w:modul w:librari w:compon
    w:instanc w:node w:repo w:repositori w:tracker w:bot w:site w:page w:client
    w:服务 w:系统 w:工具 w:集群 w:服务器
    """.split()
)

BODY: Final = FIELD_FACTORS["body"]
ALIASES: Final = FIELD_FACTORS["aliases"]  # the weakest field a strong match is in
QUOTED: Final = FIELD_FACTORS["quoted"]
ORIGIN: Final = FIELD_FACTORS["origin"]


class Weights(Protocol):
    def weight(self, feature: str) -> float: ...


class Rarity(Protocol):
    @property
    def df(self) -> Mapping[str, int]: ...

    def rare(self, feature: str) -> bool: ...


def settle(plan: QueryPlan, stats: Rarity) -> QueryPlan:
    """The plan as the store's statistics read it: one reading of a slash-joined pair
    (:func:`~waymarks.recall.slashed.settled`), without a kind of thing no record holds
    (:func:`without_unseen_kinds`)."""
    return without_unseen_kinds(settled(plan, stats), stats)


def without_unseen_kinds(plan: QueryPlan, stats: Rarity) -> QueryPlan:
    """``plan`` without the :data:`KINDS` words of its focus that no record holds, when
    the word right before one, naming which, is one the store holds ("the healthz
    endpoint" in a store that never said "endpoint": the claim naming healthz is about
    it; :attr:`~waymarks.recall.scoring.QueryPlan.named_kinds`). Unseen, such a word
    weighed the most of the query and counted as a word the store does not know, so
    the one claim naming the subject was refused for a single match and too little
    coverage. A subject word the store does not know stays ("the healthz dashboard"),
    and so does a kind nothing names ("what port does the queue use?": the queue is the
    subject, and the database's port no answer); a plan with no such word is returned
    unchanged (the same object)."""
    df = stats.df
    unseen = {kind for word, kind in plan.named_kinds
              if kind in plan.focus and not df.get(kind) and df.get(word)}
    if not unseen:
        return plan
    return msgspec.structs.replace(plan, focus=tuple(f for f in plan.focus if f not in unseen))


def _phrase_word(feature: str) -> bool:
    return (feature.startswith("w:") and not is_generic(feature) and not is_numeric(feature)
            and feature not in ATTRIBUTES)


def rare_phrases(focus: Sequence[str], stats: Rarity) -> tuple[tuple[str, str], ...]:
    """Adjacent pairs of ordinary query words whose rarer word is rare in the store: a
    multi-word subject ("invoice renderer") that names a topic (:mod:`waymarks.recall.scoring`)."""
    pairs = []
    for first, second in itertools.pairwise(focus):
        if (_phrase_word(first) and _phrase_word(second) and stats.df.get(first)
                and stats.df.get(second) and (stats.rare(first) or stats.rare(second))):
            pairs.append((first, second))
    return tuple(pairs)


def names_phrase(phrases: Sequence[tuple[str, str]], candidate: Candidate) -> bool:
    """Whether the record's body has one of the query's rare word pairs, adjacent."""
    if not phrases or not candidate.sequence:
        return False
    adjacent = set(itertools.pairwise(candidate.sequence))
    return any(pair in adjacent for pair in phrases)


def field_factor(feature: str, candidate: Candidate) -> float:
    if feature in candidate.body:
        return BODY
    if feature in candidate.aliases:
        return ALIASES
    return minor_factor(feature, candidate)


def minor_factor(feature: str, candidate: Candidate) -> float:
    """How much a feature counts in the fields no strong match is in (0: in neither)."""
    if feature in candidate.quoted:
        return QUOTED
    if feature in candidate.origin_features and not feature.startswith("c:"):
        return ORIGIN  # concept words in origins do not count
    return 0.0


def _missing(subject: Sequence[str], candidate: Candidate, stats: Weights) -> str | None:
    """The first feature of ``subject`` the record lacks when it holds less than
    :data:`CONTEXT_SUBJECT_COVERAGE` of the subject's weight, or none of its
    :data:`KINDS` beside two words or more; ``None`` when it is about it."""
    missing = [f for f in subject if not field_factor(f, candidate)]
    if not missing:
        return None
    kinds = [f for f in subject if f in KINDS]
    if kinds and all(f in missing for f in kinds) and \
            sum(f.startswith("w:") for f in subject) >= 2:
        # "the payments service": a record must be about such a thing too; a rare word
        # alone held the weight, and the payments MySQL database was the service
        return kinds[0]
    total = sum(stats.weight(f) for f in subject)
    found = sum(stats.weight(f) for f in subject if f not in missing)
    return missing[0] if total and found / total < CONTEXT_SUBJECT_COVERAGE else None


def _facet(plan: QueryPlan) -> tuple[str, ...]:
    return tuple(f for f in plan.context if f not in plan.parent)


def facet_of_parent(plan: QueryPlan, candidates: Iterable[Candidate], stats: Weights) -> bool:
    """Whether a record about the facet asked last is about the subject it followed too
    (the eviction policy is the Redis cache's: the claim saying it names Redis)."""
    if not plan.parent:
        return False
    facet = _facet(plan)
    about_facet = [c for c in candidates
                   if c.status == "active" and _missing(facet, c, stats) is None]
    if any(_answers(plan, c) and _missing(plan.parent, c, stats) is not None
           for c in about_facet):
        return False  # a claim about the facet answers the question: the parent stays out
    return any(_missing(plan.parent, c, stats) is None for c in about_facet)


def _answers(plan: QueryPlan, candidate: Candidate) -> bool:
    """Whether the record holds every word asked ("and the port?": it says a port)."""
    return all(field_factor(f, candidate) for f in plan.focus)


def _says_its_attribute(subject: Sequence[str], asked: Sequence[str],
                        candidate: Candidate) -> bool:
    """Whether the record says an attribute asked right after a word naming the subject
    ("The search config lives in …" after "the search service", of "where is its
    config?"): the named thing's attribute, whatever kind the record leaves unsaid. A
    record naming another thing with the word ("the search index", "the auth database")
    does not, and still needs the kind."""
    names = {f for f in subject if f not in KINDS}
    wanted = {f for f in asked if f in ATTRIBUTES or is_generic(f)}
    return bool(names and wanted) and any(
        first in names and second in wanted
        for first, second in itertools.pairwise(word_order(candidate.text)))


def context_mismatch(plan: QueryPlan, candidate: Candidate, stats: Weights,
                     parent: bool = False) -> str:
    """Why the record is not about the conversation's subject, or "" if it is (or there
    is none). ``parent``: :func:`facet_of_parent` of the candidates; a record about the
    subject the facet followed is then about the conversation too. Each word of the
    subject demanded, "Which database does the orders service use?" then "and the port?"
    refused the orders database's port, which does not say "service"."""
    if not plan.context:
        return ""
    subject = _facet(plan) or plan.context if plan.parent else plan.context
    missing = _missing(subject, candidate, stats)
    if missing is not None and parent and _missing(plan.parent, candidate, stats) is None:
        return ""
    if missing in KINDS and _says_its_attribute(subject, plan.focus, candidate):
        return ""
    return f"not about the conversation's subject ({missing[2:]})" if missing else ""
