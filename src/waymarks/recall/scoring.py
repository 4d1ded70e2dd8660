"""Scoring and precision gates of seed 004's conversation-aware recall.

Relevance is a weighted share of the query's features a record accounts for. A feature
weighs ``1 + log((N+1)/(df+1))`` (an unseen one, df = 0, weighs the most: see
:meth:`Stats.weight`); literals weigh double. Where a feature matches decides how much it counts:
record body 1, aliases 0.8, a quoted question 0.25, the origin identifier 0.2. History
context counts at 0.35 and can never qualify a record by itself.

A rare multi-word subject names a topic too: two words adjacent in the query ("invoice
renderer") that are adjacent in the record's body, the rarer of them rare in the store (so
the pair is at least as rare). Each of the two must be an ordinary, non-generic word; a
phrase built only from everyday attribute words does not name anything.

A record is *eligible* for automatic recall only if it is active, passes every gate and
qualifies on one side: current-focus coverage >= 0.45, or the query *names* it (an exact
path/filename, or a concept/alias rare in the store). Eligible records below 75% of the
best are cut; in a query asking several attributes, one answering an attribute no record
within that cutoff answers is measured against the best answering it (:func:`_cut`).
There is no recency fallback and no minimum result count.

With a semantic signal (:mod:`waymarks.recall.fusion`), relevance and coverage are fused
with the calibrated similarity before the gates run; a record no word of the query matches
qualifies only on a strong similarity, and still only past the gates that do not need a
lexical match. Without one, every score is the lexical one, unchanged.

The gates, and the facts of the query they read, are :mod:`waymarks.recall.gates`; this
module weighs the matches, fuses, cuts and ranks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

import msgspec

from waymarks.recall.analysis import is_literal
from waymarks.recall.asked_apart import answers, asked_apart, unanswered
from waymarks.recall.asked_time import time_factor
from waymarks.recall.gates import (
    BELOW_COVERAGE,
    NONE,
    QueryFacts,
    beside_unknown,
    gate,
    named_attribute_mismatch,
    query_facts,
    strong_needed,
    values_said,
)
from waymarks.recall.gates import COVERAGE_TO_QUALIFY as COVERAGE_TO_QUALIFY
from waymarks.recall.gates import SHORT_QUERY_FEATURES as SHORT_QUERY_FEATURES
from waymarks.recall.subject import FIELD_FACTORS as FIELD_FACTORS
from waymarks.recall.subject import facet_of_parent, names_phrase, settle
from waymarks.recall.subject import field_factor as _field_factor

if TYPE_CHECKING:  # (a recall without a semantic side never imports the fusion)
    from waymarks.recall.fusion import Semantic


def _with_neighbours(scored: list[Scored], semantic: Semantic,
                     withheld: Collection[str] = frozenset()) -> list[Scored]:
    """``scored`` with the conversational neighbours' share (hybrid only: imported then)."""
    from waymarks.recall.neighbours import with_neighbours

    return with_neighbours(scored, semantic.calibration.neighbours, withheld)


CONTEXT_WEIGHT: Final = 0.35
_BODY: Final = FIELD_FACTORS["body"]
_ALIASES: Final = FIELD_FACTORS["aliases"]  # the weakest field a strong match is in
_QUOTED: Final = FIELD_FACTORS["quoted"]
_ORIGIN: Final = FIELD_FACTORS["origin"]
RELATIVE_CUTOFF: Final = 0.75
RARE_FLOOR: Final = 3
RARE_SHARE: Final = 0.02
#: a phrase names a topic only beside this much coverage (LoCoMo dev, foreign questions:
#: without a floor, two rare everyday words in another person's store injected it)
PHRASE_COVERAGE: Final = 0.3
#: a record holding all of :attr:`QueryPlan.earlier` ranks this much higher (a share of it,
#: that share): a reorder among near equals, well inside the relative cutoff
EARLIER_BONUS: Final = 0.1


