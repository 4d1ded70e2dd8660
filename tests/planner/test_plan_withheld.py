"""A claim the provider may not receive never costs the plan one it may (each test failed
before its fix): the plan judged every claim together, so a withheld claim that matched
the request better cut, by recall's relative cutoff, the one the provider may receive,
and the plan held no memory while recall for the same provider gave it."""

from __future__ import annotations

from waymarks.recall.analysis import analyze
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats, score_all
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.planning import plan_request

SECRET = "Database backups run nightly at 02:00 to the encrypted bucket."
KEPT = "Database backups are kept for 30 days."
QUERY = "when do database backups run nightly at 02:00?"


def test_a_withheld_claim_does_not_cut_one_the_provider_may_receive(app: Waymarks) -> None:
    secret = app.remember(SECRET, classification="sensitive")
    kept = app.remember(KEPT)
    assert isinstance(secret, Committed) and isinstance(kept, Committed)
    assert app.recall(QUERY).selected == [kept.id]  # recall for the provider gives it
    entries = {e.id: e for e in plan_request(app, QUERY).manifest if e.kind == "memory"}
    assert entries[kept.id].decision == "included"
    # and the manifest still says the better match was left out for its classification
    assert entries[secret.id].decision == "excluded"
    assert "classification sensitive" in entries[secret.id].reason


def record(ident: str, text: str) -> Candidate:
    features = analyze(text).features
    return Candidate(id=ident, kind="memory", status="active", origin="", created_at=0,
                     text=text, body=frozenset(features), sequence=tuple(features),
                     body_count=len(features))


def test_withheld_candidates_are_judged_apart_from_the_others() -> None:
    records = [record("secret", SECRET), record("kept", KEPT)]
    stats = Stats(2, {f: sum(f in r.body for r in records) for r in records for f in r.body})
    plan = direct_plan(QUERY)
    together = {s.candidate.id: s for s in score_all(plan, records, stats)}
    assert together["secret"].eligible and not together["kept"].eligible
    assert together["kept"].reason.startswith("below 75%")  # cut by the withheld one
    for eligible_only in (False, True):  # (the plan's bounded scoring too)
        apart = {s.candidate.id: s for s in score_all(plan, records, stats,
                                                       eligible_only=eligible_only,
                                                       withheld={"secret"})}
        assert apart["kept"].eligible and apart["secret"].eligible
        assert apart["kept"].relevance == together["kept"].relevance
