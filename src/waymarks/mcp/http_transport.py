"""``waymarks mcp --http``: streamable HTTP behind a bearer token.

What must stay true:

- Every HTTP request carries exactly one ``Authorization`` header equal to
  ``Bearer <token>`` (compared in constant time). None or a wrong one is 401; two or more
  are 400, whatever they hold: which one a proxy or a framework reads is ambiguous, so no
  "last one wins". A WebSocket handshake is refused the same way.
- The server speaks plain HTTP. Off loopback the token crosses the network in clear, so
  the command refuses a non-loopback ``--host`` unless ``--allow-remote`` is given, and
  then warns (see :func:`remote_warning`).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from waymarks.core.loopback import is_loopback as is_loopback  # re-exported for the launcher

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

def remote_warning(host: str, port: int) -> str:
    every = " on every interface" if host.strip().strip("[]") in ("0.0.0.0", "::", "") \
        else ""
    return (f"waymarks: warning: serving MCP over plain HTTP at {host}:{port}{every}: the "
            "bearer token and every memory crossing the network travel unencrypted. Put a "
            "TLS proxy in front of it, or keep --host 127.0.0.1 and reach it through an SSH "
            "tunnel (ssh -L).")


def serve_http(app: Waymarks, *, host: str, port: int, token: str,
               follow: Callable[[], None] | None = None) -> None:
    """Streamable HTTP on ``host:port``; every request needs ``Authorization: Bearer
    <token>``."""
    import uvicorn

    from waymarks.mcp.server import build_server

    asgi = BearerGate(build_server(app, follow=follow).streamable_http_app(host=host), token)
    uvicorn.run(asgi, host=host, port=port, log_level="warning")


class BearerGate:
    """ASGI middleware refusing any request without exactly one correct bearer token."""

    def __init__(self, inner: Any, token: str) -> None:
        self.inner = inner
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            given = [value for name, value in scope.get("headers") or []
                     if name.lower() == b"authorization"]
            if len(given) > 1:
                await _refuse(scope, send, 400, b'{"error": "ambiguous authorization: send '
                              b'exactly one Authorization header"}')
                return
            if not given or not hmac.compare_digest(given[0], self.expected):
                await _refuse(scope, send, 401,
                              b'{"error": "unauthorized: a bearer token is required"}')
                return
        await self.inner(scope, receive, send)


async def _refuse(scope: dict[str, Any], send: Any, status: int, body: bytes) -> None:
    if scope["type"] == "websocket":  # closing before accepting refuses the handshake
        await send({"type": "websocket.close", "code": 1008})
        return
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer")]})
    await send({"type": "http.response.body", "body": body})
