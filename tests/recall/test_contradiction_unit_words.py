"""Units as a careless user types them, written through the service (real session files,
real SQLite): a duration's short unit glued to its number ("30sec", "5mins", "2hrs") and
a size's unit spelled out ("500 megabytes"). The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The request timeout is 30 seconds.", "The request timeout is 30sec.",
     "The request timeout is 60secs."),
    ("The lock expires after 5 minutes.", "The lock expires after 5mins.",
     "The lock expires after 10min."),
    ("The token is valid for 2 hours.", "The token is valid for 2hrs.",
     "The token is valid for 3hr."),
    ("The cache size is 500 MB.", "The cache size is 500 megabytes.",
     "The cache size is 600 megabytes."),
    ("The disk quota is 1 TB.", "The disk quota is 1024 gigabytes.",
     "The disk quota is 2 terabytes."),
])
def test_a_unit_as_typed_is_the_unit(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"30sec" was no value (a glued unit other than s, ms, min, m, h, d or w), so the
    replay rule's shared derived key refused the same timeout restated; "megabytes" was
    a counted noun, another attribute than a size, so "600 megabytes" was written beside
    "500 MB"."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)
