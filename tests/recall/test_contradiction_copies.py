"""Where a copy of a thing goes is no other place of it (held-out pair of ``heldout-rr`` in
``benchmarks/conflict_pairs.json``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review61 import _refused_then_written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "contradicting", "copied"), [
    ("The primary region is eu-central-1.", "The primary region is eu-west-1.",
     "The primary region is replicated to eu-west-1."),
    ("The orders database is in us-east-1.", "The orders database is in us-west-2.",
     "The orders database is mirrored to us-west-2."),
    ("The build cache is at s3://ci-cache.", "The build cache is at s3://ci-cache-dr.",
     "The build cache is copied to s3://ci-cache-dr."),
    ("The orders database is replicated to us-west-2.",
     "The orders database is replicated to eu-west-1.",
     "The orders database is in eu-west-1."),
])
def test_where_a_copy_goes_beside_where_the_thing_is_is_another_fact(
        app: Waymarks, first: str, contradicting: str, copied: str) -> None:
    """"replicated to", "mirrored to", "copied to": the copy's place; read as a word of
    the subject after its copula, it qualified the same fact, whose value differed. Another
    place of the thing, or of its copy, still contradicts."""
    _refused_then_written(app, first, contradicting, copied)
