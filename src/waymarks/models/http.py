"""OpenAI-compatible (chat completions) and Anthropic-compatible (messages) model clients
over httpx (EVOLUTION items 48, 53, 67).

One call per attempt, no tools, no streaming, a fresh request each time. The OpenAI shape
covers Ollama, llama.cpp server, vLLM and LM Studio (their ``/v1`` endpoints).

What must stay true:
- every failure is a ``ModelError`` with an allowlisted code; the status, a Retry-After and
  at most ``ERROR_BODY_BYTES`` of an error body, read for at most ``ERROR_BODY_S``, are
  inspected (to tell a quota or a context overflow from other errors) and then dropped:
  nothing of a body is kept or raised; an error status stays its error (never a
  ``timeout``) however its body ends;
- the key is read from the named environment variable for each call and goes only into the
  request header; it is never stored on the client, logged, or put in an error;
- only a ``stop`` finish is accepted (a truncated reply is ``invalid_output``, carrying the
  usage the provider billed for it: ``ModelError.billed``), and a reply body larger than
  ``REPLY_BYTES`` is refused without being parsed;
- the whole call, name resolution to last byte, is bounded by ``timeout_s``: httpx's
  timeouts are per operation (a server sending its headers a byte at a time restarts the
  read timeout with each), so a watchdog shuts the call's socket down at the deadline
  (each call has a connection of its own, ``connection: close``, so the watchdog knows
  which); and ``getaddrinfo``, which runs before there is a socket and which no timeout
  bounds (a resolver that does not answer), runs in a worker thread waited on until the
  deadline only (:mod:`waymarks.models.resolve`; the worker is left to finish on its own).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, Final

import httpx2
import msgspec

from waymarks.core.model_port import ModelError, ModelErrorCode, ModelReply, ModelRequest, Route
from waymarks.models.usage import token_count

#: how much of an error body is read to classify it, and for how long at most (item 67)
ERROR_BODY_BYTES: Final = 8192
ERROR_BODY_S: Final = 0.2
#: a reply envelope larger than this is not a consolidation reply (the contract's text is
#: <= 64,000 B; JSON escaping can double it)
REPLY_BYTES: Final = 1024 * 1024
#: the output ceiling sent when the request names none (Anthropic requires one)
DEFAULT_MAX_TOKENS: Final = 4096

#: the HTTP client logs each request's URL at INFO, the endpoint as written (its
#: ``user:password@`` and a credential query parameter too): a host that logs at INFO
#: (the MCP SDK configures the root logger so) wrote them to its standard error
for _logger in ("httpx2", "httpcore2"):
    logging.getLogger(_logger).setLevel(logging.WARNING)

_QUOTA_HINTS: Final = (b"insufficient_quota", b"quota", b"billing", b"credit")
_OVERFLOW_HINTS: Final = (b"context_length", b"context length", b"too long", b"maximum context",
                          b"prompt is too long")


def joined(endpoint: str, path: str) -> str:
    """``path`` appended to the endpoint's path, before its query string: a gateway's
    ``…/v1?api-version=…`` was called as ``…/v1?api-version=…/chat/completions``."""
    base, mark, query = endpoint.partition("?")
    return base + path + mark + query


#: the longest wait a Retry-After is honoured for (a day)
RETRY_AFTER_MAX_S: Final = 86400.0


def _retry_after(headers: httpx2.Headers) -> float | None:
    """A Retry-After in seconds: delay-seconds or an HTTP-date, clamped to a day (one
    second past it meant a 60 s cooldown instead of 24 h, and a date was dropped); None
    when it says neither, or says no time to wait (0, a negative number, a past date): such
    a value is not supplied, so a quota keeps its 1 h default (clamped to 0, a stale date
    cooled a provider out of quota for 60 s, and its refused calls, each counted by the
    shared hourly ceiling, came back every minute)."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from datetime import UTC, datetime
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        seconds = (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp() - \
            datetime.now(UTC).timestamp()
    if math.isnan(seconds) or seconds <= 0:
        return None
    return min(seconds, RETRY_AFTER_MAX_S)


def error_for_status(status: int, headers: httpx2.Headers, head: bytes) -> ModelError:
    """The allowlisted error for an HTTP failure; ``head`` is at most the first
    ``ERROR_BODY_BYTES`` of the body, inspected for fixed hints and then dropped. Every
    one is ``refused``: an error status serves (and bills) nothing."""
    lowered = head[:ERROR_BODY_BYTES].lower()
    if status in (401, 403):
        return ModelError("auth", refused=True)
    if status == 402 or (status == 429 and any(h in lowered for h in _QUOTA_HINTS)):
        # quota: the error table's provider cooldown, 1 h or until the supplied reset
        return ModelError("quota", retry_after_s=_retry_after(headers), refused=True)
    if status == 429:
        return ModelError("rate_limited", retry_after_s=_retry_after(headers), refused=True)
    if status == 408:
        return ModelError("timeout", refused=True)
    if status >= 500:
        return ModelError("overloaded", refused=True)
    if status in (400, 404, 413, 422):
        return ModelError("bad_request", refused=True)
    return ModelError("unknown", refused=True)


_SHARED: list[httpx2.Client] = []
_SHARED_LOCK = threading.Lock()
#: ``deadline``: the ``time.monotonic`` deadline of the call this thread is making
CALL = threading.local()


def _shared_client() -> httpx2.Client:
    """One connection pool per process: making an httpx client costs ~50 ms (its TLS
    context), more than a local model's answer. Timeouts are set per request; name
    resolution is bounded by the call's deadline (:mod:`waymarks.models.resolve`)."""
    with _SHARED_LOCK:
        if not _SHARED:
            from waymarks.models.resolve import bounded_transport

            _SHARED.append(httpx2.Client(transport=bounded_transport(CALL),
                                         follow_redirects=False, trust_env=False))
        return _SHARED[0]


class _HttpClient:
    """What both HTTP shapes share: the key, the bounded call, the error mapping."""

    def __init__(self, endpoint: str, key_env: str | None, *,
                 transport: httpx2.BaseTransport | None = None) -> None:
        base, mark, query = endpoint.partition("?")
        self.endpoint = base.rstrip("/") + mark + query
        self.key_env = key_env
        self._transport = transport

    def _key(self) -> str | None:
        if self.key_env is None:
            return None
        key = os.environ.get(self.key_env, "").strip()
        if not key:
            raise ModelError("auth")  # the named variable is unset: status shows the name
        if not (key.isascii() and key.isprintable()):
            raise ModelError("auth")  # no header can carry it: no provider's key
        return key

    def _post(self, path: str, body: dict[str, Any], headers: dict[str, str],
              timeout_s: float) -> dict[str, Any]:
        if timeout_s <= 0:
            raise ModelError("timeout")
        deadline = CALL.deadline = time.monotonic() + timeout_s
        watchdog = _Watchdog(timeout_s)
        refusal: ModelError | None = None  # the error status the provider answered with
        try:
            client = (_shared_client() if self._transport is None else
                      httpx2.Client(transport=self._transport, follow_redirects=False,
                                    trust_env=False))
            with watchdog, client.stream(
                    "POST", joined(self.endpoint, path), json=body,
                    headers={**headers, "connection": "close"},
                    timeout=httpx2.Timeout(timeout_s),
                    extensions={"trace": watchdog.trace}) as response:
                if response.status_code != 200:
                    refusal = error_for_status(response.status_code, response.headers,
                                               _error_head(response, watchdog))
                    raise refusal
                raw = _read(response.iter_bytes(), REPLY_BYTES, deadline)
        except ModelError as exc:
            if watchdog.fired and exc is not refusal:
                # (an error status stays what it is, its body cut by the deadline or not:
                # a stalled 429 was a timeout, a transport failure billed at worst case,
                # its Retry-After ignored)
                raise ModelError("timeout") from None
            raise
        except httpx2.HTTPError as exc:
            # after the deadline its socket was shut down: whatever broke, it is a timeout
            raise ModelError("timeout" if watchdog.fired else _code_of(exc)) from None
        except (httpx2.InvalidURL, UnicodeError):
            # an endpoint the client cannot call, or a header it cannot encode: nothing
            # was sent (these are no HTTPError, and escaped the ModelClient contract)
            raise ModelError("unavailable") from None
        finally:
            CALL.deadline = None
        if watchdog.fired:
            # a body without a content-length runs to the end of the stream, and the
            # watchdog's shutdown looks like that end: what was read is cut short, and
            # the call failed as invalid_output instead of the timeout it was
            raise ModelError("timeout")
        try:
            parsed = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise ModelError("invalid_output") from None
        if not isinstance(parsed, dict):
            raise ModelError("invalid_output")
        return parsed


def _code_of(exc: httpx2.HTTPError) -> ModelErrorCode:
    """The allowlisted code of a transport failure."""
    if isinstance(exc, httpx2.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx2.ConnectError | httpx2.NetworkError | httpx2.RemoteProtocolError
                  | httpx2.ProxyError):
        return "network"
    return "unknown"


class _Watchdog:
    """Shuts a call's socket down once ``seconds`` have passed, so whatever the server
    does (headers a byte at a time, a body that never ends) the call ends then.

    The socket comes from httpcore's ``trace`` extension as the connection is made; the
    watchdog keeps a duplicate of its descriptor (the same socket: TLS detaches the
    original object, and a number closed meanwhile could name another file) and closes
    it when the call ends."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True
        self._cut: threading.Timer | None = None

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event not in ("connection.connect_tcp.complete",
                         "connection.connect_unix_socket.complete"):
            return
        stream = info.get("return_value")
        raw = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(raw, socket.socket):
            return
        duplicate = socket.socket(fileno=os.dup(raw.fileno()))
        with self._lock:
            self._sockets.append(duplicate)
            late = self.fired
        if late:  # the deadline passed while it connected
            _shut(duplicate)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
        self._shut_all()

    def _shut_all(self) -> None:
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def cut_after(self, seconds: float) -> None:
        """Shut the call's socket down in ``seconds`` too, the call not timed out (an error
        body's own bound: a body that stalls or drips ends then, whatever its length)."""
        self._cut = threading.Timer(max(0.0, seconds), self._shut_all)
        self._cut.daemon = True
        self._cut.start()

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        if self._cut is not None:
            self._cut.cancel()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            sock.close()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the peer or the call
        sock.shutdown(socket.SHUT_RDWR)


def _read(chunks: Iterator[bytes], limit: int, deadline: float) -> bytes:
    """At most ``limit`` bytes before ``deadline``; more is ``invalid_output`` (a reply
    too large)."""
    buffer = bytearray()
    for chunk in chunks:
        if time.monotonic() > deadline:
            raise ModelError("timeout")
        buffer += chunk
        if len(buffer) > limit:
            raise ModelError("invalid_output")
    return bytes(buffer)


def _error_head(response: httpx2.Response, watchdog: _Watchdog) -> bytes:
    """At most ``ERROR_BODY_BYTES`` of an error body, read for at most ``ERROR_BODY_S``
    (item 67): its socket is shut down then, so a body that stalls (a content-length
    longer than what is sent) ends as one that drips does, and the status is classified
    by what arrived. Before, the bound was checked only as a chunk arrived: a stalled
    body was waited on for the whole call's timeout."""
    head = bytearray()
    watchdog.cut_after(ERROR_BODY_S)
    with contextlib.suppress(httpx2.HTTPError):  # cut short: what arrived is enough
        for chunk in response.iter_bytes():
            head += chunk
            if len(head) >= ERROR_BODY_BYTES:
                break
    return bytes(head[:ERROR_BODY_BYTES])


class OpenAIClient(_HttpClient):
    """``POST {endpoint}/chat/completions`` (the endpoint includes ``/v1``)."""

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        headers = {"content-type": "application/json"}
        key = self._key()
        if key is not None:
            headers["authorization"] = f"Bearer {key}"
        body: dict[str, Any] = {
            "model": route.model, "stream": False, "temperature": 0,
            "messages": [{"role": "system", "content": request.system},
                         {"role": "user", "content": request.prompt}]}
        if request.max_output_tokens > 0:
            body["max_tokens"] = request.max_output_tokens
        data = self._post("/chat/completions", body, headers, timeout_s)
        usage = _usage(data)
        details = usage.get("completion_tokens_details")
        billed = ModelReply("", route.provider, route.model,
                            token_count(usage.get("prompt_tokens")),
                            token_count(usage.get("completion_tokens")),
                            reported_usd=_cost(usage.get("cost")),
                            reasoning_tokens=token_count(details.get("reasoning_tokens"))
                            if isinstance(details, dict) else 0)
        choices = data.get("choices")
        if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0],
                                                                                 dict):
            raise ModelError("invalid_output", billed=billed)
        choice = choices[0]
        message = choice.get("message")
        text = message.get("content") if isinstance(message, dict) else None
        if choice.get("finish_reason") != "stop" or not isinstance(text, str):
            # a reply cut at its max tokens was billed: its usage is the call's cost
            raise ModelError("invalid_output", billed=billed)
        return msgspec.structs.replace(billed, text=text)


