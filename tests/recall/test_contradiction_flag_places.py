"""An on/off state before where it holds ("The beta_export flag is on in staging."):
``heldout-fresh``'s one false conflict, and pairs tagged ``dev-s68`` of
``benchmarks/conflict_pairs.json``, written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second"), [
    ("The beta_export flag is on in staging.", "The beta_export flag is off in production."),
    ("Request tracing is on for the admin API.", "Request tracing is off for the public API."),
    ("The beta_search flag is on in staging.", "beta_search 开关在生产环境是关闭的。"),
])
def test_a_state_in_two_places_is_two_facts(app: Waymarks, first: str, second: str) -> None:
    """"on" was a state only ending its clause: neither claim had a signature, and the
    replay rule's shared derived key refused the second."""
    kept = _written(app, first).id
    assert _written(app, second).id != kept


@pytest.mark.parametrize("line", [
    "The dark_mode flag is on in staging. | The dark_mode flag is off in staging. "
    "| The dark_mode flag is enabled in staging.",
    "Request tracing is on for the admin API. | Request tracing is disabled for the admin "
    "API. | Request tracing is off for the public API.",
])
def test_the_opposite_state_in_one_place_contradicts_it(app: Waymarks, line: str) -> None:
    refused_beside_first(app, line)
