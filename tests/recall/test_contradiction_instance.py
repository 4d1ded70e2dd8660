"""Issue 20 item 4's known miss of a verb beside a noun attribute, written through the
service (real session files, real SQLite): "The staging Redis instance listens on 6380."
beside "The staging Redis port is 6381.". Their pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The staging Redis instance listens on 6380.", "The staging Redis port is 6380.",
     "The staging Redis port is 6381."),
    ("The Postgres server listens on 5432.", "Postgres listens on port 5432.",
     "The Postgres port is 5433."),
    ("The Redis daemon listens on 6379.", "The Redis port is 6379.",
     "Redis listens on 6380."),
])
def test_an_instance_of_the_subject_is_the_subject(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"instance", "server" and "daemon" were words naming a narrower thing than Redis,
    so the port of "the Redis instance" was another fact than "the Redis port", and a
    changed port was written beside it; they say what kind of thing the subject is."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The Redis instance listens on 6380.", "The Postgres instance listens on 5432."),
    ("The Redis instance listens on 6380.", "The Redis sentinel instance listens on 26379."),
    ("The API server listens on 8080.", "The API metrics server listens on 9090."),
])
def test_instances_of_other_things_are_two_facts(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
