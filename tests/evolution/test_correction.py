"""The one format correction (EVOLUTION items 61, 63): a source's first malformed reply is
answered, in the same attempt and to the same model, by one corrective prompt naming the
broken rule (never echoing the reply); a second break is an ordinary output failure, and
the next attempt goes to an alternate model with no further correction. Real step (the
evolution ledger), real queue (evolution.db), real loopback provider."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CountingIds, StepClock
from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import route_client
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore

T0 = 1_800_000_000_000
BROKEN = json.dumps({"claims": [{"kind": "preference", "content": "Prefers tabs in Go",
                                 "confidence": 0.99}]})
GOOD = json.dumps({"claims": [{"kind": "preference", "content": "Prefers tabs in Go"}]})


def _queue(home: Path, origin: str, clock: list[int],
           models: tuple[str, ...] = ()) -> tuple[EvolutionQueue, Evolution, str]:
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(3))
    captured = evo.capture("/w/a", "statement", "I prefer tabs for Go files", session="s",
                           key="m1")
    assert captured is not None
    route = RouteConfig("openai", "openai", "m1", origin + "/v1")
    queue = EvolutionQueue(JobStore.open(home), evo,
                           EvolutionConfig(primary=route, fallback_models=models),
                           ProviderPolicy.from_config({}), route_client,
                           now_ms=lambda: clock[0], jitter=lambda: 0.5)
    return queue, evo, captured.source_id


def _prompt(request: dict[str, object]) -> str:
    body = request["body"]
    assert isinstance(body, dict)
    return str(body["messages"][-1]["content"])


def test_a_first_malformed_reply_gets_one_correction_naming_the_rule(tmp_path: Path) -> None:
    with FakeProvider([openai_ok(BROKEN), openai_ok(GOOD)]) as fake:
        queue, evo, source_id = _queue(tmp_path / "home", fake.origin, [T0])
        attempt = queue.run_once()
        requests = fake.requests
    assert (attempt.outcome, attempt.reason, attempt.calls) == ("settled", "applied", 2)
    first, second = _prompt(requests[0]), _prompt(requests[1])
    assert "REJECTED" not in first
    assert second.startswith(first)  # the same request, once more...
    tail = second[len(first):]
    assert "rule: host_only_field" in tail and "confidence" in tail  # ...naming the rule
    assert "0.99" not in second  # the broken reply is never sent back
    assert requests[1]["body"]["model"] == "m1"  # same model
    job = queue.store.job(source_id)
    assert job is not None and (job.state, job.output_failures, job.calls) == ("settled", 1, 2)
    assert [c.content for c in evo.claims(["provisional"])] == ["Prefers tabs in Go"]
    assert [c["outcome"] for c in queue.store.recent_calls(5)] == ["ok", "ok"]
    queue.close()
    evo.close()


def test_a_second_break_fails_and_the_next_attempt_uses_another_model_uncorrected(
        tmp_path: Path) -> None:
    clock = [T0]
    not_json = openai_ok("Sure! Here are the claims you asked for.")
    with FakeProvider([openai_ok(BROKEN), openai_ok(BROKEN), not_json]) as fake:
        queue, evo, source_id = _queue(tmp_path / "home", fake.origin, clock,
                                       models=("m2",))
        attempt = queue.run_once()
        assert (attempt.outcome, attempt.reason, attempt.calls) == (
            "failed", "invalid_output", 2)
        job = queue.store.job(source_id)
        assert job is not None
        assert (job.state, job.failures, job.output_failures) == ("retrying", 1, 2)
        clock[0] = job.retry_at
        again = queue.run_once()
        requests = fake.requests
    # no second correction: one call, to the alternate model, then an output failure
    # that pauses the source (3 broken replies)
    assert (again.outcome, again.reason, again.calls, again.model) == (
        "paused", "invalid_output", 1, "m2")
    assert len(requests) == 3 and requests[2]["body"]["model"] == "m2"
    assert "REJECTED" not in _prompt(requests[2])
    assert evo.claims() == []  # nothing written by any broken reply
    assert [r.source_id for r in evo.unsettled(5)] == [source_id]  # paused: not settled
    queue.close()
    evo.close()


def test_the_recovery_tick_recovers_a_persisted_failure_and_malformed_replies(
        tmp_path: Path) -> None:
    """The real tick thread over the real step, no user activity: a failure persisted by
    an earlier process is retried when due, its reply breaks the contract twice (the
    correction too), and a later check, past the backoff, settles it with another reply."""
    from tests.evolution.test_recovery_tick import Offset, _until
    from waymarks.service.evolution_tick import RecoveryTick

    home = tmp_path / "home"
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(8))
    captured = evo.capture("/w/a", "statement", "I prefer tabs for Go files", session="s",
                           key="m1")
    assert captured is not None
    source_id = captured.source_id
    store = JobStore.open(home)
    store.add_jobs(evo.unsettled(5), 0)
    lease = store.lease(source_id, "earlier-process", 0, 150_000)
    assert lease is not None
    assert store.fail(lease, "overloaded", 1, output=False, pause=False, retry_at=lambda n: 2)
    store.close()
    clock = Offset()
    answers = [openai_ok(BROKEN), openai_ok("not json"), openai_ok(GOOD)]
    with FakeProvider(answers) as fake:
        route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")

        def make() -> EvolutionQueue:
            return EvolutionQueue(JobStore.open(home), Evolution(home),
                                  EvolutionConfig(primary=route), ProviderPolicy.from_config({}),
                                  route_client, now_ms=clock, jitter=lambda: 0.5)

        tick = RecoveryTick(make, interval_s=0.05)
        tick.start()
        try:
            assert _until(lambda: len(fake.requests) >= 2)
            check = JobStore.open(home)

            def backing_off() -> bool:
                job = check.job(source_id)
                return job is not None and (job.state, job.failures) == ("retrying", 2)

            assert _until(backing_off)  # the earlier failure and this attempt's
            check.close()
            clock.offset = 3_600_000  # the backoff has passed
            assert _until(lambda: not evo.unsettled(5))
        finally:
            tick.stop()
        requests = fake.requests
    assert len(requests) == 3 and "rule: host_only_field" in _prompt(requests[1])
    assert [c.content for c in evo.claims(["provisional"])] == ["Prefers tabs in Go"]
    final = JobStore.open(home)
    job = final.job(source_id)
    final.close()
    assert job is not None and (job.state, job.output_failures) == ("settled", 2)
    evo.close()
