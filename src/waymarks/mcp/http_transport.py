"""``waymarks mcp --http``: streamable HTTP behind a bearer token.

What must stay true:

- Every HTTP request carries exactly one ``Authorization`` header equal to
  ``Bearer <token>`` (compared in constant time). None or a wrong one is 401; two or more
  are 400, whatever they hold: which one a proxy or a framework reads is ambiguous, so no
  "last one wins". A WebSocket handshake is refused the same way.
- The server speaks plain HTTP. Off loopback the token crosses the network in clear, so
  the command refuses a non-loopback ``--host`` unless ``--allow-remote`` is given, and
  then warns (see :func:`remote_warning`).
- ``Host`` is a name or a bracketed IPv6 address, then an optional ``:`` and digits,
  nothing else (421 otherwise). Off loopback (``--allow-remote``) any such ``Host`` and
  any ``Origin`` are served: the names the server is reached by are not known, so the
  token is what is checked (the SDK's own check, left to its default, answered 421 to
  every request through the address).
- On loopback, however the address is spelled (``127.0.0.2``, ``[::1]``, ``LOCALHOST``),
  :class:`BearerGate` checks for DNS rebinding before the token: a ``Host`` that is not
  exactly a loopback name (any port) is 421; an ``Origin`` that is not exactly
  ``http(s)://`` a loopback name (any port; no user, path or anything else) 403. The SDK's
  own check is off: it matched ``name:*`` on how the header starts, so
  ``localhost:evil.example`` and ``http://localhost:1@evil.example`` passed it.
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
import re
import stat
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.core.loopback import host_spellings, url_host
from waymarks.core.loopback import is_loopback as is_loopback  # re-exported for the launcher

if TYPE_CHECKING:
    import socket

    from waymarks.service.app import Waymarks


def remote_warning(host: str, port: int) -> str:
    every = " on every interface" if host.strip().strip("[]") in ("0.0.0.0", "::", "") \
        else ""
    return (f"waymarks: warning: serving MCP over plain HTTP at {url_host(host)}:{port}"
            f"{every}: the bearer token and every memory crossing the network travel "
            "unencrypted. Put a TLS proxy in front of it, or keep --host 127.0.0.1 and reach "
            "it through an SSH tunnel (ssh -L).")


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

    # the SDK's own check is switched off explicitly (left unset, its default, for host
    # 127.0.0.1, turned it on with prefix matching); the gate checks Host and Origin.
    # Beyond loopback the names people reach it by are not known (an address, a name, a
    # proxy's): the token is the wall
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = host_spellings(host) if is_loopback(host) else None
    from waymarks.service.warm import freeze_imports

    freeze_imports()  # (as over stdio)
    with recovering(app, follow) as before_each_call:  # the tick, as over stdio
        from mcp.server.transport_security import (
            DEFAULT_MAX_REQUEST_BODY_SIZE,
            RequestBodyLimitMiddleware,
        )

        # the body is read (within the SDK's own bound) and screened after the token
        sdk = build_server(app, follow=before_each_call).streamable_http_app(
            transport_security=security)
        asgi = BearerGate(RequestBodyLimitMiddleware(
            ScreenedBodies(sdk), DEFAULT_MAX_REQUEST_BODY_SIZE), token, names)
        from waymarks.spawn.http_guard import GuardedH11

        uvicorn.Server(uvicorn.Config(asgi, log_level="warning", http=GuardedH11)
                       ).run(sockets=[sock])


class BearerGate:
    """ASGI middleware refusing any request without exactly one correct bearer token, and
    first one whose ``Host`` is not a name with an optional numeric port, or (``names``
    given: the loopback names served) whose ``Host`` or ``Origin`` names none of them."""

    def __init__(self, inner: Any, token: str, names: frozenset[str] | None = None
                 ) -> None:
        self.inner = inner
        self.expected = token.encode()
        self.names = None if names is None else frozenset(n.lower() for n in names)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            if not self._host_allowed(_values(scope, b"host")):
                await _refuse(scope, send, 421, b'{"error": "invalid Host header"}')
                return
            if not self._origin_allowed(_values(scope, b"origin")):
                await _refuse(scope, send, 403, b'{"error": "invalid Origin header"}')
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

    def _host_allowed(self, given: list[str]) -> bool:
        """One ``Host``, a name and an optional numeric port (any port: an SSH tunnel's
        local one may differ), the name one served on loopback. None at all (HTTP/1.0)
        only off loopback. Checking the text after the last colon let
        ``localhost:evil.example:80`` through (found in a review)."""
        if not given:
            return self.names is None
        name = _host_name(given[0]) if len(given) == 1 else None
        return name is not None and (self.names is None or name in self.names)

    def _origin_allowed(self, given: list[str]) -> bool:
        """No ``Origin`` (or an empty one), or off loopback any; else exactly one, an
        ``http`` or ``https`` origin of a name served (any port), nothing more: the SDK's
        prefix match let ``http://localhost:1@evil.example`` through (a review)."""
        if self.names is None or not any(given):
            return True
        if len(given) != 1:
            return False
        scheme, separator, authority = given[0].partition("://")
        name = _host_name(authority)
        return (scheme.lower() in ("http", "https") and bool(separator)
                and name is not None and name in self.names)


