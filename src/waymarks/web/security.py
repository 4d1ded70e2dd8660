"""The web inspector's gate: who may read the page and who may act through it.

The inspector shows every pin, claim and personal note of the home, and it can write, so
it is guarded on every request (pages, static files and actions alike):

- **A per-launch token.** :class:`Gate` is made with a fresh random token each time
  ``waymarks ui`` starts; the URL it prints carries it once (``?token=``), after which a
  ``HttpOnly``, ``SameSite=Strict`` cookie does (named after the launch, so two
  inspectors on one machine do not overwrite each other's). The cookie's value is not
  the token but an HMAC of it (:attr:`Gate.session`), and it is a bearer credential of
  the launch. Cookies ignore ports: with ``Path=/`` the browser sent it to every other
  server on 127.0.0.1 it visited, and one of them could read and change memory with it.
  So the inspector lives under a path of its own launch, ``/s/<secret>/``
  (:attr:`Gate.prefix`, another HMAC of the token), and the cookie's ``Path`` is that:
  a browser sends it to a URL under that path only, which another server never sees
  (no page sends a referrer). No token is 401, a wrong one 403; the comparison is
  constant-time. The token never appears in a page, a log or an error.
  The page that trades the token for the cookie moves the browser on to a path on this
  server only (leading slashes collapsed); it is a page, not a redirect, because a
  redirect chain another page started (``ui --open``'s local file) carries no Strict
  cookie.
- **The Host header** must name the address the server listens on (or ``localhost``), so
  a page elsewhere cannot reach the inspector through a DNS name it rebinds to 127.0.0.1.
- **CSRF on every action.** A ``POST`` must carry the form field ``csrf`` (an HMAC of the
  token, so it never reveals the token) and, when the browser sends ``Origin`` or
  ``Sec-Fetch-Site``, come from the inspector's own origin (``Origin: null``, a form
  sent without script under ``no-referrer``, only with ``Sec-Fetch-Site: same-origin``:
  :func:`same_origin`). Its media type is exactly
  ``application/x-www-form-urlencoded`` (415 otherwise), the form that check reads, so
  the route never parses another one (a multipart body). Methods other than
  ``GET``/``HEAD``/``POST`` are refused, and so are websockets (nothing here speaks
  them; they would otherwise pass no check).
- **Order and size.** Method, Host, token, origin and content type are checked from the
  headers before a byte of the body is read, so an unauthenticated page cannot make the
  inspector buffer anything; a declared ``Content-Length`` over :data:`MAX_BODY` is 413
  unread, and the body is read with that cap (a chunked body stops there, 413).
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
import html
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import parse_qsl, quote, urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from waymarks.core.loopback import host_names as host_names  # re-exported for the server
from waymarks.core.loopback import is_loopback as is_loopback  # re-exported for the launcher
from waymarks.core.loopback import url_host

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
#: bytes of one action's form: its fields are at most 20,000 characters each (``app.py``),
#: a few times that once URL-encoded; anything larger is refused (413) unread
MAX_BODY: Final = 1024 * 1024
def remote_warning(host: str, port: int) -> str:
    """What ``waymarks ui --allow-remote`` prints before serving beyond this machine."""
    return (f"waymarks: warning: the web inspector listens on {url_host(host)}:{port}, "
            "beyond this machine, over plain HTTP: the token in its URL and every pin, "
            "claim and note it shows travel unencrypted, and anyone holding the URL can "
            "change memory. Prefer the default --host 127.0.0.1 through an SSH tunnel "
            "(ssh -L).")


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
        return f"{base.rstrip('/')}{self.prefix}{path}?{urlencode({'token': self.token})}"

    @property
    def prefix(self) -> str:
        """The path every page of this launch is under, and the cookie's ``Path``:
        derived from the launch token, never revealing it."""
        return "/s/" + hmac.new(self.token.encode(), b"waymarks-ui-path-v1",
                                hashlib.sha256).hexdigest()[:32]

    @property
    def session(self) -> str:
        """The cookie's value: derived from the launch token, never revealing it."""
        return hmac.new(self.token.encode(), b"waymarks-ui-session-v1",
                        hashlib.sha256).hexdigest()

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def csrf_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())

    def session_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(),
                                                         self.session.encode())


def _refusal(status: int, text: str) -> Response:
    response = PlainTextResponse(text, status_code=status)
    response.headers.update(HEADERS)
    return response


