"""One thing counted, its noun singular ("Each pull request needs 1 approval."): read as
the name "needs 1" before a verb, the claim stated no value and was written beside "Each
pull request needs 2 approvals.". Written through the service (real session files, real
SQLite); the pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Each pull request needs 2 approvals.", "Each pull request needs two approvals.",
     "Each pull request needs 1 approval."),
    ("The nightly job requires 1 runner.", "The nightly job requires one runner.",
     "The nightly job requires 3 runners."),
])
def test_one_thing_counted_is_a_count(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("Migration 1 fails.", "Migration 2 fails."),
    ("The API needs 1 replica.", "The API needs 2 CPUs."),
])
def test_a_numbered_name_or_another_noun_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The search index is not sharded.", "The search index has 5 shards."),
    ("The search index has 5 shards.", "The search index isn't sharded."),
    ("The orders table is not partitioned.", "The orders table has 12 partitions."),
    ("The search index is not sharded.", "The search index is sharded."),
])
def test_a_thing_not_made_into_parts_is_one_of_them(
        app: Waymarks, first: str, contradicting: str) -> None:
    """"is not sharded" stated no value (pair 983 of the fixture set, a known miss of
    issue 20 item 4): it is one shard, which five contradict; "is sharded" still denies
    it."""
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The search index is not sharded.", "The search index has 1 shard."),
    ("The orders table is not partitioned.", "The orders table has 12 columns."),
    ("The search index is not sharded.", "The search index is 5 GB."),
])
def test_one_part_or_another_count_is_no_contradiction(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
