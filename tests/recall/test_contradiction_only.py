""""only" names no narrower thing (held-out pairs of ``benchmarks/conflict_pairs.json``,
tags ``heldout-rr`` and ``heldout-s66``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Rejected

#: a claim with "only" | another value of it | the same value restated
ONLY = """
The API listens only on port 8080. | The API listens on port 9091. | The API port is 8080.
The mail worker listens only on port 2525. | The mail worker listens on port 587. \
| The mail worker port is 2525.
The metrics endpoint is served solely on port 9100. | The metrics endpoint is served on port \
9090. | The metrics endpoint is served on port 9100.
"""


@pytest.mark.parametrize("line", ONLY.strip().splitlines())
def test_only_is_no_word_of_the_subject(app: Waymarks, line: str) -> None:
    """Read as a subject word, "only" made "listens only on port 2525" a narrower thing
    than the worker's port, and "listens on port 587" was written beside it."""
    first, other, same = (part.strip() for part in line.split(" | "))
    kept = _written(app, first).id
    refused = app.remember(other)
    assert isinstance(refused, Rejected) and refused.conflicts == (kept,), refused
    assert _written(app, same).id != kept
