"""Model adapters for memory evolution: the ``ModelClient`` port (``core/model_port.py``)
over an OpenAI-compatible endpoint, an Anthropic-compatible endpoint, and Claude Code's
headless mode (``claude -p``).

An adapter package: it imports only ``core``; the CLI, hosts and MCP server choose and
wire a client. Every failure leaves an adapter as a ``ModelError`` with an allowlisted code
(never exception text, provider bodies, model output or credentials), and a key is read
from the environment variable the configuration names at call time, never stored.
"""

from __future__ import annotations

import os
from typing import Protocol

from waymarks.core.model_port import ModelClient
from waymarks.models.claude_cli import ClaudeCodeClient
from waymarks.models.http import AnthropicClient, OpenAIClient

__all__ = ["AnthropicClient", "ClaudeCodeClient", "OpenAIClient", "client_for",
           "route_available", "route_client", "route_is_available"]


class RouteLike(Protocol):
    """A configured route as the adapters need it (``service.evolution_config.RouteConfig``
    has these fields; this package does not import the service)."""

    @property
    def api(self) -> str: ...
    @property
    def endpoint(self) -> str | None: ...
    @property
    def key_env(self) -> str | None: ...


def client_for(api: str, endpoint: str | None, key_env: str | None) -> ModelClient:
    """The client for a configured route's ``api`` (see ``service/evolution_config.py``)."""
    if api == "openai" and endpoint:
        return OpenAIClient(endpoint, key_env)
    if api == "anthropic" and endpoint:
        return AnthropicClient(endpoint, key_env)
    if api == "claude-code":
        return ClaudeCodeClient()
    raise ValueError(f"no model adapter for api {api!r}")


def route_available(api: str) -> bool:
    """Can a route of ``api`` run on this machine? (HTTP routes: always; ``claude-code``:
    only with a ``claude`` executable on PATH.)"""
    return ClaudeCodeClient().available() if api == "claude-code" else True


def route_client(route: RouteLike) -> ModelClient:
    """The client for a configured route (what the queue's ``clients`` factory is)."""
    return client_for(route.api, route.endpoint, route.key_env)


def route_is_available(route: RouteLike) -> bool:
    """Can this process use ``route``: its adapter runs here, and the key variable it
    names is set here. A process started without the key (an MCP client's reduced
    environment) tried the call, failed it as ``auth`` and cooled the provider down for
    every process of the home for 15 minutes, a terminal holding the key included."""
    if route.key_env is not None and not os.environ.get(route.key_env, "").strip():
        return False
    return route_available(route.api)
