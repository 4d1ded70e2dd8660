"""Model adapters for memory evolution: the ``ModelClient`` port (``core/model_port.py``)
over an OpenAI-compatible endpoint, an Anthropic-compatible endpoint, and Claude Code's
headless mode (``claude -p``).

An adapter package: it imports only ``core``; the CLI, hosts and MCP server choose and
wire a client. Every failure leaves an adapter as a ``ModelError`` with an allowlisted code
(never exception text, provider bodies, model output or credentials), and a key is read
from the environment variable the configuration names at call time, never stored.
"""

from __future__ import annotations

from waymarks.core.model_port import ModelClient
from waymarks.models.claude_cli import ClaudeCodeClient
from waymarks.models.http import AnthropicClient, OpenAIClient

__all__ = ["AnthropicClient", "ClaudeCodeClient", "OpenAIClient", "client_for",
           "route_available"]


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
