"""False conflicts of two claims of no value sharing the replay rule's derived key, found by
the held-out pairs (tags ``heldout-rr`` and ``heldout-s66`` of
``benchmarks/conflict_pairs.json``), written through the service (real session files, real
SQLite): what is done to a thing beside what it is like, each a true fact refused."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second"), [
    ("The reports bucket is public.", "The reports bucket is versioned."),
    ("The reports bucket is versioned.", "The reports bucket is public."),
    ("The status dashboard is public.", "The status dashboard is hosted on Grafana Cloud."),
    ("Feature flags are managed in LaunchDarkly.", "Feature flags are cleaned up every quarter."),
    ("The cache backend is redis.", "The cache backend is shared across regions."),
    ("The admin panel is only reachable over the VPN.", "The admin panel is built with Django."),
    ("The public API is documented.", "The public API is rate limited."),
    ("Merged branches are removed automatically.", "Merged branches are named after the ticket."),
])
def test_a_participle_beside_another_attribute_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """Neither claim states a value; what is done to the thing ("versioned", "hosted on
    …", "cleaned up …") is no other word of what it is like ("public") or of another
    thing done to it."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The user uploads bucket is private.", "The user uploads bucket is mirrored to eu-west-1."),
    ("The upload retry count is 3.", "The upload retry count is too low for flaky networks."),
    ("The main branch is trunk-based.", "The main branch is locked during releases."),
    ("The new checkout flow is enabled in production.",
     "The new checkout flow is behind the flag checkout_v2."),
])
def test_a_word_of_no_value_beside_a_value_of_another_attribute_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """Where a copy goes, a judgement of the value, a rule of when ("during releases") and
    what gates a feature are no other value of the thing."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The reports bucket is public.", "The reports bucket is private."),
    ("The cache backend is redis.", "The cache backend is memcached."),
    ("The deploy is automated.", "The deploy is manual."),
    ("Issue 42 is closed.", "Issue 42 is open."),
    ("The release PR is approved.", "The release PR is rejected."),
    ("The default branch is protected.", "The default branch is unprotected."),
    ("Feature branches are deleted after merge.", "Feature branches are kept after merge."),
    ("The reports bucket is versioned.", "The reports bucket is not versioned."),
    ("The payments API is maintained by the checkout team.",
     "The payments API is maintained by the billing team."),
    ("The cache backend is redis.", "The cache backend is replaced by valkey."),
])
def test_an_opposite_a_denial_or_one_verb_twice_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
