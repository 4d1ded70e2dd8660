"""A port said with "binds to", written through the service (real session files, real
SQLite), as "listens on" is. The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The API binds to port 8080.", "The API listens on 8080.", "The API port is 8081."),
    ("The API binds to 8080.", "The API port is 8080.", "The API listens on port 8081."),
    ("Redis binds to 127.0.0.1:6379.", "The Redis port is 6379.", "Redis binds to 6380."),
])
def test_binds_to_is_the_port(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"binds" was a word of the subject phrase naming a narrower thing than the API, so
    "The API port is 8081." was written beside "The API binds to port 8080."."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("Redis binds to 6379.", "Postgres binds to 5432."),
    ("The metrics exporter binds to 9100.", "The API binds to 8080."),
    ("The API binds to 0.0.0.0.", "The API port is 8081."),
])
def test_binds_of_other_things_are_two_facts(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
