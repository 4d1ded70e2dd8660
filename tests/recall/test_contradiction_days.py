"""A state on one day of the week beside the opposite state on another day is two facts
(``core/claim_days.py``): "Deploys on Fridays are not allowed." refused "Deploys on
Mondays are allowed." (the dev-words pairs, ``benchmarks/conflict_pairs_words.json``,
and ``benchmarks/ordinary_refusals.py``). The last three were written beside it before
the change was run."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("Deploys on Fridays are not allowed.", "Deploys on Mondays are allowed.", False),
    ("Deploys are not allowed on Fridays.", "Deploys are allowed on Mondays.", False),
    ("The batch job is disabled on Sundays.", "The batch job is enabled on Mondays.", False),
    ("Releases on Mondays are allowed.", "Releases on Fridays are not allowed.", False),
    # opposite states on one day: still refused
    ("Deploys are not allowed on Fridays.", "Deploys are allowed on Fridays.", True),
    ("Deploys on Fridays are allowed.", "Deploys on Fridays are not allowed.", True),
    ("The batch job is disabled on Sundays.", "The batch job is enabled on Sundays.", True),
])
def test_opposite_states_on_other_days_are_both_written(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)
