"""Issue 20 item 4's known miss of a port said with "exposes", written through the service
(real session files, real SQLite): "The API exposes port 8080." beside "The API listens on
port 9090." ("exposes" was a word of the subject phrase, naming a narrower thing than the
API, where "serves" is none). The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The API listens on port 9090.", "The API exposes port 9090.", "The API exposes port 8080."),
    ("The API exposes port 8080.", "The API serves on port 8080.",
     "The API listens on port 9090."),
    ("The API serves on port 8080.", "The API port is 8080.", "The API listens on port 9090."),
    ("The API port is 8080.", "The API is exposed on port 8080.", "The API exposes port 8081."),
])
def test_exposes_is_the_port_as_serves_is(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The API listens on port 8080.", "The API exposes metrics on port 9100."),
    ("The API listens on port 9090.", "The API exposes 12 endpoints."),
    ("The API listens on port 9090.", "The Dockerfile exposes port 8080."),
])
def test_what_else_is_exposed_is_another_fact(app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The API listens on port 8080.", "The API answers on port 8080.",
     "The API answers on port 9090."),
    ("The API listens on port 8080.", "The API accepts connections on port 8080.",
     "The API accepts connections on port 9090."),
    ("The API port is 8080.", "The API takes requests on port 8080.",
     "The API receives traffic on port 9090."),
])
def test_the_verb_of_a_listener_before_its_port_names_no_narrower_thing(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"answers on port 9090", "accepts connections on port 9090": the verb (and what any
    listener takes: connections, requests, traffic) says the API listens there, as
    "listens" does; read as words of the subject, they named a narrower thing."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The API listens on port 8080.", "The API serves metrics on port 9100."),
    ("The API listens on port 8080.", "The API exposes metrics on port 9100."),
    ("The API listens on port 8080.", "The admin UI answers on port 9000."),
    # a number before the verb names the subject ("Rack 3 holds …"), blanked or not
    ("Service 7 answers on port 2007.", "Service 8 answers on port 2008."),
    ("Service 77 listens on port 2078 in staging.", "The staging service port is 9999."),
])
def test_a_thing_served_beside_the_listener_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
