"""An English question reaches a Chinese claim by meaning (issue 20, cross-lingual): the
bundled model's calibration serves that direction at its own margin (``cross_margins``,
:mod:`waymarks.recall.cross_lingual`). Cosines are the bundled model's for benchmarks/
everyday_xling.py's Chinese store (lower-cased queries)."""

from __future__ import annotations

from tests.recall.test_fusion import record
from waymarks.recall.fusion import Calibration, semantic_side
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats, score_all
from waymarks.semantic.e5 import CALIBRATION

CLAIMS = [record("port", "订单服务监听 8120 端口。"),
          record("owner", "订单服务由王磊负责。"),
          record("sms", "短信通过阿里云短信服务发送。"),
          record("review", "代码评审至少需要一位同事批准。")]


def chosen(query: str, cosines: dict[str, float]) -> list[str]:
    ids = [c.id for c in CLAIMS]
    side, _ = semantic_side(ids, [cosines[i] for i in ids], [], CALIBRATION, query=query)
    stats = Stats(len(CLAIMS), {f: 1 for c in CLAIMS for f in c.body})
    return [s.candidate.id for s in score_all(direct_plan(query), CLAIMS, stats, side)
            if s.eligible]


def test_an_english_question_reaches_the_chinese_claim_that_stands_out() -> None:
    # "which port does the order service listen on?": 0.839, the next Chinese claim 0.798
    assert chosen("which port does the order service listen on?",
                  {"port": 0.839, "owner": 0.798, "sms": 0.77, "review": 0.76}) == ["port"]
    assert chosen("how are text messages sent?",
                  {"sms": 0.841, "port": 0.792, "owner": 0.786, "review": 0.78}) == ["sms"]


def test_a_chinese_claim_only_a_little_nearer_is_not_an_answer() -> None:
    # an unrelated request sat at most 0.025 above the next Chinese claim; a near-topic
    # one ("which port does the payment service listen on?") 0.037
    assert chosen("which port does the payment service listen on?",
                  {"port": 0.835, "owner": 0.798, "sms": 0.77, "review": 0.76}) == []
    assert chosen("how do I install the dependencies?",
                  {"review": 0.829, "port": 0.804, "owner": 0.79, "sms": 0.78}) == []


def test_a_direction_without_its_own_margin_keeps_the_calibrations() -> None:
    from waymarks.recall import cross_lingual

    plain = Calibration(floor=0.7, ceil=0.9, weight=0.4, cross_from=("han",), cross_margin=0.03)
    assert cross_lingual.for_query(plain, "latin") is plain
    own = Calibration(floor=0.7, ceil=0.9, weight=0.4, cross_from=("han",), cross_margin=0.03,
                      cross_margins=(("latin", 0.04),))
    assert (cross_lingual.for_query(own, "latin").cross_from,
            cross_lingual.for_query(own, "latin").cross_margin) == (("han", "latin"), 0.04)
    assert cross_lingual.for_query(own, "han") is own


def test_in_a_store_of_both_an_english_claim_nearer_keeps_the_chinese_one_out() -> None:
    """heldout2: "which payment provider do we use?" recalled a Chinese claim about the
    billing logs, 0.04 apart from the other Chinese claims but not the nearest claim."""
    both = [*CLAIMS, record("en", "Payments use the Adyen API.")]
    ids = [c.id for c in both]
    cosines = {"port": 0.839, "owner": 0.798, "sms": 0.77, "review": 0.76, "en": 0.85}
    side, _ = semantic_side(ids, [cosines[i] for i in ids], [], CALIBRATION,
                            query="which port does the order service listen on?")
    side = side.among((c.id, c.text) for c in both)
    assert side.across("port", CLAIMS[0].text) is False
    assert side.among((c.id, c.text) for c in CLAIMS).across("port", CLAIMS[0].text)