def same_origin(request: Request) -> bool:
    """Whether the browser says the request comes from the inspector's own pages: an
    ``Origin`` (sent on every cross-site POST) naming this host, and a ``Sec-Fetch-Site``
    (when sent) of ``same-origin`` or ``none`` (typed in the address bar).

    ``Origin: null`` passes only beside ``Sec-Fetch-Site: same-origin``: a form the
    inspector's own page submits without script (htmx not loaded yet, or script off) is
    a navigation, and under the pages' ``no-referrer`` policy the Fetch standard sends
    its origin as ``null``; every action was refused as cross-origin. A page that
    browsers do not name ``same-origin`` (a sandboxed frame, a local file, another port)
    still sends ``null`` or its own origin with another ``Sec-Fetch-Site``, and is
    refused; ``null`` without ``Sec-Fetch-Site`` says nothing of where it came from."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-site request (those always send Origin)
    if origin == "null":
        return site == "same-origin"
    host = request.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


class GateMiddleware:
    """The checks of :class:`Gate`, before any route runs, and the headers after."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # the server's start and stop, not a request
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets and anything else: nothing here speaks them
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        request = Request(scope)
        refused = self._check_request(request)
        if refused is None and request.method == "POST":
            refused = self._check_post(request)
        if refused is not None:  # refused before a byte of the body is read
            await refused(scope, receive, send)
            return
        body = b""
        if request.method == "POST":
            read = await _read_capped(receive, MAX_BODY)
            if read is None:  # the client went away
                return
            if isinstance(read, Response):
                await read(scope, receive, send)
                return
            body = read
            refused = self._check_csrf(body)
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

    def _check_request(self, request: Request) -> Response | None:
        """Method, Host and token: what is decided from the request line and headers."""
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
                response = onward(local_target(request, gate.prefix))
                response.set_cookie(gate.cookie, gate.session, httponly=True,
                                    samesite="strict", path=gate.prefix)
                response.headers.update(HEADERS)
                return response
        else:
            cookie = request.cookies.get(gate.cookie)
            if cookie is None:
                return _refusal(401, "No token: open the URL `waymarks ui` printed (it "
                                     "carries this launch's token).")
            if not gate.session_ok(cookie):
                return _refusal(403, "Wrong token: open the URL `waymarks ui` printed for "
                                     "this launch (a new launch makes a new token).")
        return None

    @staticmethod
    def _check_post(request: Request) -> Response | None:
        """Origin, content type and declared size of an action, still before its body."""
        if not same_origin(request):
            return _refusal(403, "Cross-origin request refused: actions are taken only "
                                 "from the inspector's own pages.")
        # exactly the media type the CSRF check reads the body as: a multipart body whose
        # type only mentioned it was parsed by the route as another form
        media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/x-www-form-urlencoded":
            return _refusal(415, "Actions are sent as forms of the inspector's pages.")
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
            return _too_large()
        return None

    def _check_csrf(self, body: bytes) -> Response | None:
        given = [v for k, v in parse_qsl(body.decode("utf-8", "replace")) if k == "csrf"]
        if len(given) != 1 or not self.gate.csrf_ok(given[0]):
            return _refusal(403, "Missing or wrong form token: reload the page and "
                                 "try again.")
        return None


def _too_large() -> Response:
    return _refusal(413, f"The form is larger than {MAX_BODY // 1024:,} KiB: nothing was "
                         "done. Shorten the text (a pin is at most 4,000 characters).")


async def _read_capped(receive: Receive, cap: int) -> bytes | Response | None:
    """The request body, read until it ends or passes ``cap`` bytes (then a 413, the rest
    never read); ``None`` when the client disconnected first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            return _too_large()
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def local_target(request: Request, prefix: str) -> str:
    """Where the browser goes once the token is traded: this request's path and query
    without the token, always a path on this server (leading slashes and backslashes
    collapsed to one slash: ``//evil.example/`` would be another host to a browser, and so
    would ``/\\evil.example/``), percent-encoded (no quote or space ends it early), and
    under ``prefix`` (the launch's path, where the cookie is sent: the overview when the
    token came to a path outside it)."""
    rest = urlencode([(k, v) for k, v in parse_qsl(request.url.query) if k != "token"])
    path = quote("/" + request.url.path.lstrip("/\\"), safe="/")
    if path != prefix and not path.startswith(prefix + "/"):
        path = prefix + "/"
    return path + (f"?{rest}" if rest else "")


def onward(target: str) -> Response:
    """The answer that trades the token for the cookie: a page that moves the browser on
    to ``target``, not a redirect. A browser sent to the token's URL by a page of another
    site or a local file (``ui --open``'s launch page) does not send a ``SameSite=Strict``
    cookie along a redirect chain that page started: the inspector said "no token" at
    once. A navigation this page starts is the inspector's own, and carries it."""
    return HTMLResponse(moving_page(target))


def moving_page(url: str) -> str:
    """A page that moves the browser on to ``url`` at once (a refresh, no script: the
    policy allows none inline), with a link for a browser that does not follow it."""
    shown = html.escape(url, quote=True)
    return (f'<!DOCTYPE html>\n<meta charset="utf-8">\n<meta name="referrer" '
            f'content="no-referrer">\n<meta http-equiv="refresh" content="0;url={shown}">\n'
            f'<title>Waymarks inspector</title>\n<p><a href="{shown}">Continue to the '
            'inspector</a></p>\n')


def allowed_hosts(pairs: Iterable[tuple[str, int]]) -> frozenset[str]:
    return frozenset(name for host, port in pairs for name in host_names(host, port))