class ScreenedBodies:
    """ASGI middleware answering a POSTed message the SDK cannot take as stdio does
    (:func:`waymarks.mcp.stdio.screen`), before the SDK sees it. The SDK never answered a
    request whose id is not a string or an integer (``1.5``, ``true``: 202, taken for a
    notification), and refused a batch or bad ``params`` with pydantic's dump of the
    input (a credential in it echoed back). An error is 400 (as the SDK's own parse
    error), a refused ``tools/call`` 200; a notification stdio drops is 400 here (HTTP
    answers every request). A client's response the SDK cannot take (the answer to an
    elicitation holding a lone surrogate) reaches the SDK as the error response the screen
    passes on instead (:class:`~waymarks.mcp.stdio.Instead`), so the call waiting for it
    ends; answered 400 here, it never did. Its ``receive`` must give the whole body at
    once (``RequestBodyLimitMiddleware`` in front does); a body its client left before it
    ended is answered by no one (the SDK's ``ClientDisconnect`` was a traceback)."""

    def __init__(self, inner: Any, path: str = "/mcp") -> None:
        self.inner = inner
        self.path = path

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" \
                or scope.get("path") != self.path:
            await self.inner(scope, receive, send)
            return
        first = await receive()
        if first["type"] != "http.request" or first.get("more_body", False):
            # the client left before its body ended (the limit in front gives a whole
            # body at once, else the part it read and a disconnect): no one to answer,
            # and the SDK, handed the part, raised ClientDisconnect, a traceback in the log
            return
        answer = _screened(first.get("body", b""))
        if isinstance(answer, bytes):  # a response: the SDK gets this one instead
            first = {**first, "body": answer}
        elif answer is not None:
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


def _screened(body: bytes) -> tuple[int, bytes] | bytes | None:
    """The status and body answering ``body``, if the screen answers it; or the body the
    SDK gets in its place (a response it cannot take, passed on as an error response)."""
    import mcp_types as types

    from waymarks.mcp.stdio import Dropped, Instead, screen

    # bytes that are not UTF-8 become lone surrogates, which the screen refuses (as stdio)
    answer = screen(body.decode("utf-8", errors="surrogateescape"))
    if answer is None:
        return None
    if isinstance(answer, Instead):
        return answer.line().encode()
    if isinstance(answer, Dropped):  # answered here (every POST is), saying why
        answer = types.JSONRPCError(jsonrpc="2.0", id=None, error=answer.error)
    status = 200 if isinstance(answer, types.JSONRPCResponse) else 400
    return status, answer.model_dump_json(by_alias=True, exclude_unset=True).encode()


#: a Host header (or an origin's authority): a registered name or an IPv4 address, or an
#: IPv6 address in brackets; then an optional colon and digits; nothing else
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::[0-9]+)?", re.IGNORECASE)


def _host_name(value: str) -> str | None:
    """The name in ``value`` (lowercased, an IPv6 address in its brackets), or ``None``
    when it is not :data:`_HOST` exactly (a user, a path, a second colon, a port that is
    not digits)."""
    found = _HOST.fullmatch(value)
    return found.group(1).lower() if found else None


def _values(scope: dict[str, Any], header: bytes) -> list[str]:
    return [value.decode("latin-1") for name, value in scope.get("headers") or []
            if name.lower() == header]


async def _refuse(scope: dict[str, Any], send: Any, status: int, body: bytes) -> None:
    if scope["type"] == "websocket":  # closing before accepting refuses the handshake
        await send({"type": "websocket.close", "code": 1008})
        return
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer")]})
    await send({"type": "http.response.body", "body": body})