class Candidate(msgspec.Struct, frozen=True, gc=False):
    """A stored record as scoring sees it: its features by field, and its policy weights."""

    id: str
    kind: str
    status: str
    origin: str
    created_at: int
    text: str
    body: frozenset[str]
    aliases: frozenset[str] = frozenset()
    quoted: frozenset[str] = frozenset()
    origin_features: frozenset[str] = frozenset()
    body_count: int = 0
    freshness: float = 1.0
    evidence_weight: float = 1.0
    utility: float = 1.0
    accuracy: float = 1.0
    evidence: str = "explicit"
    source: str = ""
    #: the explicit classification (markers in ``text`` raise it), when known
    classification: str | None = None
    #: the body features in the order they first occur (adjacency names multi-word subjects)
    sequence: tuple[str, ...] = ()


class QueryPlan(msgspec.Struct, frozen=True):
    """What is being asked now (focus) and what the conversation was about (context)."""

    focus: tuple[str, ...]
    context: tuple[str, ...] = ()
    literals: frozenset[str] = frozenset()
    reason: str = "direct"
    #: names the analysis cannot hold ("Go", "R", "C#") that the query asks about: a
    #: record must say them, as written, to be recalled (scored on "version" alone, "what
    #: is the Go version?" recalled the Python version first)
    names: frozenset[str] = frozenset()
    #: the conversation's subject beside a direct query led by a follow-up cue ("and
    #: staging?"): orders the eligible records (:data:`EARLIER_BONUS`), never qualifies one
    earlier: tuple[str, ...] = ()
    #: the subject a question with no cue followed ("Redis cache", then "what is the
    #: eviction policy?"), part of ``context``: the conversation's subject too when the
    #: store says the question was a facet of it (:mod:`waymarks.recall.subject`)
    parent: tuple[str, ...] = ()
    #: focus words joined to an attribute by "and", "or", a comma or "&" ("which deploy
    #: host and key?"): each is one ask of the subject, as the attribute is, never the
    #: subject itself; a record saying one of them answers (:func:`~waymarks.recall.gates.gate`).
    #: Worked out for a short question only (:data:`SHORT_QUERY_FEATURES`), the one it changes
    asks: frozenset[str] = frozenset()
    #: focus words joined with no attribute among them ("redis and deploy host?"): each a
    #: subject, a concept as much as a word (neither is *the* one subject of the question)
    co_subjects: frozenset[str] = frozenset()
    when: bool = False  #: a question asking when (:mod:`waymarks.recall.asked_time`)
    #: a kind of thing and the word right before it naming which ("healthz endpoint":
    #: ``("w:healthz", "w:endpoint")``; :func:`~waymarks.recall.subject.settle`)
    named_kinds: tuple[tuple[str, str], ...] = ()
    #: a kind of thing no word names, the question's subject itself ("restart the
    #: worker", "the tracker config"): a record about another subject lacks it
    #: (:func:`~waymarks.recall.gates.gate`)
    bare_kinds: frozenset[str] = frozenset()
    #: a kind the question asks which of ("which service uses port 2000?"): the answer
    #: names one, and need not say the kind
    asked_kinds: frozenset[str] = frozenset()
    #: the words of a short question an article introduces, each naming a thing ("does
    #: the crawler use"): one the store never saw is a subject it holds nothing about
    introduced: frozenset[str] = frozenset()
    #: the words naming the thing a bare kind refers to, when the turn before named one
    #: of that kind ("the search service", then "restart the service": ``("w:search",)``)
    referent: tuple[str, ...] = ()
    #: the verb of a question asking who does it and the words of what it is done to
    #: ("who owns billing?"; :mod:`waymarks.recall.asked_agent`)
    agent: tuple[str, ...] = ()
    #: the verb of a question asking what a thing does and the thing's words ("what does
    #: the mailer send through?"; :func:`waymarks.recall.asked_agent.doer_asked`)
    doer: tuple[str, ...] = ()
    #: the verb of a question asking how to do it ("how do I reindex billing?";
    #: :mod:`waymarks.recall.asked_action`): asked of the thing named, as an attribute is
    action: str | None = None
    #: the focus words of each clause of a question joining two or more clauses led by a
    #: question word, a preposition before it or not ("what runs the staging database and
    #: on which port?"); worked out for a short question only, the one it changes
    clauses: tuple[frozenset[str], ...] = ()
    #: a question opening with "which" or "what" ("which continuous integration service
    #: runs our builds?"): it asks which thing, answered by a name, not a concept of one
    asks_which: bool = False
    #: the focus words said side by side, each run in the order said ("the edge proxy
    #: config": edge, proxy, config), of a short question only: names all within one run
    #: are one thing's name (:mod:`waymarks.recall.compound`)
    runs: tuple[tuple[str, ...], ...] = ()
    #: the word saying which of an attribute a question opening with "which" or "what"
    #: asks, before the thing it names ("which python version does the gateway use?":
    #: python; :func:`~waymarks.recall.compound.which_of`)
    which_of: str | None = None


