"""Hybrid recall, a question holding a word the store has never seen (a name, usually).

The question is about that word's thing ("what instruments does Zorblat play?"); a record
matching two of its other words says them of something else. A fair similarity, short of
``support``, lifted such a record's fused coverage over the bar where its words alone stay
under it: in another person's conversation, "You play any instruments?" (LoCoMo dev
foreign injection 2.9 -> 2.5 %, digest hit unchanged). Beside the unseen word, the gate
reads the lexical coverage where the fusion alone lifted it over the bar, for a record
matching two words or fewer that its similarity does not support; without an unseen word,
the fusion is as it was.
"""

from __future__ import annotations

from tests.recall.test_fusion_neighbours import turn
from waymarks.recall.fusion import Semantic, script
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats, score_all
from waymarks.semantic.e5 import CALIBRATION

RECORDS = [turn("play", "Thanks! Appreciate it. You play any instruments?", 0),
           turn("deploy", "The deploy script runs on Fridays.", 0),
           turn("hike", "We went hiking last weekend.", 0)]
# instruments and play are everyday words in this store (20 of 40 records)
STATS = Stats(40, {f: 20 for r in RECORDS for f in r.body})


def verdict(query: str, cosine: float) -> tuple[bool, str, float]:
    side = Semantic({"play": cosine, "deploy": 0.75, "hike": 0.76}, CALIBRATION,
                    script(query))
    found = {s.candidate.id: s for s in score_all(direct_plan(query), RECORDS, STATS, side)}
    return found["play"].eligible, found["play"].reason, found["play"].coverage


def test_a_fair_similarity_does_not_lift_coverage_beside_a_word_the_store_never_saw() -> None:
    eligible, reason, coverage = verdict("what instruments does zorblat play?", 0.845)
    assert coverage >= 0.45  # fused: over the bar
    assert not eligible
    assert reason.startswith("coverage 0.41 below 0.45")  # the lexical coverage


def test_without_an_unseen_word_the_fused_coverage_still_decides() -> None:
    assert verdict("what instruments do you play?", 0.845)[0]


def test_a_similarity_that_supports_the_record_still_does() -> None:
    assert verdict("what instruments does zorblat play?", 0.87)[0]
