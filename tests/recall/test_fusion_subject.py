"""Hybrid recall, the gates asking a record to name the question's subject: a similarity
every claim of the question's shape shares does not lift them.

"where does the tracker config live?" sits near every "The X config lives in …" (cosine
0.87-0.88 for each), and "what port does the worker listen on?" near every service's port:
a fair similarity let each past the gates that ask a record to name the thing asked of (a
kind named by nothing, a name the store never saw, the word naming a kind), and the one
match beside a word the store does not know ("which payment provider do we use?" recalled
the payments config, database and restart). ``benchmarks/everyday.py --semantic``: 9 of 15
wrong questions so. Such a gate is lifted only by a similarity that sets the record apart
(the nearest that may be recalled, by the calibration's ``distinct`` margin) or across
scripts; the one match beside unknown words also by a similarity that qualifies a record
with no word in common (``qualify``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.recall.test_fusion import record
from tests.recall.test_fusion_cutoff import embedded
from waymarks.recall.fusion import Calibration, Semantic, script
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats, score_all
from waymarks.service.app import Waymarks

CAL = Calibration(floor=0.72, ceil=0.94, weight=0.4, qualify=0.68, support=0.6,
                  distinct=0.03)
WITHOUT = Calibration(floor=0.72, ceil=0.94, weight=0.4, qualify=0.68, support=0.6)
PORTS = [record("billing", "The billing service listens on port 8041."),
         record("search", "The search service listens on port 7700."),
         record("mailer", "The mailer listens on port 2525.")]
PAYMENTS = [record("config", "The payments config lives in payments/conf/payments.conf."),
            record("adyen", "Payments uses the Adyen API in test mode on staging."),
            record("db", "The payments database is Postgres 14 on db-payments:5432.")]
STATS = Stats(200, {f: 8 for r in [*PORTS, *PAYMENTS] for f in r.body})


def eligible(query: str, records: list, cosines: dict[str, float],  # type: ignore[type-arg]
             calibration: Calibration = CAL) -> list[str]:
    side = Semantic(cosines, calibration, script(query))
    return sorted(s.candidate.id for s in score_all(direct_plan(query), records, STATS, side)
                  if s.eligible)


@pytest.mark.parametrize(("query", "records", "near", "apart"), [
    # a kind named by nothing: "the worker"
    ("what port does the worker listen on?", PORTS,
     {"billing": 0.877, "search": 0.876, "mailer": 0.872},
     {"billing": 0.91, "search": 0.86, "mailer": 0.85}),
    # one match beside a word the store never saw: "provider"
    ("which payment provider do we use?", PAYMENTS,
     {"db": 0.865, "config": 0.855, "adyen": 0.853},
     {"db": 0.862, "config": 0.83, "adyen": 0.82})])
def test_a_similarity_every_claim_of_the_shape_shares_names_no_subject(
        query: str, records: list, near: dict[str, float],  # type: ignore[type-arg]
        apart: dict[str, float]) -> None:
    assert eligible(query, records, near) == []
    assert eligible(query, records, near, WITHOUT) == sorted(near)  # (before: every one)
    # a claim the question's meaning sets apart (by 0.03) is still lifted
    assert eligible(query, records, apart) == [max(apart, key=apart.__getitem__)]


def test_one_match_beside_an_unknown_word_is_lifted_by_a_similarity_that_qualifies() -> None:
    """Near enough to qualify with no word in common (cosine 0.8696 here), a record is
    not refused for the one word it shares."""
    near = {"config": 0.868, "adyen": 0.872, "db": 0.82}
    assert eligible("which payment provider do we use?", PAYMENTS, near) == ["adyen"]


@pytest.mark.semantic
def test_a_subject_no_claim_names_recalls_nothing_with_the_real_model(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """The real model: each question recalled other things' claims of its shape, while a
    claim its meaning sets apart ("how long are database backups kept?" of pg-main's
    backups: "database" is a kind the claim names by its name) is still recalled."""
    app, texts = embedded(make_app, monkeypatch, (
        "The billing service listens on port 8041.",
        "The search service listens on port 7700.",
        "The notifications service listens on port 8060.",
        "The inventory config lives in inventory/src/main/resources/application.yml.",
        "The gateway config lives in gateway/envoy.yaml.",
        "The analytics config lives in analytics/config/settings.ini.",
        "The payments config lives in payments/conf/payments.conf.",
        "Restart payments with `kubectl rollout restart deploy/payments`.",
        "The payments database is Postgres 14 on db-payments:5432.",
        "Payments uses the Adyen API in test mode on staging.",
        "The background jobs for billing run on the worker pool named jobs-billing.",
        "Backups of pg-main are taken every 6 hours and kept for 14 days."))
    for question in ("where does the tracker config live?",
                     "what port does the tracker listen on?",
                     "what port does the worker listen on?",
                     "which payment provider do we use?"):
        assert [texts[i] for i in app.recall(question).selected] == [], question
    assert [texts[i] for i in app.recall("how long are database backups kept?").selected
            ] == ["Backups of pg-main are taken every 6 hours and kept for 14 days."]