class Scored(msgspec.Struct, frozen=True, gc=False):
    candidate: Candidate
    relevance: float
    coverage: float
    matched: tuple[str, ...]
    named: bool
    eligible: bool
    reason: str
    rank: float = 0.0
    #: the lexical relevance before fusion (equal to ``relevance`` without a semantic side)
    lexical: float = 0.0
    #: refused only by the meaning veto (:meth:`Semantic.far`), or by coverage within the
    #: calibration's margin (``beside``): eligible after all beside a record that passes
    #: every gate (:func:`_beside`)
    beside: bool = False


class Stats(msgspec.Struct, frozen=True):
    """Store-wide statistics the weights depend on."""

    records: int
    df: Mapping[str, int] = msgspec.field(default_factory=dict)

    def weight(self, feature: str) -> float:
        # Deliberate deviation from seed 004 (which weighs an unseen feature 1): an unseen
        # feature is as rare as a feature can be, so it gets the formula's own df = 0
        # value. Weighing it 1 let a query drop the names a store does not know ("When did
        # Caroline go to the support group?" against another person's store) and inject a
        # foreign record on the remaining everyday words in 22% of LoCoMo questions.
        seen = self.df.get(feature, 0)
        base = 1.0 + math.log((self.records + 1) / (seen + 1))
        return base * 2 if is_literal(feature) else base

    def memoized(self, features: Iterable[str]) -> Stats:
        """The same statistics with the weights of ``features`` computed once."""
        return _MemoStats(self.records, self.df, {f: self.weight(f) for f in features})

    def rare(self, feature: str) -> bool:
        return self.df.get(feature, 0) <= max(RARE_FLOOR, RARE_SHARE * self.records)


class _MemoStats(Stats, frozen=True):
    weights: Mapping[str, float] = msgspec.field(default_factory=dict)

    def weight(self, feature: str) -> float:
        cached = self.weights.get(feature)
        return cached if cached is not None else Stats.weight(self, feature)


def unheld_literal(plan: QueryPlan, stats: Stats) -> str | None:
    """A literal of the query (a path, a file name) that no record holds, if any: the
    literal gate (:func:`~waymarks.recall.gates.gate`) then refuses every candidate, so a
    recall that only wants what may be selected need read none (nor embed the query). ``stats``: the
    statistics of the plan's features; a literal they were not read for counts as held.

    Most coding prompts name a file, and most files no memory mentions: at a million
    records such a query ranked the rows of its common words by length for nothing."""
    plan = settle(plan, stats)
    features = frozenset((*plan.focus, *plan.context))
    for literal in sorted(plan.literals):
        if literal in features and not stats.df.get(literal, 0):
            return literal
    return None


