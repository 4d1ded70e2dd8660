"""The scope word of a record's origin ("session:…", "project:…") is the kind of place it
was written in, no word of the claim: "session" was a word of every claim written in a
session (its origin counts a little, 0.2), so "what is the session timeout?" recalled
"API tokens expire after 90 days." and a certificate's expiry, as if they named a
session (found with benchmarks/everyday_heldout.py)."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze, origin_features
from waymarks.service.app import Waymarks


def test_a_claim_written_in_a_session_does_not_name_a_session(app: Waymarks) -> None:
    ids = {app.remember(text).id: text for text in (  # type: ignore[union-attr]
        "API tokens expire after 90 days.",
        "The TLS certificate for api.tally.dev expires on 2027-03-01.",
        "Session cookies time out after 30 minutes of inactivity.",
        "The session store is Redis.")}
    # (the session's timeout is the claim saying "time out": no expiry through its origin)
    assert [ids[i] for i in app.recall("what is the session timeout?").selected] == [
        "Session cookies time out after 30 minutes of inactivity."]
    assert [ids[i] for i in app.recall("when do API tokens expire?").selected] == [
        "API tokens expire after 90 days."]
    assert [ids[i] for i in app.recall("where is the session store?").selected] == [
        "The session store is Redis."]


@pytest.mark.parametrize(("origin", "held", "not_held"), [
    ("session:98ab3460-9237-437e-bb6e-4b4482817b1d", "w:98ab3460", "w:session"),
    ("project:/home/me/code/shop", "w:shop", "w:project"),
    ("branch:feature/login", "c:auth", "w:branch"),
])
def test_an_origin_is_its_place_without_its_scope(origin: str, held: str,
                                                  not_held: str) -> None:
    features = origin_features(origin)
    assert held in features and not_held not in features, features


def test_an_origin_with_no_scope_is_read_whole() -> None:
    assert origin_features("notes:session-log") == analyze("notes:session-log").features
    assert "w:session" in origin_features("notes:session-log")
