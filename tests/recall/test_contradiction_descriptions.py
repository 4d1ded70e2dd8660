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
    ("Jon is a teacher.", "Jon is a doctor."),  # two roles: one may replace the other
    ("The API is stable and fast.", "The API is slow and flaky."),  # two traits
    ("The build is green.", "The build is failing on main."),  # a state, not a trait
    ("The primary region is in us-east-1.", "The primary region is in eu-west-1."),
])
def test_a_value_keyed_by_its_subject_is_still_refused(
        app: Waymarks, first: str, second: str) -> None:
    kept = app.remember(first)
    assert kept.outcome == "committed"
    refused = app.remember(second)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (kept.id,)  # type: ignore[union-attr]


#: a role, a membership, a place someone is in or a trait beside what they are doing or
#: how they stand to something: two facts (the first two found by review, refused before;
#: the rest written beside them before the change was run)
ROLE_BESIDE_DOING: list[tuple[str, str]] = [
    ("Jon is a teacher.", "Jon is learning to paint on weekends."),
    ("Alice is on the backend team.", "Alice is working on the billing service."),
    ("Marta is a nurse at the city hospital.", "Marta is training for a marathon in spring."),
    ("Ravi is a member of the platform guild.",
     "Ravi is mentoring two new hires this quarter."),
    ("Lena is part of the design review board.", "Lena is excited about the new typeface."),
    ("Sam is a big fan of jazz and plays the trumpet.", "Sam is allergic to cats."),
    ("Kofi is supportive and patient with new contributors.",
     "Kofi is writing a book about compilers."),
    ("Ines is lactose intolerant.", "Ines is allergic to shellfish."),
    ("Ines is lactose intolerant.", "Ines is cooking dinner for her family tonight."),
    ("Tom is in a beginner pottery class on Tuesdays.", "Tom is saving up for a new bike."),
    ("Priya is a writer and has published two novels.",
     "Priya is determined not to miss her deadline."),
]


@pytest.mark.parametrize(("first", "second"), ROLE_BESIDE_DOING)
def test_a_role_beside_what_someone_is_doing_is_two_facts(
        app: Waymarks, first: str, second: str) -> None:
    """Both keyed by the person (``X is …``); the second was refused as another value."""
    assert app.remember(first).outcome == "committed"
    written = app.remember(second)
    assert written.outcome == "committed", written
    assert [(v.text, v.status) for v in app.items("memory")] == [
        (first, "active"), (second, "active")]


@pytest.mark.parametrize(("first", "second"), ROLE_BESIDE_DOING)
def test_either_order(app: Waymarks, first: str, second: str) -> None:
    assert app.remember(second).outcome == "committed"
    assert app.remember(first).outcome == "committed"
