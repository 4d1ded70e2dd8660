"""The web inspector's gate: who may read the page and who may act through it.

The inspector shows every pin, claim and personal note of the home, and it can write, so
it is guarded on every request (pages, static files and actions alike):

- **A per-launch token.** :class:`Gate` is made with a fresh random token each time
  ``waymarks ui`` starts; the URL it prints carries it once (``?token=``), after which a
  ``HttpOnly``, ``SameSite=Strict`` cookie does (named after the launch, since cookies
  are shared across ports: two inspectors on one machine do not overwrite each other's).
  No token is 401, a wrong one 403; the comparison is constant-time. The token never
  appears in a page, a log or an error.
- **The Host header** must name the address the server listens on (or ``localhost``), so
  a page elsewhere cannot reach the inspector through a DNS name it rebinds to 127.0.0.1.
- **CSRF on every action.** A ``POST`` must carry the form field ``csrf`` (an HMAC of the
  token, so it never reveals the token) and, when the browser sends ``Origin`` or
  ``Sec-Fetch-Site``, come from the inspector's own origin. Methods other than
  ``GET``/``HEAD``/``POST`` are refused.
- **Headers** on every answer: a strict Content-Security-Policy (scripts and styles only
  from the inspector itself: no inline script, no ``eval``, nothing from elsewhere),
  ``nosniff``, no referrer, no framing, no caching.

What must stay true: nothing here depends on the page's own markup being safe; the
templates escape stored text as well (Jinja2 autoescape), and this gate is the second
wall, not the first.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE: Final = "waymarks_ui"
CSP: Final = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
              "base-uri 'none'")
HEADERS: Final = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
METHODS: Final = frozenset({"GET", "HEAD", "POST"})
LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` reaches only this machine (``127.0.0.0/8``, ``::1``,
    ``localhost``); ``0.0.0.0``, ``::`` and every other name do not."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def remote_warning(host: str, port: int) -> str:
    """What ``waymarks ui --allow-remote`` prints before serving beyond this machine."""
    return (f"waymarks: warning: the web inspector listens on {host}:{port}, beyond this "
            "machine, over plain HTTP: the token in its URL and every pin, claim and note "
            "it shows travel unencrypted, and anyone holding the URL can change memory. "
            "Prefer the default --host 127.0.0.1 through an SSH tunnel (ssh -L).")


def host_names(host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values a browser sends for this server."""
    bare = host.strip().strip("[]")
    shown = f"[{bare}]" if ":" in bare else bare
    names = {f"{shown}:{port}"}
    if is_loopback(bare):
        names |= {f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"}
    return frozenset(names)


@dataclass(frozen=True)
class Gate:
    """The launch's secrets and the hosts it answers to."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    #: ``Host`` header values accepted (``None``: any, for a server bound beyond loopback
    #: on purpose, where the name people use is not known in advance)
    hosts: frozenset[str] | None = frozenset()

    @property
    def cookie(self) -> str:
        """This launch's cookie name (a digest of the token: it reveals nothing of it)."""
        return COOKIE + "_" + hashlib.sha256(self.token.encode()).hexdigest()[:12]

    @property
    def csrf(self) -> str:
        """The form token: derived from the launch token, never revealing it."""
        return hmac.new(self.token.encode(), b"waymarks-ui-csrf-v1",
                        hashlib.sha256).hexdigest()

    def url(self, base: str, path: str = "/") -> str:
        return f"{base.rstrip('/')}{path}?{urlencode({'token': self.token})}"

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def csrf_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())


def _refusal(status: int, text: str) -> Response:
    response = PlainTextResponse(text, status_code=status)
    response.headers.update(HEADERS)
    return response


def same_origin(request: Request) -> bool:
    """Whether the browser says the request comes from the inspector's own pages: an
    ``Origin`` (sent on every cross-site POST) naming this host, and a ``Sec-Fetch-Site``
    (when sent) of ``same-origin`` or ``none`` (typed in the address bar)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-site request (those always send Origin)
    host = request.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


class GateMiddleware:
    """The checks of :class:`Gate`, before any route runs, and the headers after."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = await request.body() if request.method == "POST" else b""
        refused = self._check(request, body)
        if refused is not None:
            await refused(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:  # the route reads the body this gate already read
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, replay, with_headers)

    def _check(self, request: Request, body: bytes) -> Response | None:
        gate = self.gate
        if request.method not in METHODS:
            return _refusal(405, "Method not allowed.")
        if gate.hosts is not None and request.headers.get("host", "") not in gate.hosts:
            return _refusal(403, "Unknown Host header: open the URL `waymarks ui` printed.")
        query_token = request.query_params.get("token")
        if query_token is not None:
            if not gate.token_ok(query_token):
                return _refusal(403, "Wrong token: open the URL `waymarks ui` printed for "
                                     "this launch (a new launch makes a new token).")
            if request.method == "GET":  # trade the URL's token for the cookie, once
                rest = urlencode([(k, v) for k, v in parse_qsl(request.url.query)
                                  if k != "token"])
                target = request.url.path + (f"?{rest}" if rest else "")
                response = RedirectResponse(target, status_code=303)
                response.set_cookie(gate.cookie, gate.token, httponly=True, samesite="strict",
                                    path="/")
                response.headers.update(HEADERS)
                return response
        else:
            cookie = request.cookies.get(gate.cookie)
            if cookie is None:
                return _refusal(401, "No token: open the URL `waymarks ui` printed (it "
                                     "carries this launch's token).")
            if not gate.token_ok(cookie):
                return _refusal(403, "Wrong token: open the URL `waymarks ui` printed for "
                                     "this launch (a new launch makes a new token).")
        if request.method == "POST":
            if not same_origin(request):
                return _refusal(403, "Cross-origin request refused: actions are taken only "
                                     "from the inspector's own pages.")
            if "application/x-www-form-urlencoded" not in request.headers.get(
                    "content-type", ""):
                return _refusal(415, "Actions are sent as forms of the inspector's pages.")
            given = [v for k, v in parse_qsl(body.decode("utf-8", "replace")) if k == "csrf"]
            if len(given) != 1 or not gate.csrf_ok(given[0]):
                return _refusal(403, "Missing or wrong form token: reload the page and "
                                     "try again.")
        return None


def allowed_hosts(pairs: Iterable[tuple[str, int]]) -> frozenset[str]:
    return frozenset(name for host, port in pairs for name in host_names(host, port))
