"""Two words "time out" are the timeout concept, as "timeout" is: "what's the session
timeout?" missed "Session cookies time out after 30 minutes of inactivity." (the held-out
project of benchmarks/everyday_heldout.py), since "time" is filler and "out" a stop word,
so the claim said no timeout at all."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks


@pytest.mark.parametrize("text", [
    "Session cookies time out after 30 minutes.",
    "Requests to the gateway timed out at 5 seconds.",
    "The worker times out when Redis is down.",
    "Uploads keep timing out.",
    "Jobs time-out after an hour.",
])
def test_time_out_said_as_two_words_is_the_timeout(text: str) -> None:
    assert "c:timeout" in analyze(text).features, analyze(text).features


@pytest.mark.parametrize("text", [
    "We ran out of time on the migration.",
    "Set aside some time for the outage review.",
])
def test_time_and_out_apart_are_no_timeout(text: str) -> None:
    assert "c:timeout" not in analyze(text).features


def test_the_session_timeout_is_found_when_said_as_time_out(app: Waymarks) -> None:
    ids = {app.remember(text).id: text for text in (  # type: ignore[union-attr]
        "Session cookies time out after 30 minutes of inactivity.",
        "API tokens expire after 90 days.",
        "The session store is Redis.")}
    assert [ids[i] for i in app.recall("what's the session timeout?").selected] == [
        "Session cookies time out after 30 minutes of inactivity."]
