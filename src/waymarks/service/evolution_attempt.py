"""What one check of the evolution queue did (:class:`Attempt`) and the small pure pieces of
an attempt: split from :mod:`waymarks.service.evolution_queue` so the worker stays one idea
(leases, reservations, calls) and under the size the project keeps modules to.

Nothing here touches the job store, a clock or the network."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waymarks.core.evolution.limits import RESERVED_OUTPUT_TOKENS, estimate_tokens
from waymarks.core.evolution_policy import NO_ANSWER_CODES
from waymarks.core.model_port import ModelError, ModelReply, ModelRequest
from waymarks.core.records import replace
from waymarks.service.evolution_config import RouteConfig
from waymarks.store.job_rows import route_entry
from waymarks.store.jobs import Job


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one check did. ``outcome``: ``idle`` (nothing due), ``waiting`` (``reason``
    says why nothing was attempted), ``settled``, ``failed``, ``paused``, ``given_up``,
    ``cancelled``, ``late`` (a result arrived after its lease: ignored), ``busy`` (another
    process holds it), ``done`` (``evolve`` on a settled source), ``unknown_source``,
    ``bad_row`` (its job row is damaged: left out; ``evolution status`` names it)."""

    outcome: str
    source_id: str | None = None
    reason: str | None = None
    provider: str | None = None
    model: str | None = None
    calls: int = 0
    #: a fallback from one route to another, when it is news (once per pair per hour)
    notice: dict[str, str] | None = None
    #: the file to fix, for a source waiting on one (``origin_config_invalid``)
    file: str | None = None
    #: for a settled reply: how many claims it wrote (``refused_only`` wrote none)
    written: int | None = None

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "outcome": self.outcome, "sourceId": self.source_id, "reason": self.reason,
            "provider": self.provider, "model": self.model, "calls": self.calls}
        if self.notice is not None:
            found["notice"] = self.notice
        if self.file is not None:
            found["file"] = self.file
        if self.written is not None:
            found["written"] = self.written
        return found


def with_calls(attempt: Attempt, calls: int, outcome: str | None = None,
               reason: str | None = None, notice: dict[str, str] | None = None) -> Attempt:
    """``attempt`` reporting at least ``calls`` calls (and another outcome, reason or
    notice when given)."""
    return replace(attempt, outcome=outcome or attempt.outcome,
                   reason=reason or attempt.reason, calls=max(calls, attempt.calls),
                   notice=notice or attempt.notice)


def estimated_usd(route: RouteConfig, request: ModelRequest, reply: ModelReply) -> float | None:
    """The cost of ``reply`` to ``request`` at the route's prices; None for a route without
    prices. A side of the usage the provider did not report (0 tokens: no call is free of
    input or output) is estimated, never taken as free: the input from the request's text
    (the window's own estimator), the output as its ceiling (the request's maxTokens, or the
    answer's reserve when none was sent). Before, a provider that reported no usage cost
    nothing, and the daily ceiling (dailyEstimatedUsd) never tripped: it fails closed."""
    if not route.priced:
        return None
    assert route.input_usd_per_mtok is not None and route.output_usd_per_mtok is not None
    tokens_in = reply.input_tokens or estimate_tokens(request.system + request.prompt)
    tokens_out = reply.output_tokens or max(
        request.max_output_tokens or RESERVED_OUTPUT_TOKENS, estimate_tokens(reply.text))
    return (tokens_in * route.input_usd_per_mtok
            + tokens_out * route.output_usd_per_mtok) / 1_000_000


def worst_usd(route: RouteConfig, request: ModelRequest) -> float | None:
    """What a call of ``request`` may cost at most, reserved before it is sent: its input
    estimated from the request's text and its whole output ceiling (a reply that reports no
    usage is counted so, :func:`estimated_usd`); None for a route without prices."""
    return estimated_usd(route, request, ModelReply("", route.provider, route.model))


def call_cost(route: RouteConfig, request: ModelRequest, reply: ModelReply | None,
              error: ModelError | None) -> dict[str, Any]:
    """What a sent call records of its usage and cost (``finish_call``'s keywords), erring
    high: a reply's own usage; nothing for a refusal without an answer
    (``NO_ANSWER_CODES``, or any error status: the provider billed nothing); for any other
    end (a reply cut at its max tokens, a timeout, a reply after its lease, a cancel) the
    usage the provider reported for it, or else the estimate of a reply that reported none
    (the input from the request, the output at its ceiling). Before, a billed call that failed cost
    nothing, and the daily ceiling (dailyEstimatedUsd) never tripped."""
    if reply is None:
        if error is not None and (error.code in NO_ANSWER_CODES or error.refused):
            return {}  # (an error status, a 500 or a 400: the provider served nothing)
        reply = (error.billed if error is not None and error.billed is not None
                 else ModelReply("", route.provider, route.model))
    return {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
            "estimated_usd": estimated_usd(route, request, reply),
            "reported_usd": reply.reported_usd, "reasoning_tokens": reply.reasoning_tokens}


def ordered(routes: list[RouteConfig], job: Job) -> list[RouteConfig]:
    """After a contract break, an alternate model goes first (item 63)."""
    if job.last_error == "invalid_output" and job.models:
        used = [route_entry(job.models, r.provider, r.model) is not None for r in routes]
        return ([r for r, u in zip(routes, used, strict=True) if not u]
                + [r for r, u in zip(routes, used, strict=True) if u])
    return routes


#: a key variable's value shorter than this is no secret worth refusing text for: local
#: servers take any key, and their documented placeholders are words a claim says
#: ("none", "ollama", "lm-studio", "not-needed", vLLM's "token-abc123"); with 8, a reply
#: about LM Studio was refused as a credential, a stop: the source paused, every claim of
#: the reply lost, on each retry. Providers' real keys run to 32 characters and more.
MIN_KEY_CHARS = 16


def route_keys(routes: list[RouteConfig]) -> frozenset[str]:
    """The current values of the routes' key variables (``keyEnv``), to be refused in
    learned memory: a provider holding a key can echo it back as a "fact", and no
    credential pattern knows every provider's key format. Never logged or stored."""
    values = (os.environ.get(r.key_env, "").strip() for r in routes if r.key_env)
    return frozenset(v for v in values if len(v) >= MIN_KEY_CHARS)


def home_route_keys(home: Path) -> frozenset[str]:
    """:func:`route_keys` of the routes ``home``'s configuration names (none when it
    cannot be read: the queue then sends nothing either), to be kept out of what is
    captured and sent: a person may paste a key no credential rule knows."""
    from waymarks.service.evolution_config import EvolutionConfigError, load_evolution_config

    try:
        return route_keys(load_evolution_config(home).routes())
    except (EvolutionConfigError, OSError):
        return frozenset()
