"""The worker end to end on real SQLite, a real loopback provider and the file-backed test
double of ConsolidationStep: settling, waiting, backoff, cooldowns, fallbacks, pauses, late
results, cancellation and forced attempts."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.fake_provider import FakeProvider, error, openai_ok
from tests.evolution.step_double import FileStep
from waymarks.core.evolution.limits import ModelLimits
from waymarks.core.model_port import ModelClient, ModelReply, ModelRequest, Route
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.job_rows import route_key
from waymarks.store.jobs import JobStore

T0 = 1_800_000_000_000


@dataclass
class Clock:
    now: int = T0

    def __call__(self) -> int:
        return self.now


@dataclass
class Harness:
    home: Path
    step: FileStep
    fake: FakeProvider
    clock: Clock
    store: JobStore
    queues: list[EvolutionQueue] = field(default_factory=list)

    def queue(self, *, models: tuple[str, ...] = (), policy: ProviderPolicy | None = None,
              primary: bool = True, wrap: Any = None, **limits: Any) -> EvolutionQueue:
        route = RouteConfig("openai", "openai", "m1", self.fake.origin + "/v1")
        config = EvolutionConfig(primary=route if primary else None,
                                 fallback_models=models, **limits)

        def clients(r: RouteConfig) -> ModelClient:
            client = client_for(r.api, r.endpoint, r.key_env)
            return wrap(client) if wrap else client

        queue = EvolutionQueue(self.store, self.step, config,
                               policy or ProviderPolicy.from_config({}), clients,
                               now_ms=self.clock, jitter=lambda: 0.5)
        self.queues.append(queue)
        return queue

    def job(self, source_id: str = "s1"):  # type: ignore[no-untyped-def]
        found = self.store.job(source_id)
        assert found is not None
        return found


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with FakeProvider(default=openai_ok('{"claims": [1]}')) as fake:
        store = JobStore.open(tmp_path / "home")
        harness = Harness(tmp_path / "home", FileStep(tmp_path / "step"), fake, Clock(), store)
        yield harness
        store.close()


def test_a_captured_source_is_consolidated_and_settled(h: Harness) -> None:
    h.step.add("s1", "The user prefers tabs.")
    attempt = h.queue().run_once()
    assert (attempt.outcome, attempt.source_id, attempt.reason, attempt.model) == (
        "settled", "s1", "applied", "m1")
    assert h.job().state == "settled" and h.step.settled("s1")
    sent = h.fake.requests[0]["body"]["messages"]
    assert sent[1]["content"] == "The user prefers tabs."
    call = h.store.recent_calls(1)[0]
    assert (call["outcome"], call["inputTokens"], call["outputTokens"]) == ("ok", 11, 7)
    assert h.queue().run_once().outcome == "idle"  # settled: never again
    assert len(h.fake.requests) == 1


def test_no_route_claims_nothing_and_says_why(h: Harness) -> None:
    h.step.add("s1")
    attempt = h.queue(primary=False).run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "no_route")
    job = h.job()
    assert (job.state, job.attempt, job.calls, job.owner) == ("pending", 0, 0, None)
    assert job.wait_reason == "no_route" and h.store.calls_since(0) == 0
    assert h.fake.requests == []


def test_privacy_policy_keeps_a_source_from_a_remote_provider(h: Harness) -> None:
    h.step.add("s1", "internal design notes", classification="internal")
    attempt = h.queue().run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "privacy")
    assert h.job().wait_reason == "privacy" and h.job().attempt == 0
    assert h.fake.requests == []
    local = ProviderPolicy.from_config({"localProviders": ["openai"]})
    assert h.queue(policy=local).run_once().outcome == "settled"


def test_a_sources_level_is_a_ceiling_under_an_exact_allow_list(h: Harness) -> None:
    """A source folds its marked spans into its highest level: an allow list of
    ``normal`` and ``sensitive`` must not receive a ``sensitive`` source, which may hold an
    ``internal`` span, though ``sensitive`` itself is on the list."""
    h.step.add("s1", "notes with an internal span inside", classification="sensitive")
    gappy = ProviderPolicy.from_config({"remoteProviders": {"openai": ["normal", "sensitive"]}})
    attempt = h.queue(policy=gappy).run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "privacy")
    assert h.fake.requests == []
    whole = ProviderPolicy.from_config({"remoteProviders": {
        "openai": ["normal", "internal", "sensitive"]}})
    assert h.queue(policy=whole).run_once().outcome == "settled"


def test_request_classification_is_checked_after_leasing(h: Harness) -> None:
    h.step.add("s1", classification="normal")

    class Raised(FileStep):
        def request_for(self, source_id: str) -> ModelRequest | None:
            found = super().request_for(source_id)
            assert found is not None
            return ModelRequest(found.system, found.prompt, 10, "sensitive")

    queue = h.queue()
    queue.step = Raised(h.step.directory)
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "privacy")
    job = h.job()
    assert (job.state, job.failures, job.calls) == ("pending", 0, 0) and h.fake.requests == []


def test_transport_failures_back_off_and_then_cool_the_model(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [error(500), error(502)]
    queue = h.queue()
    first = queue.run_once()
    assert (first.outcome, first.reason) == ("failed", "overloaded")
    job = h.job()
    assert (job.state, job.failures, job.retry_at) == ("retrying", 1, T0 + 60_000)
    h.clock.now += 59_000
    assert queue.run_once().outcome == "idle"  # not due yet
    h.clock.now = T0 + 60_000
    second = queue.run_once()
    assert second.outcome == "failed" and h.job().retry_at == h.clock.now + 300_000
    cooldown = h.store.cooling("openai", "m1", h.clock.now)
    assert cooldown is not None and cooldown.until_ms == h.clock.now + 900_000
    assert h.job().retry_at == h.clock.now + 300_000  # the cooldown left retry_at alone


def test_rate_limit_cools_the_model_and_falls_back_in_the_same_attempt(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [error(429, headers={"retry-after": "90"})]
    attempt = h.queue(models=("m2",)).run_once()
    assert (attempt.outcome, attempt.model, attempt.calls) == ("settled", "m2", 2)
    assert [r["body"]["model"] for r in h.fake.requests] == ["m1", "m2"]
    assert h.job().failures == 0  # the route failed, not the source
    assert h.store.cooling("openai", "m1", T0).until_ms == T0 + 90_000  # type: ignore[union-attr]


def test_rate_limited_calls_spend_none_of_the_source_budget(h: Harness) -> None:
    # two 429s used up sourceModels = 2: the next attempt found the third model past the
    # budget and gave the source up for good (budget_spent, 0 failures)
    h.step.add("s1")
    h.fake.script = [error(429), error(429)]
    queue = h.queue(models=("m2", "m3"))
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.model, attempt.calls) == ("settled", "m3", 3)
    assert [r["body"]["model"] for r in h.fake.requests] == ["m1", "m2", "m3"]
    job = h.job()
    assert (job.state, job.calls, job.models) == ("settled", 1, (route_key("openai", "m3"),))
    assert [e for e in h.step.log() if e["op"] == "give_up"] == []


def test_a_model_past_the_source_budget_is_skipped_not_given_up(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [error(500)]  # an answer of sorts: m1 counts among the source's models
    queue = h.queue(models=("m2",), source_models=1)
    assert queue.run_once().outcome == "failed"
    h.store.cool_down("openai", "m1", T0 + 36_000_000, "bad_request", T0)
    h.clock.now = h.job().retry_at
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "source_models")
    job = h.job()
    assert (job.state, job.wait_reason, job.models) == (
        "pending", "source_models", (route_key("openai", "m1"),))
    assert len(h.fake.requests) == 1 and h.step.log() == []


def test_a_route_refused_at_reservation_is_no_call(h: Harness) -> None:
    """callsPerHour = 1: the 429 spent the hour, the fallback's reservation was refused;
    the attempt said "calls": 2 (and "was attempted") for the one request sent."""
    h.step.add("s1")
    h.fake.script = [error(429)]
    attempt = h.queue(models=("m2",), calls_per_hour=1).run_once()
    assert (attempt.outcome, attempt.reason, attempt.calls) == ("waiting", "hourly_cap", 1)
    assert len(h.fake.requests) == 1 and h.store.calls_since(0) == 1


def test_a_route_whose_window_cannot_hold_the_request_is_no_call(h: Harness) -> None:
    h.step.add("s1", "The user prefers tabs. " * 200)  # ~1,500 tokens
    queue = h.queue(models=("m2",))
    queue.limits = lambda r: ModelLimits(1100, 1000) if r.model == "m1" else None
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.model, attempt.calls) == ("settled", "m2", 1)
    assert [r["body"]["model"] for r in h.fake.requests] == ["m2"]
    assert h.store.calls_since(0) == 1


def test_auth_failure_cools_the_provider_and_skips_its_other_models(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [error(401)]
    attempt = h.queue(models=("m2",)).run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "cooldown")
    assert [r["body"]["model"] for r in h.fake.requests] == ["m1"]
    job = h.job()
    assert (job.state, job.failures, job.wait_reason) == ("pending", 0, "cooldown")
    assert h.queue(models=("m2",)).run_once().reason == "cooldown"  # still cooling
    assert len(h.fake.requests) == 1


def test_invalid_output_prefers_another_model_and_pauses_after_three(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [openai_ok("INVALID"), openai_ok("INVALID"), openai_ok("INVALID")]
    queue = h.queue(models=("m2",), source_calls=10, source_models=3)
    assert queue.run_once().outcome == "failed"
    assert h.job().output_failures == 1 and h.job().last_error == "invalid_output"
    h.clock.now = h.job().retry_at
    assert queue.run_once().model == "m2"  # an alternate model goes first
    h.clock.now = h.job().retry_at
    third = queue.run_once()
    assert third.outcome == "paused" and h.job().state == "paused"
    h.clock.now += 10 * 3_600_000
    assert queue.run_once().outcome == "idle"  # a paused source waits for `evolve`


def test_an_authority_refusal_pauses_at_once(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [openai_ok("REFUSE")]
    attempt = h.queue().run_once()
    assert (attempt.outcome, attempt.reason) == ("paused", "write_rejected")
    assert h.job().state == "paused"


class _Wrapped:
    def __init__(self, client: ModelClient, during: Any) -> None:
        self.client, self.during = client, during

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        reply = self.client.complete(request, route, timeout_s=timeout_s)
        self.during()
        return reply


def test_a_result_after_the_lease_ended_never_commits(h: Harness) -> None:
    h.step.add("s1")

    def lease_runs_out() -> None:
        h.clock.now += 151_000

    attempt = h.queue(wrap=lambda c: _Wrapped(c, lease_runs_out)).run_once()
    assert attempt.outcome == "late"
    assert h.step.log() == []  # never applied
    assert h.store.recent_calls(1)[0]["outcome"] == "late"
    assert h.queue().run_once().outcome == "idle"  # the next check sweeps the lease
    job = h.job()
    assert (job.state, job.last_error, job.failures) == ("retrying", "interrupted", 1)
    assert job.retry_at == h.clock.now + 60_000


def test_an_old_owners_late_result_is_ignored_after_someone_else_took_over(
        h: Harness) -> None:
    h.step.add("s1")
    second = h.queue()

    def taken_over() -> None:
        h.clock.now += 151_000
        assert second.run_once("s1").outcome == "settled"

    first = h.queue(wrap=lambda c: _Wrapped(c, taken_over))
    assert first.run_once().outcome == "late"
    applies = [r for r in h.step.log() if r["op"] == "apply"]
    assert len(applies) == 1  # only the new owner's attempt was applied


def test_cancellation_returns_the_job_without_a_failure(h: Harness) -> None:
    h.step.add("s1")
    holder: list[EvolutionQueue] = []
    queue = h.queue(wrap=lambda c: _Wrapped(c, lambda: holder[0].cancel.set()))
    holder.append(queue)
    assert queue.run_once().outcome == "cancelled"
    job = h.job()
    assert (job.state, job.failures, job.retry_at, job.owner) == ("pending", 0, 0, None)
    assert h.step.log() == []


def test_forced_attempt_overrides_delay_but_never_reruns_settled(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [error(500)]
    queue = h.queue()
    assert queue.run_once().outcome == "failed"
    assert queue.run_once().outcome == "idle"
    forced = queue.run_once("s1")
    assert forced.outcome == "settled"
    assert queue.run_once("s1").outcome == "done"
    assert queue.run_once("nope").outcome == "unknown_source"
    assert len(h.fake.requests) == 2


def test_the_shared_hourly_ceiling_holds_even_when_forced(h: Harness) -> None:
    h.step.add("s1")
    h.step.add("s2", captured_at="2026-12-01T11:00:00.000Z")
    queue = h.queue(calls_per_hour=1)
    assert queue.run_once().outcome == "settled"
    waiting = queue.run_once()
    assert (waiting.outcome, waiting.reason) == ("waiting", "hourly_cap")
    assert queue.run_once("s2").reason == "hourly_cap"
    assert h.job("s2").attempt == 0 and len(h.fake.requests) == 1
    h.clock.now += 3_600_001
    assert queue.run_once().outcome == "settled"


def test_spent_source_budget_gives_up_through_the_step(h: Harness) -> None:
    h.step.add("s1")
    h.fake.script = [error(500)]
    queue = h.queue(source_calls=1)
    assert queue.run_once().outcome == "failed"
    h.clock.now = h.job().retry_at
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.reason) == ("given_up", "budget_spent")
    assert h.job().state == "given_up"
    assert h.step.log()[-1] == {"op": "give_up", "source": "s1", "code": "budget_spent"}


def test_unknown_prices_fail_closed_under_a_daily_ceiling(h: Harness) -> None:
    h.step.add("s1")
    attempt = h.queue(daily_usd=1.0).run_once()
    assert (attempt.outcome, attempt.reason) == ("waiting", "price_unknown")
    assert h.fake.requests == []


def test_forced_source_by_unique_prefix(h: Harness) -> None:
    h.step.add("abcd-0001")
    h.step.add("abcd-0002", captured_at="2026-12-01T11:00:00.000Z")
    queue = h.queue()
    queue.reconcile()
    assert queue.run_once("abcd").outcome == "unknown_source"  # ambiguous
    assert queue.run_once("abc").outcome == "unknown_source"  # too short
    attempt = queue.run_once("abcd-0002")
    assert (attempt.outcome, attempt.source_id) == ("settled", "abcd-0002")
    assert queue.run_once("abcd-000").outcome == "unknown_source"  # still two matches
    assert h.job("abcd-0001").state == "pending"


def test_spent_time_budget_gives_up_but_a_forced_attempt_gets_a_fresh_deadline(
        h: Harness) -> None:
    h.step.add("s1")
    queue = h.queue()
    queue.reconcile()
    with h.store.write() as db:  # an earlier process spent the source's 300 s
        db.execute("UPDATE jobs SET spent_ms = 300000, state = 'retrying', failures = 1")
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.reason) == ("given_up", "budget_spent")
    assert h.fake.requests == []
    h.step.add("s2", captured_at="2026-12-01T11:00:00.000Z")
    queue.reconcile()
    with h.store.write() as db:
        db.execute("UPDATE jobs SET spent_ms = 300000 WHERE source_id = 's2'")
    assert queue.run_once("s2").outcome == "settled"


class _SlowApply(FileStep):
    """The step double, but applying takes the clock past the lease (a stalled disk)."""

    def __init__(self, directory: Path, clock: Clock, outcome: str) -> None:
        super().__init__(directory)
        self.clock, self.outcome = clock, outcome

    def apply(self, source_id: str, reply: ModelReply, at: str,  # type: ignore[no-untyped-def]
              *, secrets: frozenset[str] = frozenset()):
        self.clock.now += 151_000
        return super().apply(source_id, ModelReply(self.outcome, reply.provider, reply.model),
                             at)


@pytest.mark.parametrize("reply", ["ok", "REFUSE", "INVALID"])
def test_a_lease_lost_while_applying_has_no_say_over_the_job(h: Harness, reply: str) -> None:
    h.step = _SlowApply(h.step.directory, h.clock, reply)
    h.step.add("s1")
    attempt = h.queue().run_once()
    assert attempt.outcome == "late"
    job = h.job()
    # neither settled, failed nor paused by the worker that lost its lease
    assert (job.state, job.failures, job.output_failures) == ("leased", 0, 0)
    h.step = FileStep(h.step.directory)
    assert h.queue().run_once().outcome == "idle"  # the sweep: an interrupted failure
    job = h.job()
    assert (job.state, job.last_error, job.failures) == ("retrying", "interrupted", 1)
    h.clock.now = job.retry_at
    again = h.queue().run_once()
    if reply == "ok":  # the step had settled the source: no second call, no_change
        assert (again.outcome, again.reason, len(h.fake.requests)) == (
            "settled", "no_change", 1)
    else:  # the late refusal or contract break was not the job's fate: it is retried
        assert (again.outcome, again.reason, len(h.fake.requests)) == (
            "settled", "applied", 2)
    assert h.job().state == "settled"


def test_a_step_that_raises_on_a_reply_fails_the_attempt_and_frees_the_lease(
        h: Harness) -> None:
    """A defect met while applying a reply (a lone surrogate in it raised in the
    contract) escaped the queue: the lease ran out, the attempt was recorded as
    interrupted, and each retry paid for another call that crashed the same way."""
    h.step.add("s1")

    class Raising(FileStep):
        def apply(self, source_id: str, reply: ModelReply, at: str, *,
                  secrets: frozenset[str] = frozenset()) -> Any:
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    queue = h.queue()
    queue.step = Raising(h.step.directory)
    attempt = queue.run_once()
    assert (attempt.outcome, attempt.reason) == ("failed", "unknown")
    job = h.job()
    assert job.state != "leased" and job.failures == 1 and job.calls == 1


def test_a_provider_token_count_past_belief_is_not_counted() -> None:
    from waymarks.models.usage import MAX_TOKENS_COUNTED
    from waymarks.models.usage import token_count as count

    assert count(2**63) == count(10**30) == count(-1) == count(True) == 0
    assert count(1234) == 1234 and count(MAX_TOKENS_COUNTED) == MAX_TOKENS_COUNTED
