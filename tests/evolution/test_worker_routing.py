"""Fallback routing by priority and price (EVOLUTION item 64) and cost accounting with
recovery notices (item 66), on real config files, real evolution.db and two real loopback
providers: the primary is rate limited, the attempt falls back to the cheapest backup in
the same attempt, the call records usage, estimated and reported cost and reasoning
tokens, and the fallback is noticed once per route pair per hour (across queues sharing
the file)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, error, openai_ok
from tests.evolution.step_double import FileStep
from waymarks.core.model_port import ModelClient
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service.evolution_config import (
    EvolutionConfigError,
    RouteConfig,
    load_evolution_config,
)
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.service.evolution_status import evolution_status
from waymarks.store.job_rows import route_key
from waymarks.store.jobs import JobStore

T0 = 1_800_000_000_000


def _config(home: Path, body: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(body)


def test_backups_are_ordered_by_priority_then_price_then_reasoning(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _config(home, """
[evolution]
provider = "local"
endpoint = "http://127.0.0.1:9/v1"
model = "primary"
fallbackModels = ["primary-small"]
[[evolution.backups]]
provider = "dear"
endpoint = "http://127.0.0.1:9/v1"
model = "d"
inputUsdPerMTok = 3.0
outputUsdPerMTok = 15.0
[[evolution.backups]]
provider = "unpriced"
endpoint = "http://127.0.0.1:9/v1"
model = "u"
[[evolution.backups]]
provider = "cheap-thinker"
endpoint = "http://127.0.0.1:9/v1"
model = "t"
inputUsdPerMTok = 0.1
outputUsdPerMTok = 0.4
reasoning = true
[[evolution.backups]]
provider = "cheap"
endpoint = "http://127.0.0.1:9/v1"
model = "c"
inputUsdPerMTok = 0.1
outputUsdPerMTok = 0.4
[[evolution.backups]]
provider = "chosen"
endpoint = "http://127.0.0.1:9/v1"
model = "x"
priority = 1
inputUsdPerMTok = 9.0
outputUsdPerMTok = 9.0
""")
    routes = load_evolution_config(home).routes()
    assert [(r.provider, r.model) for r in routes] == [
        ("local", "primary"), ("local", "primary-small"),  # active first, listed same-provider
        ("chosen", "x"),  # explicit priority
        ("cheap", "c"), ("cheap-thinker", "t"),  # price, then non-reasoning first
        ("dear", "d"), ("unpriced", "u")]  # unknown price last
    _config(home, '[evolution]\nprovider = "a"\nendpoint = "http://x/v1"\nmodel = "m"\n'
                  'priority = "sk-pasted-9f8e"\n')
    with pytest.raises(EvolutionConfigError, match="priority must be a whole number") as err:
        load_evolution_config(home)
    assert "sk-pasted" not in str(err.value)


@pytest.fixture
def providers() -> Iterator[tuple[FakeProvider, FakeProvider]]:
    cost_reply = openai_ok('{"claims": []}', usage=(1000, 200))
    cost_reply[1]["usage"].update({"cost": 0.0042,
                                   "completion_tokens_details": {"reasoning_tokens": 50}})
    with FakeProvider(default=error(429, headers={"retry-after": "1"})) as limited, \
            FakeProvider(default=cost_reply) as backup:
        yield limited, backup


def _queue(home: Path, limited: FakeProvider, backup: FakeProvider, step: FileStep,
           clock: list[int]) -> EvolutionQueue:
    _config(home, f"""
