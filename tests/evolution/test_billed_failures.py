"""A call the provider answered, and so billed, counts against the daily USD ceiling
(``dailyEstimatedUsd``) even when it fails: a reply cut at its max tokens, a timeout, a reply
after its lease. Only a refusal without an answer (a 429, a spent quota) costs nothing. Real
SQLite, a real loopback provider, the file-backed step double."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.fake_provider import Answer, FakeProvider, anthropic_ok, error, openai_ok
from tests.evolution.step_double import FileStep
from tests.evolution.test_worker import _Wrapped
from tests.evolution.test_worker_routing import T0, _config
from waymarks.core.model_port import ModelClient
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service.evolution_config import RouteConfig, load_evolution_config
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore

#: 1000 USD per million tokens, a ceiling of a dollar: a call is reserved at its worst case
#: (its input and 512 output tokens, about $0.53), which fits once; what one call cost then
#: leaves no room for another's worst case
PRICED = ('inputUsdPerMTok = 1000.0\noutputUsdPerMTok = 1000.0\n'
          'dailyEstimatedUsd = 1.0\n')


def _queue(tmp_path: Path, fake: FakeProvider, *, api: str = "openai", extra: str = "",
           during: Callable[[], None] | None = None,
           now: Callable[[], int] = lambda: T0) -> EvolutionQueue:
    """A queue over three captured sources and one priced route to ``fake``."""
    home = tmp_path / "home"
    endpoint = fake.origin + ("/v1" if api == "openai" else "")
    _config(home, f'[evolution]\nprovider = "gw"\napi = "{api}"\nendpoint = "{endpoint}"\n'
                  f'model = "m"\n{PRICED}{extra}')
    step = FileStep(tmp_path / "step")
    for n in range(3):
        step.add(f"s{n}", captured_at=f"2026-12-01T1{n}:00:00.000Z")

    def clients(route: RouteConfig) -> ModelClient:
        client = client_for(route.api, route.endpoint, route.key_env)
        return _Wrapped(client, during) if during is not None else client

    return EvolutionQueue(JobStore.open(home), step, load_evolution_config(home),
                          ProviderPolicy.from_config({}), clients, now_ms=now,
                          jitter=lambda: 0.5)


def _billed_once(queue: EvolutionQueue, fake: FakeProvider, outcome: str) -> dict:
    """One call sent and recorded as ``outcome``; every other source then waits on the
    daily ceiling, nothing more sent."""
    try:
        first = queue.run_once()
        rest = [queue.run_once() for _ in range(2)]
        call = queue.store.recent_calls(5)
    finally:
        queue.close()
    assert len(call) == 1 and call[0]["outcome"] == outcome, (first, call)
    assert [(a.outcome, a.reason) for a in rest] == [("waiting", "daily_budget")] * 2
    assert len(fake.requests) == 1, f"{len(fake.requests)} billed requests sent"
    return call[0]


@pytest.mark.parametrize("cut", [
    openai_ok('{"claims": [', finish="length", usage=(5000, 512)),
    anthropic_ok('{"claims": [', stop="max_tokens", usage=(5000, 512))],
    ids=["openai-length", "anthropic-max_tokens"])
def test_a_billed_reply_cut_at_max_tokens_counts_its_reported_usage(
        tmp_path: Path, cut: Answer) -> None:
    api = "openai" if "choices" in cut[1] else "anthropic"
    with FakeProvider(default=cut) as fake:
        call = _billed_once(_queue(tmp_path, fake, api=api), fake, "invalid_output")
    assert (call["inputTokens"], call["outputTokens"]) == (5000, 512)
    assert call["estimatedUsd"] == pytest.approx((5000 + 512) * 1000 / 1e6)


def test_a_cut_reply_without_usage_is_estimated_at_its_output_ceiling(
        tmp_path: Path) -> None:
    cut = openai_ok('{"claims": [', finish="length")
    del cut[1]["usage"]
    with FakeProvider(default=cut) as fake:
        call = _billed_once(_queue(tmp_path, fake), fake, "invalid_output")
    # the step asks for 512 output tokens at most: the estimate takes all of them
    assert call["estimatedUsd"] > 512 * 1000 / 1e6


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_call_that_timed_out_is_estimated(tmp_path: Path) -> None:
    slow = openai_ok('{"claims": []}')
    with FakeProvider(default=(*slow[:3], 2.0)) as fake:
        call = _billed_once(_queue(tmp_path, fake, extra="timeoutMs = 1000\n"), fake,
                            "timeout")
    assert call["estimatedUsd"] > 512 * 1000 / 1e6


def test_a_reply_after_its_lease_counts_its_usage(tmp_path: Path) -> None:
    clock = [T0]

    def lease_runs_out() -> None:
        clock[0] += 151_000

    with FakeProvider(default=openai_ok('{"claims": []}', usage=(5000, 512))) as fake:
        queue = _queue(tmp_path, fake, during=lease_runs_out, now=lambda: clock[0])
        try:
            assert queue.run_once().outcome == "late"
            call = queue.store.recent_calls(1)[0]
        finally:
            queue.close()
    assert call["outcome"] == "late"
    assert call["estimatedUsd"] == pytest.approx((5000 + 512) * 1000 / 1e6)


@pytest.mark.parametrize(("status", "outcome"), [
    (429, "rate_limited"), (500, "overloaded"), (400, "bad_request"), (408, "timeout")])
def test_a_refusal_without_an_answer_costs_nothing(tmp_path: Path, status: int,
                                                   outcome: str) -> None:
    """An error status serves nothing and bills nothing: a provider answering 500s did
    not spend the daily ceiling on estimates (a timeout of our own still does, above)."""
    with FakeProvider([error(status)]) as fake:
        queue = _queue(tmp_path, fake)
        try:
            queue.run_once()
            call = queue.store.recent_calls(1)[0]
        finally:
            queue.close()
    assert (call["outcome"], call["estimatedUsd"]) == (outcome, None)