class AnthropicClient(_HttpClient):
    """``POST {endpoint}/v1/messages`` (the endpoint is the API's origin)."""

    VERSION: Final = "2023-06-01"

    def complete(self, request: ModelRequest, route: Route, *, timeout_s: float) -> ModelReply:
        headers = {"content-type": "application/json", "anthropic-version": self.VERSION}
        key = self._key()
        if key is not None:
            headers["x-api-key"] = key
        body = {"model": route.model, "system": request.system, "temperature": 0,
                "max_tokens": request.max_output_tokens or DEFAULT_MAX_TOKENS,
                "messages": [{"role": "user", "content": request.prompt}]}
        path = "/messages" if self.endpoint.partition("?")[0].endswith("/v1") \
            else "/v1/messages"
        data = self._post(path, body, headers, timeout_s)
        usage = _usage(data)
        billed = ModelReply("", route.provider, route.model,
                            token_count(usage.get("input_tokens")),
                            token_count(usage.get("output_tokens")))
        content = data.get("content")
        if (data.get("stop_reason") not in ("end_turn", "stop_sequence")
                or not isinstance(content, list)):
            raise ModelError("invalid_output", billed=billed)  # max_tokens: billed, cut
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if not parts or not all(isinstance(p, str) for p in parts):
            raise ModelError("invalid_output", billed=billed)
        return msgspec.structs.replace(billed, text="".join(str(p) for p in parts))


def _cost(value: object) -> float | None:
    """A provider-reported cost in USD (OpenRouter and others put it in ``usage.cost``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value < 1e6 else None


def _usage(envelope: dict[str, Any]) -> dict[str, Any]:
    usage = envelope.get("usage")
    return usage if isinstance(usage, dict) else {}