[evolution]
provider = "primary"
endpoint = "{limited.origin}/v1"
model = "p1"
[[evolution.backups]]
provider = "dear"
endpoint = "{limited.origin}/v1"
model = "d1"
inputUsdPerMTok = 5.0
outputUsdPerMTok = 25.0
[[evolution.backups]]
provider = "cheap"
endpoint = "{backup.origin}/v1"
model = "c1"
inputUsdPerMTok = 0.5
outputUsdPerMTok = 1.5
""")
    config = load_evolution_config(home)

    def clients(r: RouteConfig) -> ModelClient:
        return client_for(r.api, r.endpoint, r.key_env)

    return EvolutionQueue(JobStore.open(home), step, config, ProviderPolicy.from_config({}),
                          clients, now_ms=lambda: clock[0], jitter=lambda: 0.5)


@pytest.mark.slow
def test_a_fallback_is_accounted_and_noticed_once_per_pair_per_hour(
        tmp_path: Path, providers: tuple[FakeProvider, FakeProvider]) -> None:
    limited, backup = providers
    home = tmp_path / "home"
    step = FileStep(tmp_path / "step")
    for n in range(3):
        step.add(f"s{n}")
    clock = [T0]
    queue = _queue(home, limited, backup, step, clock)
    first = queue.run_once()
    assert (first.outcome, first.provider, first.model, first.calls) == (
        "settled", "cheap", "c1", 2)  # the cheaper backup, not the dear one
    assert first.notice == {"from": "primary/p1", "to": "cheap/c1", "reason": "rate_limited"}
    assert first.to_json()["notice"] == first.notice
    call = queue.store.recent_calls(1)[0]
    assert (call["provider"], call["outcome"], call["inputTokens"], call["outputTokens"]) == (
        "cheap", "ok", 1000, 200)
    assert call["reportedUsd"] == pytest.approx(0.0042)
    assert call["estimatedUsd"] == pytest.approx((1000 * 0.5 + 200 * 1.5) / 1e6)
    assert call["reasoningTokens"] == 50
    # another process, two minutes later (the rate limit has cooled off): the same fallback
    # is not news again within the hour
    clock[0] = T0 + 120_000
    other = _queue(home, limited, backup, step, clock)
    second = other.run_once()
    assert (second.outcome, second.model, second.notice) == ("settled", "c1", None)
    clock[0] = T0 + 3_700_000
    third = queue.run_once()
    assert third.outcome == "settled" and third.notice is not None
    data = evolution_status(home, load_evolution_config(home), ProviderPolicy.from_config({}),
                            clock[0], available=lambda r: True, learning=True)
    assert [(n["from"], n["to"], n["reason"]) for n in data["notices"]] == [
        ("primary/p1", "cheap/c1", "rate_limited")] * 2
    assert len(limited.requests) == 3 and len(backup.requests) == 3
    queue.close()
    other.close()


def test_a_trusted_projects_fallback_off_holds_for_a_queue_run_elsewhere(
        tmp_path: Path, providers: tuple[FakeProvider, FakeProvider]) -> None:
    """A trusted project's ``crossProviderFallback = false`` was read only by a queue run
    from that project: ``evolve`` run from another directory sent the project's text to a
    backup provider. Each job is now attempted under its origin's configuration too."""
    from waymarks.service.evolution_wiring import open_queue
    from waymarks.service.trust import TrustStore

    limited, backup = providers
    home, strict, other = tmp_path / "home", tmp_path / "strict", tmp_path / "other"
    for directory in (strict, other):
        (directory / ".waymarks").mkdir(parents=True)
    (strict / ".waymarks" / "config.toml").write_text(
        "[evolution]\ncrossProviderFallback = false\n")
    _config(home, f'[evolution]\nlearn = true\nprovider = "primary"\n'
                  f'endpoint = "{limited.origin}/v1"\nmodel = "p1"\n'
                  f'[[evolution.backups]]\nprovider = "cheap"\n'
                  f'endpoint = "{backup.origin}/v1"\nmodel = "c1"\n')
    TrustStore(home).trust(str(strict))
    step = FileStep(tmp_path / "step")
    step.add("s-strict", origin=str(strict), captured_at="2026-01-01T00:00:00.000Z")
    step.add("s-other", origin=str(other), captured_at="2026-01-02T00:00:00.000Z")
    queue = open_queue(home, step, load_evolution_config(home),  # the home's: run elsewhere
                       ProviderPolicy.from_config({}),
                       lambda r: client_for(r.api, r.endpoint, r.key_env), lambda r: True)
    try:
        first = queue.run_once("s-strict")
        assert (first.outcome, first.reason) == ("waiting", "cooldown")
        assert len(limited.requests) == 1 and backup.requests == []
        second = queue.run_once("s-other")  # a project without the switch: the backup
        assert (second.outcome, second.provider) == ("settled", "cheap")
        assert queue.config.cross_provider_fallback  # the queue's own stays as it was
    finally:
        queue.close()
    assert len(backup.requests) == 1 and step.settled("s-other")
    assert not step.settled("s-strict")


