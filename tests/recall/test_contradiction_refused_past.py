"""A bound said as what is refused past an amount ("Request bodies larger than 2 MB are
rejected by the gateway." / "… up to 10 MB are accepted …": ``heldout-fresh``, and pairs
tagged ``dev-s68`` of ``benchmarks/conflict_pairs.json``), written through the service
(real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.core.claim_bounds import worded_bounds
from waymarks.service.app import Waymarks


@pytest.mark.parametrize("line", [
    "Request bodies larger than 2 MB are rejected by the gateway. | Request bodies up to "
    "10 MB are accepted by the gateway. | Request bodies up to 2 MB are accepted by the "
    "gateway.",
    "Uploads larger than 50 MB are rejected by the API. | Uploads up to 200 MB are "
    "accepted by the API. | Uploads up to 50 MB are accepted by the API.",
])
def test_another_ceiling_contradicts_what_is_refused_past_one(
        app: Waymarks, line: str) -> None:
    """"rejected" and "larger" were words of the subject, the amount no bound: two
    subjects, both written."""
    refused_beside_first(app, line)


def test_what_is_refused_past_an_amount_is_accepted_up_to_it() -> None:
    assert worded_bounds("messages over 256 kb are dropped.") == (
        "messages at most 256 kb are accepted.")
    assert worded_bounds("jobs over 5 minutes are logged.") == "jobs over 5 minutes are logged."