def score_all(plan: QueryPlan, candidates: Iterable[Candidate], stats: Stats,
              semantic: Semantic | None = None, eligible_only: bool = False,
              withheld: Collection[str] = frozenset()) -> list[Scored]:
    """Every candidate scored and judged, best first (eligible ones ahead of the rest).

    ``eligible_only``: the caller uses only the eligible ones (a plan); lexically, the
    candidates that cannot be are then left out unscored (:func:`_may_be_eligible`), and
    the eligible ones are exactly those of a full scoring, with the same scores.
    ``withheld``: the IDs of candidates the destination may not receive, scored only for
    the caller to record them as left out (a plan's manifest). The others are judged
    among themselves alone (the relative cutoff, the rivals of the cross-script rule), as
    a recall for that destination judges them: a withheld claim that outranked one it may
    receive cut that one from the plan; a withheld one is judged against every candidate,
    as it would be were it allowed."""
    plan = settle(plan, stats)  # (the plan's reading of a pair such as "frontend/backend")
    stats = stats.memoized((*plan.focus, *plan.context))
    facts = query_facts(plan, stats)
    if plan.parent and plan.context:
        candidates = list(candidates)
        facts = msgspec.structs.replace(facts, parent=facet_of_parent(plan, candidates, stats))
    if eligible_only and semantic is None:
        scored = _may_be_eligible(plan, facts, candidates, stats, withheld)
    else:
        sides: dict[bool, Semantic | None] = {False: semantic, True: semantic}
        if semantic is not None:
            candidates = list(candidates)
            # the rivals of the cross-script rule: the candidates that may be recalled (a
            # superseded version of a claim, nearly its twin, took the current one's place)
            sides[False] = semantic.among((c.id, c.text) for c in candidates
                                          if c.status == "active" and c.id not in withheld)
            if withheld:
                sides[True] = semantic.among((c.id, c.text) for c in candidates
                                             if c.status == "active")
        scored = [_score(plan, facts, c, stats, sides[c.id in withheld]) for c in candidates]
        scored = _beside(scored, withheld)
        if semantic is not None:
            scored = _with_neighbours(scored, semantic, withheld)
    kept = [s for s in scored if s.candidate.id not in withheld] if withheld else scored
    cut = {False: _cut(kept, semantic, facts)}
    cut[True] = _cut(scored, semantic, facts) if withheld else cut[False]
    judged = [cut[s.candidate.id in withheld](s) for s in scored]
    return sorted(judged, key=lambda s: (not s.eligible, -s.rank, -s.relevance,
                                         -s.candidate.created_at, s.candidate.id))


def _beside(scored: list[Scored], withheld: Collection[str]) -> list[Scored]:
    """The records the meaning veto refused, or coverage within the calibration's
    margin (``beside``, fused), eligible after all when another record passes every gate
    (among those the destination may receive; a withheld one, among all). The veto and
    the coverage bar tell a store that holds no answer from one that does: in another
    person's store a record sharing everyday words with the question is one of them
    (LoCoMo dev, foreign questions: injection 5.9 -> 2.7 % with the veto). Beside a
    record that answers, the store holds the subject, and one that shares the question's
    words past the coverage bar is judged by them, as the lexical engine judges it; one
    a little under the bar is near enough to be shown beside it. Either must match a word
    an answer matched (its subject): the question's other words alone ("long", "last")
    are what the veto and the bar were for. The relative cutoff and
    the digest's cap still apply; a store's empty digest stays empty. LoCoMo dev: the
    veto, digest hit 50.4 -> 51.4 %, precision 36.0 -> 36.1 %; the margin 0.40 (e5),
    51.4 -> 52.3 %, precision 36.1 -> 35.6 %; foreign injection unchanged (2.7 %); an
    answer's word required, 52.1 %, 35.5 % (two adversarial questions), 2.7 %."""
    if not any(s.beside for s in scored):
        return scored
    # the words the answers matched: a record beside one must match one of them (be about
    # its subject), not the question's everyday words alone ("My daughter's school play
    # lasted two hours" beside "The invoice numbering restarts every fiscal year." for
    # "how long should the invoice numbering last", on long and last)
    answered = {f for s in scored if s.eligible and s.candidate.id not in withheld
                for f in s.matched}
    anyone = answered.union(*(s.matched for s in scored if s.eligible))
    return [msgspec.structs.replace(s, eligible=True, reason="selected", beside=False)
            if s.beside and not (anyone if s.candidate.id in withheld
                                 else answered).isdisjoint(s.matched) else s
            for s in scored]


