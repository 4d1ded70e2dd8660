"""A claim no word of the query matches qualifies by meaning alone at a strong similarity
(``qualify``), or at a lower one (``qualify_nearest``) when it stands out of the store: the
nearest record that may be recalled, by ``nearest_margin`` or more (cosines are data here;
no model needed).

The query is embedded in lower case (``semantic.e5.query_case``), which puts it about 0.01
nearer every record, so ``qualify`` moved from cosine 0.85 to 0.87 with the rest of the
calibration; "is the newcheckout toggle active?" then no longer recalled "Feature flag
new-checkout is enabled in production." (cosine 0.859, the store's next claim 0.78), while
at 0.85 for every record, the nearest of another person's many near records was injected.
"""

from __future__ import annotations

from waymarks.recall.analysis import analyze
from waymarks.recall.fusion import Calibration, Semantic, script
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats, score_all

#: the bundled model's shape (``semantic.e5.CALIBRATION``): qualify 0.68 is cosine 0.8696,
#: qualify_nearest 0.59 is 0.8498
CAL = Calibration(floor=0.72, ceil=0.94, weight=0.4, qualify=0.68, support=0.6,
                  cross_script=0.37, veto=0.40, qualify_han=0.82, cross_from=("han",),
                  cross_margin=0.03, beside=0.40, qualify_nearest=0.59, nearest_margin=0.03)
QUESTION = "is the newcheckout toggle active?"


def record(ident: str, text: str, status: str = "active") -> Candidate:
    features = analyze(text).features
    return Candidate(id=ident, kind="memory", status=status, origin="", created_at=0,
                     text=text, body=frozenset(features), sequence=tuple(features),
                     body_count=len(features))


FLAG = record("flag", "Feature flag new-checkout is enabled in production.")
BILLING = record("billing", "The billing service listens on port 7001.")
DEPLOY = record("deploy", "The deploy script runs on Fridays.")


def eligible(cosines: dict[str, float], records: list[Candidate],
             calibration: Calibration = CAL) -> list[str]:
    stats = Stats(len(records), {f: 1 for r in records for f in r.body})
    side = Semantic(cosines, calibration, script(QUESTION))
    return [s.candidate.id for s in score_all(direct_plan(QUESTION), records, stats, side)
            if s.eligible]


def test_the_nearest_claim_by_a_margin_qualifies_at_the_lower_similarity() -> None:
    assert eligible({"flag": 0.859, "billing": 0.777, "deploy": 0.770},
                    [FLAG, BILLING, DEPLOY]) == ["flag"]
    alone = {"flag": 0.859}  # the only record: nearer than the floor
    assert eligible(alone, [FLAG]) == ["flag"]
    # without the rule, 0.859 is under qualify (0.87): what the calibration alone gave
    strict = Calibration(**{**{f: getattr(CAL, f) for f in CAL.__struct_fields__},
                            "qualify_nearest": None})
    assert eligible({"flag": 0.859, "billing": 0.777}, [FLAG, BILLING], strict) == []


def test_one_near_record_among_others_as_near_does_not() -> None:
    close = {"flag": 0.859, "billing": 0.840, "deploy": 0.770}  # nearer by 0.019 only
    assert eligible(close, [FLAG, BILLING, DEPLOY]) == []
    # nor the second nearest, nor one under the lower similarity however far ahead
    assert eligible({"flag": 0.859, "billing": 0.855}, [FLAG, BILLING]) == []
    assert eligible({"flag": 0.845, "billing": 0.70}, [FLAG, BILLING]) == []
    # a strong similarity qualifies whatever the others are (as before)
    assert eligible({"flag": 0.875, "billing": 0.870}, [FLAG, BILLING]) == ["flag", "billing"]


def test_rivals_are_the_records_that_may_be_recalled() -> None:
    """A superseded version (nearer: the retired-versions case) and the same claim's copy
    in another scope (the same vector) are no rival of the claim in effect."""
    old = record("old", "Feature flag new-checkout is enabled.", status="superseded")
    copy = record("copy", FLAG.text)
    cosines = {"flag": 0.859, "old": 0.867, "copy": 0.859, "billing": 0.777}
    got = eligible(cosines, [FLAG, old, copy, BILLING])
    assert "flag" in got and "copy" in got
    assert "old" not in got and "billing" not in got


def test_a_record_too_short_to_place_never_stands_out() -> None:
    """A lone word or no letter sits near most short requests (``says_enough``)."""
    todo = record("todo", "TODO")
    assert eligible({"todo": 0.862, "billing": 0.777}, [todo, BILLING]) == []


def test_the_calibration_checks_the_lower_similarity() -> None:
    fields = {f: getattr(CAL, f) for f in CAL.__struct_fields__}
    for bad in ({"qualify_nearest": 0.7}, {"qualify_nearest": 0.0},
                {"nearest_margin": -0.1}, {"nearest_margin": 1.0}):
        try:
            Calibration(**{**fields, **bad})
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad}")
