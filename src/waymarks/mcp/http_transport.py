"""``waymarks mcp --http``: streamable HTTP behind a bearer token.

What must stay true:

- Every HTTP request carries exactly one ``Authorization`` header equal to
  ``Bearer <token>`` (compared in constant time). None or a wrong one is 401; two or more
  are 400, whatever they hold: which one a proxy or a framework reads is ambiguous, so no
  "last one wins". A WebSocket handshake is refused the same way.
- The server speaks plain HTTP. Off loopback the token crosses the network in clear, so
  the command refuses a non-loopback ``--host`` unless ``--allow-remote`` is given, and
  then warns (see :func:`remote_warning`).
- Off loopback (``--allow-remote``) any ``Host`` and ``Origin`` are served: the names
  the server is reached by are not known, so the token is what is checked (the SDK's own
  check, left to its default, answered 421 to every request through the address).
- On loopback, however the address is spelled (``127.0.0.2``, ``[::1]``, ``LOCALHOST``),
  the SDK's DNS-rebinding check is on: a ``Host`` that is not a loopback name is 421, an
  ``Origin`` that is not a loopback origin 403 (the SDK turns it on by itself only for
  ``127.0.0.1``, ``localhost`` and ``::1`` spelled just so).
- The token's file is not readable by other users of this machine (:func:`token_exposed`):
  the token is what keeps them out, so the command refuses to serve behind one they can
  read, and says ``chmod 600``.
- A POSTed message the SDK cannot take is answered as over stdio, by the same screen
  (:class:`ScreenedBodies`), after the token and before the SDK sees it.
- The launcher binds the socket (:func:`waymarks.web.server.bind`, the inspector's), so
  a port in use is a usage error with the fix, and the socket is close-on-exec.
"""

from __future__ import annotations

import hmac
import stat
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.core.loopback import host_names
from waymarks.core.loopback import is_loopback as is_loopback  # re-exported for the launcher

if TYPE_CHECKING:
    import socket

    from waymarks.service.app import Waymarks


def remote_warning(host: str, port: int) -> str:
    every = " on every interface" if host.strip().strip("[]") in ("0.0.0.0", "::", "") \
        else ""
    return (f"waymarks: warning: serving MCP over plain HTTP at {host}:{port}{every}: the "
            "bearer token and every memory crossing the network travel unencrypted. Put a "
            "TLS proxy in front of it, or keep --host 127.0.0.1 and reach it through an SSH "
            "tunnel (ssh -L).")


def token_exposed(path: Path) -> str | None:
    """Why other users of this machine can read ``path`` (the home's ``config.toml``,
    which holds the bearer token): a group or other read bit, with every folder above it
    searchable by someone other than its owner (group or other search bit: a member of
    the file's group passes a folder on its other bit, found in a security review), or
    a second hard link, which may sit in any folder (judged by the link alone, a 0644 file
    hard-linked into a private home served). The file itself is judged, not a symbolic
    link to it: a ``config.toml`` linked into a world-readable dotfiles folder was judged
    by the home's mode (found in a security review). ``None`` when only its owner can (or
    it cannot be looked at: the configuration was read, so the reader is not in
    question)."""
    try:
        real = path.resolve(strict=True)
        status = real.stat()
        folders = [folder.stat().st_mode for folder in real.parents]
    except (OSError, RuntimeError):  # (RuntimeError: a loop of links)
        return None
    mode = status.st_mode
    if not mode & (stat.S_IRGRP | stat.S_IROTH):
        return None
    linked = status.st_nlink > 1
    if not linked and not all(folder & (stat.S_IXGRP | stat.S_IXOTH) for folder in folders):
        return None
    shown = path if real == path else f"{path} (a link to {real})"
    links = (f", and {status.st_nlink} hard links: another may be in a folder they can "
             "enter") if linked else ""
    return (f"{shown} holds the MCP bearer token and other users of this machine can read "
            f"it (mode {stat.S_IMODE(mode):04o}{links}): make it private with chmod 600 "
            f"{real}")


