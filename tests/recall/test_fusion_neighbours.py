"""Conversational neighbours in hybrid ranking (``recall/neighbours.py``), on data.

A turn that answers ("Yes, last Tuesday, it went well.") shares no word with the question
while the turn before it does: with the semantic side, it ranks from its neighbour's
relevance too. No gate reads it: eligibility, and a store whose digest is empty, are the
record's own; without the semantic side nothing changes.
"""

from __future__ import annotations

import msgspec
import pytest

from waymarks.recall.analysis import analyze
from waymarks.recall.fusion import Calibration, Semantic, script
from waymarks.recall.neighbours import NEIGHBOUR_WINDOW_MS, with_neighbours
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats, ranked, score_all
from waymarks.semantic.e5 import CALIBRATION

CAL = Calibration(floor=0.75, ceil=0.92, weight=0.4, qualify=0.8, support=0.6,
                  cross_script=0.3, neighbours=0.3)
MINUTE = 60_000


def turn(ident: str, text: str, at: int, origin: str = "session a") -> Candidate:
    features = analyze(text).features
    return Candidate(id=ident, kind="turn", status="active", origin=origin, created_at=at,
                     text=text, body=frozenset(features), sequence=tuple(features),
                     body_count=len(features))


QUESTION = "did you go to the pottery workshop?"
ASK = turn("ask", "Did you end up going to the pottery workshop on Saturday?", 0)
ANSWER = turn("answer", "Yes! It was lovely, I made a little bowl.", MINUTE)
# as near in meaning as the answer, but said in another hour of the session
LATER = turn("later", "Yes, it was lovely, the weather held all day.", 90 * MINUTE)
TURNS = [ASK, ANSWER, LATER]
STATS = Stats(40, {f: 1 for t in TURNS for f in t.body})
COSINES = {"ask": 0.90, "answer": 0.80, "later": 0.80}


def order(calibration: Calibration, turns: list[Candidate] = TURNS) -> list[str]:
    side = Semantic(COSINES, calibration, script(QUESTION))
    return [s.candidate.id for s in ranked(direct_plan(QUESTION), turns, STATS, side)]


def test_the_turn_beside_a_relevant_one_ranks_above_an_equal_one_elsewhere() -> None:
    without = Calibration(floor=0.75, ceil=0.92, weight=0.4, qualify=0.8, support=0.6,
                          cross_script=0.3)
    # alone, the answer and the later turn are level: the later one first (newer)
    assert order(without) == ["ask", "later", "answer"]
    assert order(CAL) == ["ask", "answer", "later"]


def test_neighbours_are_of_one_origin_and_near_in_time() -> None:
    moved = [ASK, turn("answer", ANSWER.text, MINUTE, origin="session b"), LATER]
    assert order(CAL, moved) == ["ask", "later", "answer"]
    side = Semantic(COSINES, CAL, script(QUESTION))
    scored = ranked(direct_plan(QUESTION), [ASK, ANSWER], STATS, side)
    far = [ASK, turn("answer", ANSWER.text, NEIGHBOUR_WINDOW_MS + 1)]
    apart = ranked(direct_plan(QUESTION), far, STATS, side)
    by_id = {s.candidate.id: s.relevance for s in scored}
    assert by_id["answer"] > {s.candidate.id: s.relevance for s in apart}["answer"]


def test_the_gain_is_a_share_of_the_best_neighbour_taken_before_any_gain() -> None:
    plain = Calibration(floor=0.75, ceil=0.92, weight=0.4, qualify=0.8, support=0.6,
                        cross_script=0.3)
    side = Semantic(COSINES, plain, script(QUESTION))
    scored = ranked(direct_plan(QUESTION), TURNS, STATS, side)
    raised = {s.candidate.id: s.relevance for s in with_neighbours(scored, 0.3)}
    base = {s.candidate.id: s.relevance for s in scored}
    assert raised["answer"] == pytest.approx(base["answer"] + 0.3 * base["ask"])
    assert raised["ask"] == pytest.approx(base["ask"] + 0.3 * base["answer"])
    assert raised["later"] == base["later"]  # 89 minutes from the nearest
    assert with_neighbours(scored, 0.0) == scored
    # a withheld record lends nothing
    kept = {s.candidate.id: s.relevance for s in with_neighbours(scored, 0.3, {"ask"})}
    assert kept["answer"] == base["answer"]


def test_no_gate_reads_it_and_the_lexical_engine_is_unchanged() -> None:
    side = Semantic(COSINES, CAL, script(QUESTION))
    eligible = {s.candidate.id for s in score_all(direct_plan(QUESTION), TURNS, STATS, side)
                if s.eligible}
    assert "answer" not in eligible  # no word of the question, not near enough alone
    plan = direct_plan(QUESTION)
    assert [(s.candidate.id, s.relevance) for s in ranked(plan, TURNS, STATS)] == [
        (s.candidate.id, s.relevance) for s in ranked(plan, TURNS, STATS, None)]
    assert {s.candidate.id: s.relevance for s in ranked(plan, TURNS, STATS)}["answer"] == 0.0


def test_the_bundled_model_weighs_neighbours_and_a_bad_weight_is_refused() -> None:
    assert CALIBRATION.neighbours == pytest.approx(0.3)
    with pytest.raises(ValueError, match="invalid calibration"):
        Calibration(floor=0.75, ceil=0.92, weight=0.4, neighbours=1.5)


def claim(ident: str, text: str, at: int) -> Candidate:
    """A written claim of a project store, as the recall index holds it (kind "memory")."""
    return msgspec.structs.replace(turn(ident, text, at, origin="project:/work/app"),
                                   kind="memory")


def test_a_written_claim_has_no_neighbours_however_near() -> None:
    # a project's claims remembered a minute apart: the deploy claim is no answer to the
    # question the port claim matches, and must not ride on it (everyday --semantic)
    claims = [claim("ask", ASK.text, 0), claim("answer", ANSWER.text, MINUTE),
              claim("later", LATER.text, 90 * MINUTE)]
    assert order(CAL, claims) == ["ask", "later", "answer"]
    side = Semantic(COSINES, CAL, script(QUESTION))
    scored = ranked(direct_plan(QUESTION), claims, STATS, side)
    assert with_neighbours(scored, 0.3) == scored
    # a claim neither lends to a turn nor takes from one
    mixed = [claim("ask", ASK.text, 0), ANSWER]
    scored = ranked(direct_plan(QUESTION), mixed, STATS, side)
    assert with_neighbours(scored, 0.3) == scored