def _cut(scored: Sequence[Scored], semantic: Semantic | None,
         facts: QueryFacts) -> Callable[[Scored], Scored]:
    """The relative cutoff of the eligible ones among ``scored``, as a verdict on one.

    A query asking two attributes or more (:attr:`~waymarks.recall.gates.QueryFacts.asked`)
    may be answered by a record each: one that answers an attribute no record within the
    cutoff answers, of their subject (:mod:`~waymarks.recall.asked_apart`), is measured
    against the best of those answering it ("which port and node version does the dev
    server use?": the port's claim was cut below the node's, which says the version by its
    value too, and the question lost its port)."""
    best = max((s.relevance for s in scored if s.eligible), default=0.0)
    # fused, a record also stays when it is near the best *lexically* (the other language's
    # twin of a claim is closer in meaning to the query, not a better answer)
    best_lexical = max((s.lexical for s in scored if s.eligible), default=0.0)
    cutoff = RELATIVE_CUTOFF if semantic is None else semantic.calibration.relative

    # fused, a record the words alone cut stays only when fusion lifted it for a reason
    # of its own (:meth:`Semantic.lifts`): a similarity every claim of the question's
    # shape shares lifted each towards the best ("The payments service listens on port
    # 8030." beside billing's, for "what port does billing listen on?")
    tops = [s.candidate.id for s in scored if s.eligible and s.lexical == best_lexical
            ] if semantic is not None else []

    def within(s: Scored) -> bool:
        if semantic is None:
            return s.relevance >= cutoff * best
        if s.lexical > 0 and s.lexical >= RELATIVE_CUTOFF * best_lexical:
            return True
        return s.relevance >= cutoff * best and (
            s.lexical <= 0 or semantic.lifts(s.candidate.id, s.lexical, s.relevance, tops))

    apart = asked_apart(facts, [s for s in scored if s.eligible and within(s)])
    best_of: dict[str, float] = {}
    for s in scored:
        for attribute in apart(s) if s.eligible else NONE:
            best_of[attribute] = max(best_of.get(attribute, 0.0), s.relevance)

    def judge(s: Scored) -> Scored:
        if not s.eligible or within(s) or any(
                s.relevance >= cutoff * best_of[attribute] for attribute in apart(s)):
            return s
        return _reject(s, f"below {cutoff:.0%} of the best match")
    return judge


def ranked(plan: QueryPlan, candidates: Iterable[Candidate], stats: Stats,
           semantic: Semantic | None = None) -> list[Scored]:
    """Candidates by relevance alone, gates ignored (for ranked retrieval measures)."""
    plan = settle(plan, stats)
    stats = stats.memoized((*plan.focus, *plan.context))
    facts = query_facts(plan, stats)
    if semantic is not None:
        candidates = list(candidates)
        semantic = semantic.among((c.id, c.text) for c in candidates)
    scored = [_score(plan, facts, c, stats, semantic) for c in candidates]
    if semantic is not None:
        scored = _with_neighbours(scored, semantic)
    return sorted(scored, key=lambda s: (-s.relevance, -s.candidate.created_at, s.candidate.id))


