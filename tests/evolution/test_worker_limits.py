"""The worker with the real step (the evolution ledger and projection), real evolution.db
and a real loopback provider:

- item 57: the origin generation is checked before a reply is applied. A memory-changing
  event in the source's origin while the model works (a claim forgotten) makes the reply
  stale: nothing of it is written, the call is recorded ``stale``, and one fresh request
  (a bounded re-read) is made; a change that is not memory-changing (feedback) is not;
- item 53: the request is shaped by the model's window and output limit: ``maxTokens ==
  contextWindow`` still sends a request (F3), with no ceiling; a declared ``maxTokens`` below
  the window is the ceiling; an input that cannot fit is not sent and the model is cooled
  down."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.core.evolution.limits import (
    RESERVED_OUTPUT_TOKENS,
    ModelLimits,
    estimate_tokens,
    input_budget,
    output_ceiling,
    shape_request,
)
from waymarks.core.model_port import ModelClient, ModelReply, ModelRequest, Route
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for
from waymarks.service import evolution_edits
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.store.jobs import JobStore

NOW = 1_800_000_000_000
ORIGIN = "/work/project"
AT = "2026-12-01T10:00:00.000Z"
REPLY = json.dumps({"claims": [{"kind": "preference", "content": "The user prefers tabs"}]})


def test_limits_follow_the_model() -> None:
    request = ModelRequest("system", "x" * 300, 4096, "normal")
    same = ModelLimits(context_window=8_000, max_tokens=8_000)  # F3: window == maxTokens
    assert output_ceiling(same) is None and input_budget(same) == 8_000 - RESERVED_OUTPUT_TOKENS
    assert input_budget(same) < 0 and shape_request(request, same) is None  # cannot fit
    wide = ModelLimits(context_window=128_000, max_tokens=128_000)
    assert shape_request(request, wide) == ModelRequest("system", "x" * 300, 0, "normal")
    capped = ModelLimits(context_window=200_000, max_tokens=8_192)
    assert shape_request(request, capped).max_output_tokens == 8_192  # type: ignore[union-attr]
    assert shape_request(request, ModelLimits()) .max_output_tokens == 0  # type: ignore[union-attr]
    assert ModelLimits.from_host(None, "12") is None
    assert ModelLimits.from_host(128_000.0, True) == ModelLimits(128_000, None)
    assert estimate_tokens("abcdef") == 2 and estimate_tokens("记住偏好") == 4
    assert estimate_tokens("记住 tabs") == 2 + 2  # two CJK, then 5 bytes -> 2


class Probe:
    """Wraps the real HTTP client; runs ``during`` while the first call is in flight."""

    def __init__(self, inner: ModelClient, during: object) -> None:
        self.inner = inner
        self.during = during
        self.calls = 0

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        self.calls += 1
        if self.calls == 1 and self.during is not None:
            self.during()  # type: ignore[operator]
        return self.inner.complete(request, route, timeout_s=timeout_s)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Path, FakeProvider]]:
    with FakeProvider(default=openai_ok(REPLY)) as fake:
        yield tmp_path / "home", fake


def _queue(home: Path, fake: FakeProvider, step: Evolution, during: object = None,
           limits: ModelLimits | None = None) -> tuple[EvolutionQueue, Probe]:
    route = RouteConfig("openai", "openai", "m1", fake.origin + "/v1")
    probe = Probe(client_for("openai", route.endpoint, None), during)
    queue = EvolutionQueue(JobStore.open(home), step, EvolutionConfig(primary=route),
                           ProviderPolicy.from_config({}), lambda r: probe,
                           now_ms=lambda: NOW, jitter=lambda: 0.5)
    queue.limits = lambda r: limits
    return queue, probe


def _seed(home: Path) -> tuple[str, str]:
    """A learned claim in ORIGIN, and a new source that mentions it; (source, claim)."""
    with Evolution(home) as evo:
        first = evo.capture(ORIGIN, "statement", "Remember: the user prefers spaces",
                            session="s", key="a")
        assert first is not None
        reply = json.dumps({"claims": [{"kind": "preference",
                                        "content": "The user prefers spaces"}]})
        assert evo.apply(first.source_id, ModelReply(reply, "openai", "m0"), AT).code == \
            "applied"
        [claim] = evo.claims(["provisional"])
        source = evo.capture(ORIGIN, "statement", "Remember: the user prefers tabs, not "
                             "spaces", session="s", key="b")
        assert source is not None
    return source.source_id, claim.id


def test_a_memory_change_during_the_call_makes_the_reply_stale(
        world: tuple[Path, FakeProvider]) -> None:
    home, fake = world
    source, claim = _seed(home)

    def forget_elsewhere() -> None:  # another process forgets a claim of the same origin
        with Evolution(home) as other:
            assert evolution_edits.forget(other, claim).ok

    with Evolution(home) as step:
        queue, probe = _queue(home, fake, step, forget_elsewhere)
        attempt = queue.run_once(source)
        assert (attempt.outcome, attempt.reason, attempt.calls) == ("settled", "applied", 2)
        assert probe.calls == 2 and len(fake.requests) == 2
        outcomes = [c["outcome"] for c in queue.store.recent_calls(5)]
        assert outcomes == ["ok", "stale"]  # newest first
        # the fresh request no longer offers the forgotten claim
        assert claim in fake.requests[0]["body"]["messages"][1]["content"]
        assert claim not in fake.requests[1]["body"]["messages"][1]["content"]
        assert [c.content for c in step.claims(["provisional"])] == ["The user prefers tabs"]
        queue.close()


def test_feedback_during_the_call_is_no_memory_change_but_still_makes_the_reply_stale(
        world: tuple[Path, FakeProvider]) -> None:
    """Feedback does not move the origin's generation (item 57: only memory-changing
    events count), yet it invalidates the write in flight (item 36): one bounded re-read,
    against the claim as it now is, then the reply applies."""
    home, fake = world
    source, claim = _seed(home)
    generations: list[int] = []

    def mark_useful() -> None:
        with Evolution(home) as other:
            generations.append(other.store.origin_generation(ORIGIN))
            assert evolution_edits.feedback(other, claim, "useful").ok
            generations.append(other.store.origin_generation(ORIGIN))

    with Evolution(home) as step:
        queue, probe = _queue(home, fake, step, mark_useful)
        attempt = queue.run_once(source)
        assert generations[0] == generations[1]
        assert (attempt.outcome, attempt.reason, attempt.calls) == ("settled", "applied", 2)
        assert probe.calls == 2
        assert [c["outcome"] for c in queue.store.recent_calls(5)] == ["ok", "stale"]
        queue.close()


def test_a_reply_stale_twice_is_released_without_a_failure(
        world: tuple[Path, FakeProvider]) -> None:
    home, fake = world
    source, _claim = _seed(home)
    texts = iter(["Remember: one more preference about tabs", "Remember: and another one"])

    class Busy(Probe):
        def complete(self, request: ModelRequest, route: Route, *,
                     timeout_s: float) -> ModelReply:
            with Evolution(home) as other:  # every call races a new claim in the origin
                done = other.capture(ORIGIN, "statement", next(texts), session="t",
                                     key=str(self.calls))
                assert done is not None
                other.apply(done.source_id, ModelReply(json.dumps({"claims": [{
                    "kind": "fact", "content": f"Fact number {self.calls}"}]}), "o", "m"),
                    AT)
            return super().complete(request, route, timeout_s=timeout_s)

    with Evolution(home) as step:
        queue, _ = _queue(home, fake, step)
        busy = Busy(client_for("openai", fake.origin + "/v1", None), None)
        queue.clients = lambda r: busy
        attempt = queue.run_once(source)
        assert (attempt.outcome, attempt.reason) == ("waiting", "stale")
        job = queue.store.job(source)
        assert job is not None and (job.state, job.failures) == ("pending", 0)
        assert len(fake.requests) == 2
        queue.close()


def test_the_model_window_shapes_the_request(world: tuple[Path, FakeProvider]) -> None:
    home, fake = world
    source, _claim = _seed(home)
    with Evolution(home) as step:
        # maxTokens == contextWindow (F3): the request is sent, with no output ceiling
        queue, _ = _queue(home, fake, step, limits=ModelLimits(131_072, 131_072))
        assert queue.run_once(source).outcome == "settled"
        assert "max_tokens" not in fake.requests[-1]["body"]
        queue.close()
    with Evolution(home) as step:
        later = step.capture(ORIGIN, "statement", "Remember: the user prefers short names",
                             session="s", key="c")
        assert later is not None
        queue, _ = _queue(home, fake, step, limits=ModelLimits(200_000, 8_192))
        assert queue.run_once(later.source_id).outcome == "settled"
        assert fake.requests[-1]["body"]["max_tokens"] == 8_192
        queue.close()


def test_a_request_the_window_cannot_hold_is_not_sent(
        world: tuple[Path, FakeProvider]) -> None:
    home, fake = world
    source, _claim = _seed(home)
    with Evolution(home) as step:
        queue, probe = _queue(home, fake, step, limits=ModelLimits(4_000, None))
        attempt = queue.run_once(source)
        assert (attempt.outcome, attempt.reason) == ("waiting", "cooldown")
        assert probe.calls == 0 and fake.requests == []
        cooling = queue.store.cooling("openai", "m1", NOW)
        assert cooling is not None and cooling.reason == "bad_request"
        job = queue.store.job(source)
        assert job is not None and (job.state, job.failures, job.calls) == ("pending", 0, 0)
        queue.close()
