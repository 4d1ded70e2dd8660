"""The Pi side of memory evolution's model port: Pi's extension makes the call.

A Pi user needs no key: the bridge's ``evolve`` method (sent by the extension's timer) runs
one queue attempt (``open_for`` + ``run_once``) whose first route is Pi's *active* model
(provider = its provider, model = its ID, as the extension reports them); routes the home
configures (``[evolution]``) of other providers follow as backups, within the source's
model budget. The model call
itself is a host request ``complete {system, prompt, maxTokens, provider, model,
timeoutMs}`` that the extension answers with ``ctx.modelRegistry.complete`` (Pi 1.6+;
an older Pi answers ``unavailable``), so Pi resolves authentication and no credential is
ever copied to Waymarks.

What must stay true:
- the queue's privacy check sees Pi's provider as the route's provider, so a source above
  what that provider may receive waits (``privacy``) and is never sent;
- a reply counts only if Pi answered with the model it was asked for (the extension
  captures the identity before awaiting); any other identity is ``unavailable`` and the
  reply is dropped;
- a reply counts only if the model stopped normally (``stopReason`` ``stop``): a truncated
  one (``length``), a tool call or an answer that does not say is ``invalid_output``
  (seed 004; the extension refuses it too);
- failures cross the bridge as allowlisted ``ModelError`` codes only; an unknown code, an
  extension error or a malformed answer becomes ``unknown``/``invalid_output``, never text;
  with the HTTP status the provider answered with (``status``), when Pi's error names one
  (the providers' SDKs begin their message with it): such a call billed nothing;
- nothing happens when learning is off, in a subagent (or a process a consolidation call
  started), or without an active model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from waymarks.core.evolution_policy import CHILD_ENV
from waymarks.core.model_port import (
    MODEL_ERROR_CODES,
    ModelClient,
    ModelError,
    ModelReply,
    ModelRequest,
    Route,
)
from waymarks.core.records import replace

if TYPE_CHECKING:
    from waymarks.core.privacy import ProviderPolicy
    from waymarks.service.app import Waymarks
    from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
    from waymarks.service.evolution_queue import EvolutionQueue

#: the ``api`` of the route Pi's extension serves (not a configurable ``[evolution]`` api)
PI_API = "pi"

Ask = Callable[[str, dict[str, Any]], Any]


class HostGone(Exception):
    """The extension closed the bridge (Pi is shutting down): the call is cancelled."""


class HostFailed(Exception):
    """The extension answered the host request with an error (its text is not kept)."""


class PiModelClient:
    """A ``ModelClient`` whose call is a ``complete`` host request to Pi's extension."""

    def __init__(self, ask: Ask) -> None:
        self._ask = ask

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        params = {"system": request.system, "prompt": request.prompt,
                  "maxTokens": request.max_output_tokens, "provider": route.provider,
                  "model": route.model, "timeoutMs": max(1, int(timeout_s * 1000))}
        try:
            answer = self._ask("complete", params)
        except HostGone:
            raise ModelError("cancelled") from None
        except HostFailed:  # the extension failed: a code, never its text
            raise ModelError("unknown") from None
        return _reply(answer, route)


def _reply(answer: Any, route: Route) -> ModelReply:
    if not isinstance(answer, dict):
        raise ModelError("invalid_output")
    error = answer.get("error")
    if error is not None:
        code = error if isinstance(error, str) and error in MODEL_ERROR_CODES else "unknown"
        retry = answer.get("retryAfterS")
        # the HTTP status the provider answered with, when Pi's error says one: it served,
        # and billed, nothing (as an HTTP route's error status)
        status = answer.get("status")
        raise ModelError(code, retry_after_s=float(retry)  # type: ignore[arg-type]
                         if isinstance(retry, int | float) and retry >= 0 else None,
                         refused=isinstance(status, int) and not isinstance(status, bool)
                         and 400 <= status <= 599)
    if (answer.get("provider"), answer.get("model")) != (route.provider, route.model):
        raise ModelError("unavailable")  # Pi switched models: not the route that was checked
    if answer.get("stopReason") != "stop":  # truncated ("length"), a tool call, or unsaid
        raise ModelError("invalid_output")  # seed 004, as the HTTP routes enforce it
    text = answer.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ModelError("invalid_output")
    cost = answer.get("costUsd")
    reported = float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) \
        and 0 <= cost < 1e6 else None
    from waymarks.models.usage import token_count  # (the models package loads httpx)

    # the extension forwards ``Number(usage.input) || 0``: a count from 2**63 to 1e21
    # arrives as a Python int, past what the call's accounting row holds
    return ModelReply(text, route.provider, route.model,
                      token_count(answer.get("inputTokens")),
                      token_count(answer.get("outputTokens")), reported_usd=reported)


