"""A feedback change invalidates in-flight model writes (EVOLUTION item 36): a reply
computed against a claim the person gave feedback on (or edited) after the request was
built is not committed: nothing is written, the source stays unsettled, and a fresh
request (with the current state) applies. Real step (the evolution ledger), and the real
queue with a real loopback provider, the feedback given while the call is in flight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import CountingIds, StepClock
from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.core.model_port import ModelReply
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import route_client
from waymarks.service import evolution_edits as edits
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore

AT = "2030-01-01T00:00:00.000Z"
T0 = 1_800_000_000_000
REPLACE = "The staging port is 9090"


def _setup(home: Path) -> tuple[Evolution, str, str]:
    """A learned claim, and a new source in its origin that mentions it (so it is offered)."""
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(5))
    first = evo.capture("/w/a", "statement", "Remember the staging port is 8080", session="s",
                        key="1")
    assert first is not None
    reply = ModelReply(json.dumps({"claims": [{"kind": "fact",
                                               "content": "The staging port is 8080"}]}),
                       "f", "m")
    assert evo.apply(first.source_id, reply, AT).code == "applied"
    [old] = evo.claims(["provisional"])
    second = evo.capture("/w/a", "statement", "Correction: the staging port is 9090 now",
                         session="s", key="2")
    assert second is not None
    return evo, old.id, second.source_id


def _replacing(old: str) -> str:
    return json.dumps({"claims": [{"kind": "fact", "content": REPLACE, "replaces": old}]})


def _ledger_size(home: Path) -> int:
    return (home / "evolution" / "ledger.jsonl").stat().st_size


def test_a_reply_computed_before_feedback_is_not_committed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    evo, old, source = _setup(home)
    request = evo.request_for(source)
    assert request is not None and old in request.prompt
    # the person's verdict lands while the model is thinking (another process)
    with Evolution(home) as person:
        assert edits.feedback(person, old, "useful").ok
    size = _ledger_size(home)
    outcome = evo.apply(source, ModelReply(_replacing(old), "f", "m"), AT)
    assert (outcome.code, outcome.written) == ("stale", 0)
    assert _ledger_size(home) == size  # nothing written
    assert evo.claim(old).state == "provisional"  # type: ignore[union-attr]
    assert [s.source_id for s in evo.unsettled(5)] == [source]
    # asked again, against the current state, the same reply applies
    assert evo.request_for(source) is not None
    outcome = evo.apply(source, ModelReply(_replacing(old), "f", "m"), AT)
    assert (outcome.code, outcome.written) == ("applied", 1)
    assert evo.claim(old).state == "superseded"  # type: ignore[union-attr]
    evo.close()


def test_without_a_change_the_reply_commits_and_a_confirmation_is_not_a_change(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    evo, old, source = _setup(home)
    assert evo.request_for(source) is not None
    outcome = evo.apply(source, ModelReply(_replacing(old), "f", "m"), AT)
    assert (outcome.code, outcome.written) == ("applied", 1)
    evo.close()


def test_the_queue_never_commits_a_reply_that_went_stale_in_flight(tmp_path: Path) -> None:
    home = tmp_path / "home"
    evo, old, _source = _setup(home)
    given: list[bool] = []
    sizes: list[int] = []

    def clients(route: Any) -> Any:
        real = route_client(route)

        class DuringCall:
            def complete(self, request: Any, where: Any, *, timeout_s: float) -> ModelReply:
                reply = real.complete(request, where, timeout_s=timeout_s)
                if not given:  # feedback while the first reply is in flight
                    with Evolution(home) as person:
                        given.append(edits.feedback(person, old, "useful").ok)
                sizes.append(_ledger_size(home))
                return reply

        return DuringCall()

    with FakeProvider([openai_ok(_replacing(old)), openai_ok(_replacing(old))]) as fake:
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")
        queue = EvolutionQueue(JobStore.open(home), evo, EvolutionConfig(primary=route),
                               ProviderPolicy.from_config({}), clients,
                               now_ms=lambda: T0, jitter=lambda: 0.5)
        attempt = queue.run_once()
        outcomes = [c["outcome"] for c in queue.store.recent_calls(5)]
    assert given == [True]
    # the first reply was computed before the feedback: it is not written (without the
    # check it would have applied: useful changes no state the decision looks at); the
    # queue re-reads once (error policy "stale result") and the fresh reply applies
    assert outcomes == ["ok", "stale"]  # newest first
    assert sizes[0] == sizes[1]  # nothing appended between the feedback and the re-read
    assert (attempt.outcome, attempt.reason, attempt.calls) == ("settled", "applied", 2)
    kept = evo.claim(old)
    assert kept is not None and kept.state == "superseded" and kept.utility is not None
    queue.close()
    evo.close()
