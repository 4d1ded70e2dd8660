"""Two descriptions of one person or thing ("X is doing …", "X is keen on …") are two
facts, not two values of the key ``X`` the replay rule derives from ``X is …``
(``core/claim_descriptions.py``): found by the standing check
(``benchmarks/ordinary_refusals.py``), which refused 178 of the 1210 LoCoMo-derived
claims so. These sentences are not LoCoMo's (its data stays out of the repository)."""

from __future__ import annotations

import pytest

from waymarks.core.decision_types import Rejected
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second"), [
    ("Priya is renovating her kitchen before the summer.",
     "Priya is currently learning to play the cello."),
    ("Omar is training for a half marathon in October.",
     "Omar is allergic to peanuts and shellfish."),
    ("Omar is allergic to peanuts and shellfish.",
     "Omar is interested in joining the local chess club."),
    ("The ops team is migrating the dashboards to the new cluster.",
     "The ops team is responsible for the pager rotation."),
])
def test_two_descriptions_of_one_subject_are_both_written(
        app: Waymarks, first: str, second: str) -> None:
    """Both keyed ``priya`` (``X is …``), the second was refused as another value."""
    assert app.remember(first).outcome == "committed"
    assert app.remember(second).outcome == "committed"


@pytest.mark.parametrize(("first", "second"), [
    ("The log level is info.", "The log level is debug."),  # a value
    ("Session data is kept in Redis.", "Session data is kept in MySQL."),  # a place
    ("The handbook site is built with MkDocs.",
     "The handbook site is built with Docusaurus."),  # a tool (a participle, no stance)
])
def test_a_value_keyed_by_its_subject_is_still_refused(
        app: Waymarks, first: str, second: str) -> None:
    kept = app.remember(first)
    assert kept.outcome == "committed"
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (kept.id,)  # type: ignore[union-attr]