def pi_route(base: EvolutionConfig, provider: str, model: str) -> EvolutionConfig:
    """``base`` (caps, timeouts, daily ceiling) with Pi's active model first; the routes
    ``base`` configures (``[evolution]`` in the home config.toml) follow as backups, those
    of *other* providers only (seed 004: the active model is preferred, backups come from
    other providers; another model of Pi's provider would fail the same way on auth or
    quota), and only while ``crossProviderFallback`` allows backups at all. Only routes
    the person wrote: an ``[evolution]`` table naming none (``learn = true`` alone) means
    Claude Code's ``claude -p`` for a Claude Code user, never a backup here (Pi's source
    went to Anthropic when Pi's model failed); without a backup the source waits."""
    from waymarks.service.evolution_config import RouteConfig

    # the configured routes back Pi's model up in the order they are configured to be
    # tried (their own primary first, then its backups by priority and price: item 64)
    configured = [] if base.implicit_primary else base.routes()
    backups = tuple(replace(r, priority=index) for index, r in enumerate(
        r for r in configured if r.provider != provider))
    return replace(base, primary=RouteConfig(provider, PI_API, model), fallback_models=(),
                   backups=backups)


class PiEvolution:
    """One bridge's evolution worker: the queue opened on first use, closed with the bridge."""

    def __init__(self, ask: Ask) -> None:
        self._client = PiModelClient(ask)
        self._queue: EvolutionQueue | None = None

    def close(self) -> None:
        if self._queue is not None:
            self._queue.close()
            self._queue = None

    def _clients(self, route: RouteConfig) -> ModelClient:
        """Pi's model through the extension; a configured backup through its adapter."""
        if route.api == PI_API:
            return self._client
        from waymarks.models import route_client

        return route_client(route)

    @staticmethod
    def _available(route: RouteConfig) -> bool:
        if route.api == PI_API:
            return True
        from waymarks.models import route_is_available

        return route_is_available(route)

    def run(self, app: Waymarks, provider: Any, model: Any, *, window: Any = None,
            max_tokens: Any = None) -> dict[str, Any]:
        """One queue attempt with Pi's active model; a content-free summary. ``window``
        and ``max_tokens``: the model's ``contextWindow`` and ``maxTokens`` as Pi declares
        them (they shape the request: item 53)."""
        from waymarks.ledger.identity import canonical_project_path
        from waymarks.service.evolution_config import EvolutionConfigError
        from waymarks.service.evolution_wiring import open_for, settings_for
        from waymarks.service.learning import learning_enabled

        if os.environ.get("PI_SUBAGENT_AGENT_ID") or os.environ.get(CHILD_ENV):
            return {"outcome": "skipped", "reason": "subagent"}
        if not learning_enabled(app.home, canonical_project_path(app.cwd)):
            return {"outcome": "skipped", "reason": "learning_off"}
        if not (isinstance(provider, str) and provider and isinstance(model, str) and model):
            return {"outcome": "skipped", "reason": "no_model"}
        from waymarks.service.evolution_status import note_host_route

        note_host_route(app.home, "pi", provider, model)  # status: "Pi calls the model"
        if self._queue is None:
            try:
                queue = open_for(app, self._clients, self._available)
            except EvolutionConfigError:
                return {"outcome": "skipped", "reason": "config_invalid"}
            if queue is None:
                return {"outcome": "skipped", "reason": "no_step"}
            self._queue = queue

        def settings() -> tuple[EvolutionConfig, ProviderPolicy]:
            # read at each check: caps, routes and the privacy policy changed mid-session
            # apply at once; Pi's active model goes first
            base, policy = settings_for(app)
            return pi_route(base, provider, model), policy

        self._queue.reload = settings
        from waymarks.core.evolution.limits import ModelLimits

        limits = ModelLimits.from_host(window, max_tokens)
        # Pi's model by what Pi says; a configured backup by what its route declares
        self._queue.limits = lambda route: limits if route.api == PI_API else route.limits
        try:
            return self._queue.run_once().to_json()
        except EvolutionConfigError:
            return {"outcome": "skipped", "reason": "config_invalid"}