def _may_be_eligible(plan: QueryPlan, facts: QueryFacts, candidates: Iterable[Candidate],
                     stats: Stats, withheld: Collection[str] = frozenset()) -> list[Scored]:
    """The lexical candidates that may be eligible, scored; the others left out.

    Left out unscored: a candidate :func:`~waymarks.recall.gates.gate` refuses on its
    matches alone (not active; fewer focus features in its body or aliases than a lexical
    match needs, :func:`~waymarks.recall.gates.strong_needed`), and a candidate whose
    relevance cannot reach the relative cutoff of the best eligible one. Each one's
    relevance is bounded from above by :func:`_bound`; they are scored best bound first,
    and the first whose bound is below :data:`RELATIVE_CUTOFF` of the best eligible
    relevance so far ends the scoring: it and every later one would be cut by
    :func:`score_all` if eligible, and none of them can be the best. A plan's 100
    candidates were scored one by one for the few a query names (a third of a plan's time
    at 1k memories). ``withheld``: candidates that do not set that best
    (:func:`score_all`); scored while above it."""
    if any(weight < 0 for _, weight in (*facts.focus, *facts.context)):
        return [_score(plan, facts, c, stats) for c in candidates]  # (df > records: no bound)
    needed = strong_needed(plan, facts)
    # An active candidate without aliases or a quoted question (most claims) has the bound
    # of any other holding the same query features in its body and in its origin, with a
    # body as long: :func:`_bound` asks no more of it. Worked out once per such pattern
    # (the same operations, so the same float): a plan's 100 candidates have a handful.
    # Without context, and with each focus feature once, only the body's matches are
    # strong: fewer than ``needed`` there, and it is refused as :func:`_bound` refuses it.
    features = frozenset((*plan.focus, *plan.context))
    counted = not plan.context and len(features) == len(plan.focus)
    patterns: dict[tuple[frozenset[str], frozenset[str], int], float | None] = {}
    valued = facts.valued
    bounded: list[tuple[float, Candidate]] = []
    short = facts.short_names  # ("name + attribute": one lacking either is refused, as is
    for candidate in candidates:  # one of fewer than ``needed``, whatever it scores)
        if short and named_attribute_mismatch(facts, candidate):
            continue
        if candidate.aliases or candidate.quoted or candidate.status != "active":
            bound = _bound(facts, candidate, needed)
        else:
            held = features & candidate.body
            if valued and not held.issuperset(valued):  # (a query asking a version or a
                held |= values_said(facts, candidate)   # port, the record not its word)
            if counted and len(held) < needed:
                continue
            pattern = (held, features & candidate.origin_features, candidate.body_count)
            if pattern not in patterns:
                patterns[pattern] = _bound(facts, candidate, needed)
            bound = patterns[pattern]
        if bound is not None:
            bounded.append((bound, candidate))
    bounded.sort(key=lambda pair: pair[0], reverse=True)
    scored: list[Scored] = []
    best = 0.0
    for at, (bound, candidate) in enumerate(bounded):
        if bound < RELATIVE_CUTOFF * best:
            return [*scored, *_answering(plan, facts, scored, bounded[at:], stats, best,
                                          withheld)]
        one = _score(plan, facts, candidate, stats)
        if one.eligible and one.relevance > best and candidate.id not in withheld:
            best = one.relevance
        scored.append(one)
    return scored


def _answering(plan: QueryPlan, facts: QueryFacts, scored: Sequence[Scored],
               rest: Sequence[tuple[float, Candidate]], stats: Stats, best: float,
               withheld: Collection[str]) -> list[Scored]:
    """Of ``rest``, the candidates below the cutoff of ``best`` (which none of them can
    reach), scored when they answer an asked attribute that no record within the cutoff
    answers: :func:`_cut` measures them against the others answering it. The records
    within it are those of ``scored``: for the others than ``withheld``, those within the
    cutoff of ``best``; for a withheld one (whose cut is among all), those within that of
    the best of all. An attribute either leaves unanswered is looked for."""
    if not facts.asked:
        return []
    eligible = [s for s in scored if s.eligible]
    top = max((s.relevance for s in eligible), default=0.0)
    left = unanswered(facts, (s for s in eligible if s.candidate.id not in withheld
                               and s.relevance >= RELATIVE_CUTOFF * best))
    left |= unanswered(facts, (s for s in eligible if s.relevance >= RELATIVE_CUTOFF * top))
    return [_score(plan, facts, candidate, stats) for _, candidate in rest
            if not left.isdisjoint(answers(facts, candidate))]


def _bound(facts: QueryFacts, candidate: Candidate, needed: int) -> float | None:
    """An upper bound of the candidate's lexical relevance, or ``None`` when the gates
    refuse it whatever it scores (not active, fewer than ``needed`` strong matches).

    :func:`_score`'s sums, term by term each at least as large (a match in the body or
    aliases counted at the body's factor, one in the quoted question or origin at the
    quoted question's): floating-point rounding is monotonic, so the bound is too."""
    if candidate.status != "active":
        return None
    body, aliases = candidate.body, candidate.aliases
    quoted, origin = candidate.quoted, candidate.origin_features
    focus_score = 0.0
    strong = 0
    said = values_said(facts, candidate) if facts.valued else NONE
    for feature, weight in facts.focus:
        if feature in body or feature in aliases or feature in said:
            focus_score += weight * _BODY
            strong += 1
        elif feature in quoted or feature in origin:
            focus_score += weight * _QUOTED
    if strong < needed:
        return None
    context_score = 0.0
    for feature, weight in facts.context:
        if _field_factor(feature, candidate):
            context_score += weight * _BODY * CONTEXT_WEIGHT
    return ((focus_score + context_score) / facts.focus_total * _length_norm(candidate)
            * facts.bound_factor)