def serve_http(app: Waymarks, *, sock: socket.socket, host: str, token: str,
               follow: Callable[[], None] | None = None) -> None:
    """Streamable HTTP on ``sock`` (listening on ``host``, as the person spelled it);
    every request needs ``Authorization: Bearer <token>``."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from waymarks.mcp.server import build_server, recovering

    # beyond loopback the names people reach it by are not known (an address, a name, a
    # proxy's): the token is the wall, so the SDK's own check is switched off explicitly.
    # Left unset, the SDK's default (host 127.0.0.1) turned it on for loopback names only,
    # and every request through the address served was 421
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    if is_loopback(host):
        names = sorted(host_names(host, "*"))
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=names,
            allowed_origins=[f"http://{name}" for name in names])
    with recovering(app, follow) as before_each_call:  # the tick, as over stdio
        from mcp.server.transport_security import (
            DEFAULT_MAX_REQUEST_BODY_SIZE,
            RequestBodyLimitMiddleware,
        )

        # the body is read (within the SDK's own bound) and screened after the token
        sdk = build_server(app, follow=before_each_call).streamable_http_app(
            transport_security=security)
        asgi = BearerGate(RequestBodyLimitMiddleware(
            ScreenedBodies(sdk), DEFAULT_MAX_REQUEST_BODY_SIZE), token)
        from waymarks.spawn.http_guard import GuardedH11

        uvicorn.Server(uvicorn.Config(asgi, log_level="warning", http=GuardedH11)
                       ).run(sockets=[sock])


class BearerGate:
    """ASGI middleware refusing any request without exactly one correct bearer token."""

    def __init__(self, inner: Any, token: str) -> None:
        self.inner = inner
        self.expected = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            if not _port_is_a_number(scope):
                await _refuse(scope, send, 421, b'{"error": "the Host header\'s port is not '
                              b'a number"}')
                return
            given = [value for name, value in scope.get("headers") or []
                     if name.lower() == b"authorization"]
            if len(given) > 1:
                await _refuse(scope, send, 400, b'{"error": "ambiguous authorization: send '
                              b'exactly one Authorization header"}')
                return
            # the scheme's name is case-insensitive (RFC 9110 11.1): "bearer T" is "Bearer T"
            scheme, _, credential = given[0].partition(b" ") if given else (b"", b"", b"")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(credential.lstrip(b" "),
                                                                      self.expected):
                await _refuse(scope, send, 401,
                              b'{"error": "unauthorized: a bearer token is required"}')
                return
        await self.inner(scope, receive, send)


class ScreenedBodies:
    """ASGI middleware answering a POSTed message the SDK cannot take as stdio does
    (:func:`waymarks.mcp.stdio.screen`), before the SDK sees it. The SDK never answered a
    request whose id is not a string or an integer (``1.5``, ``true``: 202, taken for a
    notification), and refused a batch or bad ``params`` with pydantic's dump of the
    input (a credential in it echoed back). An error is 400 (as the SDK's own parse
    error), a refused ``tools/call`` 200; a notification stdio drops is 400 here (HTTP
    answers every request). Its ``receive`` must give the whole body at once
    (``RequestBodyLimitMiddleware`` in front does)."""

    def __init__(self, inner: Any, path: str = "/mcp") -> None:
        self.inner = inner
        self.path = path

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" \
                or scope.get("path") != self.path:
            await self.inner(scope, receive, send)
            return
        first = await receive()
        if first["type"] == "http.request" and not first.get("more_body", False):
            answer = _screened(first.get("body", b""))
            if answer is not None:
                status, body = answer
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
                return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return first
            return await receive()

        await self.inner(scope, replay, send)


def _screened(body: bytes) -> tuple[int, bytes] | None:
    """The status and body answering ``body``, if the screen answers it."""
    import mcp_types as types

    from waymarks.mcp.stdio import UNICODE_MESSAGE, screen

    # bytes that are not UTF-8 become lone surrogates, which the screen refuses (as stdio)
    answer = screen(body.decode("utf-8", errors="surrogateescape"))
    if answer is None:
        return None
    if answer == "drop":
        answer = types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=types.INVALID_PARAMS, message=f"Invalid params: {UNICODE_MESSAGE}"))
    status = 200 if isinstance(answer, types.JSONRPCResponse) else 400
    return status, answer.model_dump_json(by_alias=True, exclude_unset=True).encode()


def _port_is_a_number(scope: dict[str, Any]) -> bool:
    """Whether the ``Host`` header's port, if it names one, is digits. The SDK's pattern
    for a loopback name on any port (``localhost:*``) checks only how the header starts,
    so ``localhost:evil.example`` passed it (found in a security review); any port stays
    allowed, for an SSH tunnel's other local port."""
    host = next((value for name, value in scope.get("headers") or [] if name == b"host"),
                b"")
    if host.startswith(b"["):  # an IPv6 address: [::1] or [::1]:PORT
        _, bracket, port = host.partition(b"]")
        return bool(bracket) and (port == b"" or (port[:1] == b":" and port[1:].isdigit()))
    if b"[" in host or b"]" in host:  # (a bracket past the start: "localhost:x]" passed)
        return False
    _, colon, port = host.rpartition(b":")
    return not colon or port.isdigit()


async def _refuse(scope: dict[str, Any], send: Any, status: int, body: bytes) -> None:
    if scope["type"] == "websocket":  # closing before accepting refuses the handshake
        await send({"type": "websocket.close", "code": 1008})
        return
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer")]})
    await send({"type": "http.response.body", "body": body})
