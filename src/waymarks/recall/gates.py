"""The precision gates of recall's scoring, and the facts of a query they read.

A candidate is refused automatic recall when it is not active, no focus feature matches
its body or aliases, it lacks a literal or a name the query asks, only generic or
numeric words match, a query of three or more focus features finds one strong match, a
single match stands beside words the store has never seen, the conversation's subject
or a short "name + attribute" (or "name + concept") query's subject is not the record's,
or its focus coverage is under :data:`COVERAGE_TO_QUALIFY` and the query names no topic of it.
:func:`query_facts` works out once per query what these judgements need; scoring
(:mod:`waymarks.recall.scoring`) weighs the matches and ranks. Pure: values in, values
out, nothing read from the store or the clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import msgspec

from waymarks.recall.analysis import (
    is_generic,
    is_literal,
    is_numeric,
    says_name,
    says_value,
    version_subjects,
)
from waymarks.recall.asked_agent import says_done_to_it, says_its_doing
from waymarks.recall.asked_time import TIME_BONUS
from waymarks.recall.compound import numbered, one_name, one_subject
from waymarks.recall.subject import KINDS, context_mismatch, rare_phrases
from waymarks.recall.subject import field_factor as _field_factor
from waymarks.recall.vocabulary import ATTRIBUTE_VALUES, ATTRIBUTES, WEAK_ATTRIBUTES

if TYPE_CHECKING:
    from waymarks.recall.scoring import Candidate, QueryPlan, Stats

COVERAGE_TO_QUALIFY: Final = 0.45
SHORT_QUERY_FEATURES: Final = 4
#: no features: what a query that values no attribute finds said by a record
NONE: Final[frozenset[str]] = frozenset()


class QueryFacts(msgspec.Struct, frozen=True):
    """What scoring needs to know about the query, worked out once, not per candidate."""

    focus: tuple[tuple[str, float], ...]
    context: tuple[tuple[str, float], ...]
    focus_total: float
    unknown: bool  # the query has words the store has never seen (not generic)
    #: the one subject of a short "name + attribute" query: one word, or the words of
    #: one name said side by side ("the edge proxy": :mod:`waymarks.recall.compound`)
    short_names: tuple[str, ...]
    short_attributes: tuple[str, ...]
    phrases: tuple[tuple[str, str], ...]  # rare adjacent word pairs of the focus
    #: focus features that name a record matched strongly (:func:`_names`): whatever
    #: field matched them, and only when they are among the record's aliases
    naming: frozenset[str]
    naming_as_alias: frozenset[str]
    weak: frozenset[str]  # generic or numeric focus features
    #: focus attributes a record may say by a value of their shape (:func:`says_value`)
    valued: tuple[str, ...] = ()
    subjects: frozenset[str] = frozenset()  # the words that name the query's subject
    #: :func:`~waymarks.recall.subject.facet_of_parent` of the candidates
    parent: bool = False
    #: the short query's attributes of which one is enough (:attr:`QueryPlan.asks`)
    either: frozenset[str] = frozenset()
    bound_factor: float = 1.0  # the most a record's time raises its relevance
    #: each word of a short focus naming a kind of it ("the auth service": auth, servic):
    #: a record holding the kind without the word is about another of that kind
    named_kinds: tuple[tuple[str, str], ...] = ()
    #: a thing the question introduces by a name the store never saw
    #: (:attr:`QueryPlan.introduced`), if any: no record is about it
    unseen_subject: str | None = None
    #: the attributes a query asks when it asks two or more ("which port and node
    #: version?"), of any length: a record answering one the best match does not is
    #: measured against the others answering it (the relative cutoff's, in scoring)
    asked: tuple[str, ...] = ()
    #: the subjects of a short question asking each the same attributes ("where is the
    #: gateway config and the billing config?"): a record must name one and say them
    co_names: tuple[str, ...] = ()


def query_facts(plan: QueryPlan, stats: Stats) -> QueryFacts:
    """The query's weights, subject and attributes, as every candidate's scoring reads them."""
    focus = tuple((f, stats.weight(f)) for f in plan.focus)
    context = tuple((f, stats.weight(f)) for f in plan.context if f not in plan.focus)
    # a kind named by the word before it ("the auth service") is that word's: the word
    # names the subject, even one that is an attribute elsewhere ("auth"); a generic
    # word names none ("update node version")
    pairs = [(word, kind) for word, kind in plan.named_kinds if word in plan.focus
             and kind in plan.focus and kind not in plan.asked_kinds
             and not is_generic(word) and not is_numeric(word)]
    naming = {word for word, _kind in pairs}
    named_kinds = {kind for _word, kind in pairs}
    # the verb of "how do I reindex billing?" is asked of billing, as an attribute is
    action = plan.action if (plan.action in plan.focus and plan.action not in naming
                             and not is_generic(plan.action)) else None
    # (a generic word names no subject: "run" of "how do I run the payments tests?")
    words = [f for f in plan.focus if f in naming or (
        not f.startswith("c:") and not is_literal(f) and not is_numeric(f)
        and not is_generic(f) and f not in ATTRIBUTES and f not in plan.asks
        and f not in plan.asked_kinds and f not in named_kinds and f != action)]
    # without a word naming it, a concept is the subject ("database password?": a
    # database's port is no answer, however near in meaning)
    names = [*words, *(f for f in plan.focus if f.startswith("c:") and f in plan.co_subjects)]
    names = names or [f for f in plan.focus if f.startswith("c:") and f not in ATTRIBUTES
                      and not is_generic(f) and f not in plan.asks and f != action]
    if referent := _referent(plan):  # "the service" after "the billing service": billing
        names = [*(f for f in names if f not in plan.bare_kinds), *referent]
    attributes = tuple(f for f in plan.focus if f not in naming and (f in plan.asks or (
        f in ATTRIBUTES and f not in WEAK_ATTRIBUTES) or f == action))
    if not attributes:
        names, attributes = _name_and_concepts(plan, words, names, stats)
    short = (not plan.context and len(plan.focus) <= SHORT_QUERY_FEATURES
             and bool(attributes) and one_subject(names, plan))
    # a clause asking nothing but the thing named ("what runs the staging database and on
    # which port?"): a record naming it answers that clause, whatever the other asks
    # (a verb of no meaning of its own asked of it, "runs": a clause of the name alone,
    # "…, and which warehouse?", asks about another thing)
    rests = ([f for f in clause if f not in names and f not in named_kinds]
             for clause in plan.clauses)
    open_clause = any(rest and all(is_generic(f) for f in rest) for rest in rests)
    # subjects joined, each asked the attributes ("the gateway config and the billing config")
    co = (not short and not plan.context and len(plan.focus) <= SHORT_QUERY_FEATURES
          and bool(attributes) and len(names) >= 2 and plan.co_subjects.issuperset(names))
    return QueryFacts(
        focus=focus, context=context, focus_total=sum(w for _, w in focus) or 1.0,
        unknown=any(not stats.df.get(f) and not is_generic(f) for f in plan.focus),
        short_names=numbered(names, plan.runs) if short else (),
        co_names=tuple(names) if co else (),
        short_attributes=attributes if (short or co) and not open_clause else (),
        either=plan.asks if short else NONE,
        phrases=rare_phrases(plan.focus, stats),
        naming=frozenset(f for f in plan.focus if _names(f, False, stats)),
        naming_as_alias=frozenset(f for f in plan.focus if _names(f, True, stats)
                                  and not _names(f, False, stats)),
        weak=frozenset(f for f in plan.focus if is_generic(f) or is_numeric(f)),
        valued=tuple(f for f in plan.focus if f in ATTRIBUTE_VALUES),
        subjects=version_subjects(words, plan.names),
        bound_factor=1.0 + TIME_BONUS if plan.when else 1.0,
        named_kinds=tuple(pairs) if len(plan.focus) <= SHORT_QUERY_FEATURES else (),
        unseen_subject=next((f for f in words if f in plan.introduced
                             and not stats.df.get(f) and not is_generic(f)), None),
        asked=tuple(dict.fromkeys(attributes)) if len(set(attributes)) >= 2 else (),
    )


def _name_and_concepts(plan: QueryPlan, words: Sequence[str], names: list[str],
                       stats: Stats) -> tuple[list[str], tuple[str, ...]]:
    """The one name of a question of one name and concepts of software work, and those
    concepts as what it asks of the thing named ("how does the mailer deploy?", "how does
    the scheduler deploy?": a concept an article introduces names the thing), as an
    attribute is asked: another thing's deploy, or the mailer's port, is no answer; else
    ``names`` and no attribute. A word the store never saw names nothing a record could
    say ("often" of "how often are dependencies updated?")."""
    if plan.asks_which:  # "which continuous integration service runs our builds?": a
        return names, ()  # name answers it, a concept of its words need not be said
    named = words if words else [f for f in names if f in plan.introduced]
    one = len(named) == 1 or one_name(named, plan.runs)  # ("the edge proxy": one name)
    if not one or (words and len(names) != len(named)) or not all(
            stats.df.get(f) for f in named):
        return names, ()
    return list(named), tuple(f for f in plan.focus if f.startswith("c:") and f != named[0]
                              and not is_generic(f))


def beside_unknown(plan: QueryPlan, facts: QueryFacts, strong: Sequence[str]) -> bool:
    """Whether the query is a concept the record holds and a word the store has never seen
    ("database backup?", 数据库备份？): the record says another aspect of that subject (its
    port), which any similarity short of ``qualify`` (a fair one, or the nearest across
    scripts) cannot tell from the one asked; nothing holds the word to say it."""
    return (len(plan.focus) == 2 and len(strong) == 1 and facts.unknown
            and strong[0].startswith("c:"))


def gate(plan: QueryPlan, facts: QueryFacts, candidate: Candidate, stats: Stats,
          strong: Sequence[str], coverage: float, named: bool, close: bool = False,
          supported: bool = False, subject: bool | None = None) -> str:
    """Why the candidate may not be recalled automatically, or "" if it may.

    ``close``: the record is semantically close to the query (a strong calibrated
    similarity); it may then qualify without a lexical match, past the other gates.
    ``supported``: a fair similarity, which lifts the gates that count matches.
    ``subject``: a similarity that sets the record apart from the others (``supported``
    unless given): it lifts the gates asking the record to name the question's subject (a
    kind, a name the store never saw, the word naming a kind, the one match beside words
    the store does not know), which a similarity every claim of the question's shape
    shares cannot answer; a ``close`` one, which qualifies a record with no word in
    common, lifts the last of them too."""
    if subject is None:
        subject = supported
    if candidate.status != "active":
        return f"status {candidate.status}"
    if not plan.focus:
        return "the query names no subject"
    if not strong and not close:
        return "no match in the record's body or aliases"
    for literal in plan.literals:
        if literal not in candidate.body and literal not in candidate.aliases:
            return f"literal {literal[2:]} not in the record"
    if plan.names and not any(says_name(candidate.text, name) for name in plan.names):
        return f"does not name {' or '.join(sorted(plan.names))}"
    if not strong:  # close in meaning, in other words: only the conversation can object
        return context_mismatch(plan, candidate, stats, facts.parent)
    # (a fair similarity says the record is about it all the same, in another script:
    # "发票模板缓存多久？" of the invoice renderer's template cache)
    # (the question's similarity cannot say a record is about the thing a turn before
    # named: "the service" of "how do I restart the service?" does not hold "search")
    referred = bool(_referent(plan))
    if (plan.bare_kinds and not subject) or referred:
        # "how do I restart the worker?": the worker is the subject, and another thing's
        # restart no answer
        refusal = _bare_kind_mismatch(plan, candidate)
        if refusal:
            return refusal
    if facts.unseen_subject is not None and not subject:
        # "which python version does the crawler use?": the store knows no crawler, and
        # another thing's Python no answer
        return f"does not name {facts.unseen_subject[2:]}"
    other = _other_of_kind(facts, candidate) if facts.named_kinds and not subject else None
    if other is not None:
        # "where is the auth service?": the billing service is another one, and "the
        # search cache TTL?" is not the billing cache's
        return f"does not name {other[2:]}"
    if plan.agent and not (plan.agent[0] in candidate.body
                           or plan.agent[0] in candidate.aliases):
        # "who owns the worker pool?": "The background jobs for billing run on the worker
        # pool named jobs-billing." names it, and no owner
        return f"says nothing about {plan.agent[0][2:]}"
    if plan.agent and says_its_doing(plan.agent, candidate.text):
        # "who owns billing?": "Billing owns the Stripe webhook." says what billing owns
        return f"says what {plan.agent[1][2:]} does, not who does it"
    if plan.doer and says_done_to_it(plan.doer, candidate.text):
        # "what does the mailer send through?": "… send mail through the mailer."
        return f"says what is done through {plan.doer[1][2:]}, not what it does"
    # (every strong match generic or numeric; a record naming the thing a bare kind
    # refers to matched the subject too: "where is the service config?" of the search's,
    # and so does one about the subject a follow-up inherited, when it names a thing:
    # "and the config?" after "let's look at billing" of the billing config, not after
    # "tell me about the services" of "Node services use ESLint with the airbnb config.")
    if facts.weak.issuperset(strong) and not referred and not (
            not KINDS.issuperset(plan.context)
            and not context_mismatch(plan, candidate, stats, facts.parent)):
        return "only generic or numeric words match"
    if len(plan.focus) >= 3 and len(strong) < 2 and not supported:
        return "three or more focus features need two matches"
    if len(strong) == 1 and facts.unknown and not (subject or close):
        return "a single match beside words the store does not know"
    # (a generic word beside the kind asks nothing either: "run" of "how do I run the
    # worker tests?" matched "… billing run on the worker pool")
    kind_or_weak = plan.bare_kinds | facts.weak if plan.bare_kinds else plan.bare_kinds
    if kind_or_weak.issuperset(strong) and not kind_or_weak.issuperset(plan.focus) \
            and not supported:
        # the kind says which thing, not what is asked of it: "The search service listens
        # on port 7700." is no answer to "how do I restart the service?"
        asked = sorted(f[2:] for f in plan.focus if f not in kind_or_weak)
        return f"says nothing about {' or '.join(asked)}"
    mismatch = context_mismatch(plan, candidate, stats, facts.parent) if plan.context else ""
    if not mismatch and facts.short_names:
        mismatch = named_attribute_mismatch(facts, candidate)
    if not mismatch and facts.co_names:
        mismatch = _co_subject_mismatch(facts, candidate)
    if mismatch:
        return mismatch
    # (a record naming the thing a bare kind refers to covers the kind's word too)
    if coverage < COVERAGE_TO_QUALIFY and not named and not referred:
        return f"coverage {coverage:.2f}{BELOW_COVERAGE}"
    return ""


def _bare_kind_mismatch(plan: QueryPlan, candidate: Candidate) -> str:
    """Why the record is not about the kind of thing the question names by nothing
    (:attr:`QueryPlan.bare_kinds`), or "". After a turn that named one of that kind ("let's
    look at the search service", then "how do I restart the service?"), the kind is that
    one: a record must name it ("Restart search with …" need not say "service"), and
    another of the kind is no answer ("The billing service …"). Else the record must hold
    the kind itself."""
    referent = _referent(plan)
    if referent:
        missing = [f for f in referent if not _field_factor(f, candidate)]
        return f"does not name {missing[0][2:]}" if missing else ""
    if any(_field_factor(k, candidate) for k in plan.bare_kinds):
        return ""
    return f"does not name {' or '.join(sorted(k[2:] for k in plan.bare_kinds))}"


def _referent(plan: QueryPlan) -> tuple[str, ...]:
    """The words naming the thing a bare kind or a pronoun of the question refers to: the
    subject of the turn before when that turn named it with the kind ("the search
    service": search; :attr:`QueryPlan.referent`), else none."""
    return plan.referent


def strong_needed(plan: QueryPlan, facts: QueryFacts) -> int:
    """The strong matches :func:`gate` asks of a record without a similarity to lift it:
    two beside three or more focus features or beside a word the store has never seen,
    else one. Scoring leaves a record with fewer unscored where only the eligible ones
    are wanted (:func:`~waymarks.recall.scoring.score_all`)."""
    return 2 if len(plan.focus) >= 3 or facts.unknown else 1


BELOW_COVERAGE: Final = f" below {COVERAGE_TO_QUALIFY} and the query names no topic"


def _other_of_kind(facts: QueryFacts, candidate: Candidate) -> str | None:
    """A word naming a kind of the query that the record holds without any word naming
    it there ("the billing service and the auth service": either names the service)."""
    def holds(feature: str) -> bool:
        return feature in candidate.body or feature in candidate.aliases

    for word, kind in facts.named_kinds:
        if holds(kind) and not any(holds(w) for w, k in facts.named_kinds if k == kind):
            return word
    return None


def named_attribute_mismatch(facts: QueryFacts, candidate: Candidate) -> str:
    """A short query naming one subject and an attribute needs both ("SQLite auth?"); of
    attributes asked side by side ("the deploy host and key?"), one is enough."""
    for name in facts.short_names:  # (each word of a name of several)
        if not _field_factor(name, candidate):
            return f"does not name {name[2:]}"
    said = values_said(facts, candidate)
    unsaid = [a for a in facts.short_attributes
              if a not in candidate.body and a not in candidate.aliases and a not in said]
    for attribute in unsaid:
        if attribute not in facts.either:
            return f"says nothing about {attribute[2:]}"
    if facts.either and facts.either.issubset(unsaid):
        return f"says nothing about {' or '.join(sorted(a[2:] for a in facts.either))}"
    return ""


def _co_subject_mismatch(facts: QueryFacts, candidate: Candidate) -> str:
    """Subjects asked each the same attributes ("the gateway config and the billing
    config?"): a record must name one of them and say every attribute ("The gateway routes
    /api/billing to the billing service." names both and says no config)."""
    if not any(_field_factor(name, candidate) for name in facts.co_names):
        return f"does not name {' or '.join(sorted(n[2:] for n in facts.co_names))}"
    said = values_said(facts, candidate)
    for attribute in facts.short_attributes:
        if attribute not in candidate.body and attribute not in candidate.aliases \
                and attribute not in said:
            return f"says nothing about {attribute[2:]}"
    return ""


def values_said(facts: QueryFacts, candidate: Candidate) -> frozenset[str]:
    """The query's attributes the record says by a value rather than by their word; each
    counts as a match in its aliases would (strong, a little under the body's). Most
    records say none: :data:`NONE` then, not a new empty set (asked of each of a port
    question's hundred candidates, by the bound and the score)."""
    said = NONE
    for feature in facts.valued:  # (one or two)
        if feature not in candidate.body and says_value(feature, candidate.text,
                                                        facts.subjects):
            said = said | {feature}
    return said


def _names(feature: str, alias: bool, stats: Stats) -> bool:
    """A literal, or a concept or alias rare in the store, names the record's topic
    (``alias``: the feature is among the record's aliases)."""
    if is_literal(feature):
        return True
    concept_or_alias = feature.startswith("c:") or alias
    return concept_or_alias and not is_generic(feature) and stats.rare(feature)