def _length_norm(candidate: Candidate) -> float:
    return 0.8 + 0.2 * min(1.0, 12 / max(1, candidate.body_count))


def _score(plan: QueryPlan, facts: QueryFacts, candidate: Candidate, stats: Stats,
           semantic: Semantic | None = None) -> Scored:
    focus_total = facts.focus_total
    matched: list[str] = []
    strong: list[str] = []
    focus_score = 0.0
    body, aliases = candidate.body, candidate.aliases
    quoted, origin = candidate.quoted, candidate.origin_features
    said = values_said(facts, candidate) if facts.valued else NONE
    for feature, weight in facts.focus:  # _field_factor, inline: most of scoring's time
        if feature in body:
            factor = _BODY
        elif feature in aliases or feature in said:
            factor = _ALIASES
        elif feature in quoted:
            factor = _QUOTED
        elif feature in origin and not feature.startswith("c:"):
            factor = _ORIGIN
        else:
            continue
        matched.append(feature)
        focus_score += weight * factor
        if factor >= _ALIASES:
            strong.append(feature)
    context_score = 0.0
    for feature, weight in facts.context:
        factor = _field_factor(feature, candidate)
        if factor:
            context_score += weight * factor * CONTEXT_WEIGHT
    coverage = lexical_coverage = focus_score / focus_total
    relevance = ((focus_score + context_score) / focus_total * _length_norm(candidate)
                 * time_factor(plan.when, candidate.text))
    lexical = relevance
    sem = semantic.score(candidate.id) if semantic is not None else None
    if semantic is not None and sem is not None:
        coverage = semantic.fuse(coverage, sem)
        relevance = semantic.fuse(relevance, sem)
    named = False
    for feature in strong:
        if feature in said:
            continue  # a value of its shape does not name the record's topic
        if feature in facts.naming or (feature in facts.naming_as_alias and feature in aliases):
            named = True
            break
    named = named or (
        len(strong) >= 2 and coverage >= PHRASE_COVERAGE and not facts.unknown
        and names_phrase(facts.phrases, candidate))
    qualified = semantic is not None and semantic.qualifies(sem, candidate.text, candidate.id)
    across = not qualified and semantic is not None and semantic.across(candidate.id,
                                                                          candidate.text)
    close = qualified or across
    supported = close or (semantic is not None and semantic.supports(sem, candidate.text))
    if supported and beside_unknown(plan, facts, strong):
        supported = qualified
    # which thing it is about: only a similarity that sets the record apart says so
    # (:meth:`Semantic.apart`), not the question's shape ("the tracker config")
    subject = supported and semantic is not None and (across or semantic.apart(candidate.id))
    # beside a word the store never saw (what is asked of, a name), a fair similarity does
    # not lift a record of two matches or fewer over the coverage bar (docs/recall.md)
    gated = lexical_coverage if (facts.unknown and not supported and len(strong) <= 2
                                 and lexical_coverage < COVERAGE_TO_QUALIFY <= coverage
                                 ) else coverage
    reason = gate(plan, facts, candidate, stats, strong, gated, named or close, close,
                   supported, subject)
    beside = (semantic is not None and sem is not None  # (fused: no vector, lexical)
              and reason.endswith(BELOW_COVERAGE) and coverage >= semantic.calibration.beside)
    if (not reason and not close and semantic is not None
            and semantic.far(sem, candidate.text)
            and not any(is_literal(f) for f in strong)):
        reason = f"far in meaning from the query (similarity {sem:.2f})"
        beside = True

    rank = (relevance * candidate.freshness * candidate.evidence_weight * candidate.utility
            * candidate.accuracy)
    if plan.earlier:
        held = sum(1 for f in plan.earlier if f in body or f in aliases)
        rank *= 1.0 + EARLIER_BONUS * held / len(plan.earlier)
    return Scored(candidate, relevance, coverage, tuple(matched), named, reason == "", reason
                  or "selected", rank, lexical, beside)



def _reject(scored: Scored, reason: str) -> Scored:
    return Scored(scored.candidate, scored.relevance, scored.coverage, scored.matched,
                  scored.named, False, reason, scored.rank, scored.lexical, scored.beside)
