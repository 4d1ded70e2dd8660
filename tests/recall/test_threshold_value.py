"""A threshold is said by a bound before a number, which no claim calls a threshold:
"what is the coverage threshold?" recalled nothing beside "Coverage must stay above 80
percent." ("threshold", a word the store never saw, left the claim one match)."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import says_value
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("text", "bound"), [
    ("Coverage must stay above 80 percent.", True),
    ("Test coverage must not drop below 90 percent.", True),
    ("Production deploys need at least 2 approvals.", True),
    ("Keep no more than 5 open connections.", True),
    ("Batches hold up to 500 events.", True),
    ("Billing talks to the gateway over gRPC.", False),  # no number after the bound
    ("The scheduler runs the cleanup task every night at 03:30.", False),
    ("The gateway timeout for upstream calls is 15 seconds.", False),
])
def test_a_bound_before_a_number_says_a_threshold(text: str, bound: bool) -> None:
    assert says_value("w:threshold", text, frozenset()) is bound


def test_the_threshold_of_one_thing_is_no_answer_for_another(app: Waymarks) -> None:
    coverage = app.remember("Coverage must stay above 80 percent.").id  # type: ignore[union-attr]
    app.remember("Production deploys need at least 2 approvals.")
    app.remember("The gateway timeout for upstream calls is 15 seconds.")
    assert app.recall("what is the coverage threshold?").selected == [coverage]
    assert app.recall("what is the gateway threshold?").selected == []