def test_a_backup_serving_the_same_model_name_is_another_route(
        tmp_path: Path, providers: tuple[FakeProvider, FakeProvider]) -> None:
    """The attempt kept the models it had tried by name alone: a backup provider serving
    the primary's model name (vLLM behind Ollama's qwen2.5:7b) was skipped as tried, and
    the source waited as `cooldown` while that route was not cooling."""
    limited, backup = providers
    home = tmp_path / "home"
    _config(home, f'[evolution]\nprovider = "ollama"\nendpoint = "{limited.origin}/v1"\n'
                  f'model = "qwen2.5:7b"\n[[evolution.backups]]\nprovider = "vllm"\n'
                  f'endpoint = "{backup.origin}/v1"\nmodel = "qwen2.5:7b"\n')
    step = FileStep(tmp_path / "step")
    step.add("s1")
    queue = EvolutionQueue(JobStore.open(home), step, load_evolution_config(home),
                           ProviderPolicy.from_config({}),
                           lambda r: client_for(r.api, r.endpoint, r.key_env),
                           now_ms=lambda: T0, jitter=lambda: 0.5)
    try:
        attempt = queue.run_once()
        assert (attempt.outcome, attempt.provider, attempt.model, attempt.calls) == (
            "settled", "vllm", "qwen2.5:7b", 2)
        job = queue.store.job("s1")
        assert job is not None and job.models == (route_key("vllm", "qwen2.5:7b"),)
    finally:
        queue.close()
    assert len(limited.requests) == 1 and len(backup.requests) == 1


def test_a_reply_without_usage_is_estimated_so_the_daily_ceiling_holds(
        tmp_path: Path) -> None:
    """A provider that reports no usage cost nothing: with a ceiling at 1000 USD per
    million tokens every call ran and the 24 h estimate stayed 0.0. (The ceiling fits one
    call's worst case, reserved before it is sent: about $0.53.)"""
    bare = openai_ok('{"claims": []}')
    del bare[1]["usage"]
    with FakeProvider(default=bare) as fake:
        home = tmp_path / "home"
        _config(home, f'[evolution]\nprovider = "gw"\nendpoint = "{fake.origin}/v1"\n'
                      'model = "m"\ninputUsdPerMTok = 1000.0\noutputUsdPerMTok = 1000.0\n'
                      'dailyEstimatedUsd = 1.0\n')
        step = FileStep(tmp_path / "step")
        step.add("s1")
        step.add("s2", captured_at="2026-12-01T11:00:00.000Z")
        queue = EvolutionQueue(JobStore.open(home), step, load_evolution_config(home),
                               ProviderPolicy.from_config({}),
                               lambda r: client_for(r.api, r.endpoint, r.key_env),
                               now_ms=lambda: T0, jitter=lambda: 0.5)
        try:
            assert queue.run_once().outcome == "settled"
            call = queue.store.recent_calls(1)[0]
            # the output as its ceiling (the step asks for 512 tokens), the input estimated
            assert (call["inputTokens"], call["outputTokens"]) == (0, 0)  # as reported
            assert call["estimatedUsd"] > 512 * 1000 / 1e6
            second = queue.run_once()
            assert (second.outcome, second.reason) == ("waiting", "daily_budget")
        finally:
            queue.close()
        assert len(fake.requests) == 1


def test_a_trusted_origins_invalid_config_waits_as_such_and_names_the_file(
        tmp_path: Path, providers: tuple[FakeProvider, FakeProvider]) -> None:
    """Failing closed was right, but the reason said "privacy" (the provider policy) and
    nothing named the file or the key to fix."""
    from waymarks.service.evolution_wiring import open_queue
    from waymarks.service.trust import TrustStore

    _limited, backup = providers
    home, broken = tmp_path / "home", tmp_path / "broken"
    (broken / ".waymarks").mkdir(parents=True)
    (broken / ".waymarks" / "config.toml").write_text('[evolution]\ncallsPerHour = "5"\n')
    _config(home, f'[evolution]\nlearn = true\nprovider = "cheap"\n'
                  f'endpoint = "{backup.origin}/v1"\nmodel = "c1"\n')
    TrustStore(home).trust(str(broken))
    step = FileStep(tmp_path / "step")
    step.add("s1", origin=str(broken))
    queue = open_queue(home, step, load_evolution_config(home), ProviderPolicy.from_config({}),
                       lambda r: client_for(r.api, r.endpoint, r.key_env), lambda r: True)
    try:
        attempt = queue.run_once()
    finally:
        queue.close()
    file = str(broken / ".waymarks" / "config.toml")
    assert (attempt.outcome, attempt.reason, attempt.calls) == (
        "waiting", "origin_config_invalid", 0)
    assert attempt.to_json()["file"] == file
    assert backup.requests == [] and not step.settled("s1")
    data = evolution_status(home, load_evolution_config(home), ProviderPolicy.from_config({}),
                            T0, available=lambda r: True, learning=True)
    [waiting] = data["waiting"]
    assert (waiting["reason"], waiting["jobs"], waiting["files"]) == (
        "origin_config_invalid", 1, [file])
