"""Scoring only what may be eligible (a plan's recall): the same eligible records, with the
same scores, verdicts and order, as scoring every candidate."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.recall.asked_apart import answers
from waymarks.recall.gates import (
    NONE,
    named_attribute_mismatch,
    query_facts,
    strong_needed,
    values_said,
)
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import (
    Candidate,
    QueryPlan,
    Stats,
    _bound,
    _may_be_eligible,
    _score,
    score_all,
)

FEATURES = ["w:a", "w:b", "w:c", "w:d", "c:dog", "c:cat", "p:x.py", "w:42", "w:use",
            "c:version", "c:port"]
#: a record may say a version or a port by its value, not its word (a match too)
TEXTS = ["(text)", "We use Python 3.13.", "Redis listens on 6380."]
fields = st.frozensets(st.sampled_from(FEATURES), max_size=5)


@st.composite
def candidates(draw: st.DrawFn, plain: bool = False) -> list[Candidate]:
    """Records of every shape; ``plain``: as most claims are (no aliases, no quoted
    question, a few lengths), so that several share a bound, worked out once for all."""
    out = []
    for at in range(draw(st.integers(0, 16 if plain else 12))):
        body = draw(fields)
        out.append(Candidate(
            id=f"r{at}", kind="memory", status=draw(st.sampled_from(["active"] * 4 + ["stale"])),
            origin="session:s", created_at=draw(st.integers(0, 3)),
            text=draw(st.sampled_from(TEXTS)), body=body,
            sequence=tuple(sorted(body)), aliases=frozenset() if plain else draw(fields),
            quoted=frozenset() if plain else draw(fields), origin_features=draw(fields),
            body_count=draw(st.sampled_from([6, 18, 30]) if plain else st.integers(0, 30)),
            freshness=draw(st.sampled_from([1.0, 0.5])), utility=draw(st.sampled_from([1.0, 2.0]))))
    return out


def _query(focus: list[str], context: list[str], distinct: bool = True) -> QueryPlan:
    """``distinct=False``: the focus as given, a feature twice included (each occurrence
    counts in the sums)."""
    return QueryPlan(tuple(dict.fromkeys(focus)) if distinct else tuple(focus),
                     tuple(dict.fromkeys(context)),
                     frozenset(f for f in focus if f.startswith("p:")))


def _same_eligible(query: QueryPlan, records: list[Candidate], df: dict[str, int]) -> None:
    table = Stats(40, df)
    every = score_all(query, records, table)
    some = score_all(query, records, table, eligible_only=True)
    assert [s for s in some if s.eligible] == [s for s in every if s.eligible]


def _only_eligible_keeps_every_eligible_record_as_scored(
        focus: list[str], context: list[str], records: list[Candidate],
        df: dict[str, int]) -> None:
    _same_eligible(_query(focus, context), records, df)


def _plain_records_keep_every_eligible_record_as_scored(
        focus: list[str], context: list[str], records: list[Candidate],
        df: dict[str, int]) -> None:
    _same_eligible(_query(focus, context, distinct=False), records, df)


def _property(examples: int, check: Callable[..., None], plain: bool) -> None:
    run_property(examples, check, st.lists(st.sampled_from(FEATURES), max_size=5),
                 st.lists(st.sampled_from(FEATURES), max_size=3), candidates(plain),
                 st.dictionaries(st.sampled_from(FEATURES), st.integers(0, 40)))


@lanes(quick=20, long=400)
def test_only_eligible_keeps_every_eligible_record_as_scored(examples: int) -> None:
    _property(examples, _only_eligible_keeps_every_eligible_record_as_scored, plain=False)


@lanes(quick=20, long=400)
def test_plain_records_keep_every_eligible_record_as_scored(examples: int) -> None:
    _property(examples, _plain_records_keep_every_eligible_record_as_scored, plain=True)


def _bounds_shared_by_a_pattern_are_each_ones_own(
        focus: list[str], context: list[str], records: list[Candidate],
        df: dict[str, int]) -> None:
    """What is scored, and in which order (the bounds' order), is what bounding every
    candidate on its own gives: a bound shared by candidates of one pattern is each one's.
    Past the cutoff, a query asking two attributes or more scores, in the same order, the
    candidates answering one of them (:func:`_cut` may keep one that answers what no
    record within the cutoff does)."""
    query = _query(focus, context, distinct=False)
    table = Stats(40, df).memoized((*query.focus, *query.context))
    facts = query_facts(query, table)
    if any(weight < 0 for _, weight in (*facts.focus, *facts.context)):
        return  # (no bound then: every candidate is scored)
    needed = strong_needed(query, facts)
    # (a short "name + attribute" query's record lacking either is refused unscored)
    each = [(bound, c) for c in records if not named_attribute_mismatch(facts, c)
            if (bound := _bound(facts, c, needed)) is not None]
    each.sort(key=lambda pair: pair[0], reverse=True)
    scored = _may_be_eligible(query, facts, records, table)
    ids = [c.id for _, c in each]
    within = next((at for at, s in enumerate(scored) if s.candidate.id != ids[at]), len(scored))
    past = [c for _, c in each[within:] if answers(facts, c)]
    assert [s.candidate.id for s in scored[within:]] == [
        c.id for c in past if c.id in {s.candidate.id for s in scored[within:]}]
    assert not scored[within:] or facts.asked
    by_id = {c.id: c for _, c in each}
    assert scored == [_score(query, facts, by_id[s.candidate.id], table) for s in scored]


@lanes(quick=25, long=600)
def test_bounds_shared_by_a_pattern_are_each_ones_own(examples: int) -> None:
    _property(examples, _bounds_shared_by_a_pattern_are_each_ones_own, plain=True)


def record(ident: str, *body: str) -> Candidate:
    return Candidate(id=ident, kind="memory", status="active", origin="session:s",
                     created_at=0, text="(text)", body=frozenset(body), body_count=4)


def test_candidates_that_cannot_be_eligible_are_left_unscored() -> None:
    """One record names the query's rare subject; the others share only its common words
    and its one common concept: they cannot reach the cutoff, and are not scored."""
    query = QueryPlan(("c:port", "w:billing", "w:917", "w:servic"))
    table = Stats(1000, {"c:port": 130, "w:billing": 80, "w:917": 2, "w:servic": 1000})
    named = record("named", "w:billing", "w:917", "w:servic", "c:port")
    others = [record(f"o{at}", "c:port", "w:servic") for at in range(20)]
    lone = record("lone", "w:billing")  # one strong match beside three more focus features
    every = score_all(query, [*others, lone, named], table)
    some = score_all(query, [*others, lone, named], table, eligible_only=True)
    assert [s.candidate.id for s in every if s.eligible] == ["named"]
    assert [s.candidate.id for s in some] == ["named"]
    assert len(every) == 22


def test_single_matches_beside_a_word_the_store_does_not_know_are_left_unscored() -> None:
    """"refactor the search module" in a store that never said "refactor" (the kind
    "module" dropped as unseen): each record holding "search" is one strong match beside
    an unknown word, which the gates refuse, so a plan scores none of them (it scored
    every one: a tenth of the benchmark's claims, for each such prompt)."""
    query = QueryPlan(("w:refactor", "w:search"))
    table = Stats(1000, {"w:search": 80, "w:servic": 1000})
    records = [record(f"o{at}", "w:search", "w:servic") for at in range(20)]
    every = score_all(query, records, table)
    assert {s.reason for s in every} == {"a single match beside words the store does not know"}
    assert score_all(query, records, table, eligible_only=True) == []


def test_records_lacking_the_name_of_a_short_question_are_left_unscored() -> None:
    """"what port does the catalog-917 service use?" where no record names 917: every
    catalog service's port claim shares three of its four words, past the coverage bar,
    and the gate refuses each for the name it lacks, whatever it scores. With no record
    eligible there was no best to cut below, and a plan scored all of its hundred
    candidates (plan.py's port prompts: 98 scored, 0.02 eligible, a sixth of the plan's
    CPU); it scores none, and a record naming both is still the one eligible."""
    query = direct_plan("what port does the catalog-917 service use?")
    assert query.focus == ("c:port", "w:catalog", "w:917", "w:servic")
    table = Stats(1000, {"c:port": 130, "w:catalog": 80, "w:917": 2, "w:servic": 1000})
    others = [record(f"o{at}", "c:port", "w:catalog", "w:servic") for at in range(20)]
    every = score_all(query, others, table)
    assert {s.reason for s in every} == {"does not name 917"}
    assert score_all(query, others, table, eligible_only=True) == []
    named = record("named", "c:port", "w:catalog", "w:917", "w:servic")
    some = score_all(query, [*others, named], table, eligible_only=True)
    assert [(s.candidate.id, s.eligible) for s in some] == [("named", True)]
    assert some == [s for s in score_all(query, [*others, named], table) if s.eligible]


def test_a_record_saying_no_value_costs_no_set() -> None:
    """A port question reads each of a plan's hundred candidates for a port it says by
    its value (:func:`~waymarks.recall.gates.values_said`), and most say none: each such
    answer was a new empty set, made again for the same record by the bound and the
    score. It is the shared empty set, and a record saying one still has it."""
    query = QueryPlan(("c:port", "w:catalog", "w:servic"))
    facts = query_facts(query, Stats(1000, {"c:port": 130, "w:catalog": 80, "w:servic": 1000}))
    silent = record("silent", "w:catalog", "w:servic")
    worded = record("worded", "c:port", "w:catalog")
    said = Candidate(id="said", kind="memory", status="active", origin="session:s",
                     created_at=0, text="The catalog service listens on 8080.",
                     body=frozenset({"w:catalog", "w:servic"}), body_count=4)
    assert values_said(facts, silent) is NONE
    assert values_said(facts, worded) is NONE  # (its word is in its body: a match already)
    assert values_said(facts, said) == {"c:port"}
