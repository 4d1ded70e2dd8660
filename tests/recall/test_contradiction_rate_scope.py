"""A rate of each user (or client, tenant, key …), written through the service (real
session files, real SQLite): "The API rate limit is 100 req/min per user." beside "The API
rate limit is 10 req/s." (a limit of each user and one of the whole API, deliberately two
facts) was refused as one rate with two values. The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second"), [
    ("The API rate limit is 100 req/min per user.", "The API rate limit is 10 req/s."),
    ("The API allows 100 req/min per user.", "The API allows 10 req/s."),
    ("The API allows 10 req/s.", "The API allows 100 requests per minute per client."),
    ("The API allows 100 req/min per user.", "The API allows 20 req/min per tenant."),
])
def test_a_rate_of_each_user_is_another_attribute_than_the_whole(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The API allows 100 req/min per user.", "The API allows 6000 req/h per user.",
     "The API allows 200 req/min per user."),
    ("The API rate limit is 100 req/min per user.",
     "The API rate limit is 100 requests per minute per user.",
     "The API rate limit is 50 req/min per user."),
])
def test_two_rates_of_each_user_still_contradict(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)
