"""Bounds on a value, written through the service (real session files, real SQLite): "The
mailer never sends more than 50 emails per minute." was written beside "The mailer sends
200 emails per minute." (pair 978 of the fixture set, a known miss of issue 20 item 4): the
negation denied 50, and "more" was a word of the subject, a narrower thing. A bound is
now compared with an amount of its measure by size. The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The mailer never sends more than 50 emails per minute.",
     "The mailer sends 200 emails per minute."),
    ("The mailer does not send more than 50 emails per minute.",
     "The mailer sends 2 emails per second."),
    ("The pool holds at most 100 jobs.", "The pool holds 200 jobs."),
    ("The cluster keeps at least 3 replicas.", "The cluster keeps 2 replicas."),
    ("The cluster keeps at least 3 replicas.", "The cluster keeps at most 2 replicas."),
])
def test_an_amount_past_a_bound_contradicts_it(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The mailer never sends more than 50 emails per minute.",
     "The mailer sends 30 emails per minute."),
    ("The pool holds at most 100 jobs.", "The pool holds 50 jobs."),
    ("The cluster keeps at least 3 replicas.", "The cluster keeps 5 replicas."),
    ("The request timeout is at most 30 seconds.", "The request timeout is 10 seconds."),
])
def test_an_amount_within_a_bound_agrees_with_it(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


def test_another_ceiling_still_contradicts(app: Waymarks) -> None:
    _written(app, "The pool holds at most 100 jobs.")
    _refused(app, "The pool holds at most 200 jobs.")


def test_a_denied_bound_is_the_other_bound_not_a_denied_amount() -> None:
    never = signature("The mailer never sends more than 50 emails per minute.")
    at_most = signature("The mailer sends at most 50 emails per minute.")
    assert never is not None and at_most is not None
    assert never.denied == frozenset()
    assert never.bounds == at_most.bounds == frozenset({("r:50/min", "<=")})
    assert never.subject == at_most.subject == frozenset({"mailer", "send", "email"})
