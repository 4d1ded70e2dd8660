"""The HTTP model clients against a REAL loopback provider (127.0.0.1): request shape, key
handling, finish rules and the mapping of every failure to an allowlisted code."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest

from tests.evolution.fake_provider import FakeProvider, anthropic_ok, error, openai_ok
from waymarks.core.evolution_policy import action_for
from waymarks.core.model_port import MODEL_ERROR_CODES, ModelError, ModelRequest, Route
from waymarks.models import AnthropicClient, OpenAIClient, client_for
from waymarks.models.http import ERROR_BODY_BYTES

REQUEST = ModelRequest("system rules", "the user prefers tabs", 256, "normal")
ROUTE = Route("openai", "m1")
KEY = "sk-test-0123456789abcdef0123"


def _fails(client: OpenAIClient | AnthropicClient, timeout: float = 5.0) -> ModelError:
    with pytest.raises(ModelError) as caught:
        client.complete(REQUEST, ROUTE, timeout_s=timeout)
    assert caught.value.code in MODEL_ERROR_CODES
    assert KEY not in str(caught.value) and "nope" not in str(caught.value)
    return caught.value


def test_openai_request_shape_and_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVO_KEY", KEY)
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        reply = OpenAIClient(fake.origin + "/v1", "EVO_KEY").complete(
            REQUEST, ROUTE, timeout_s=5)
    assert (reply.text, reply.provider, reply.model) == ('{"claims": []}', "openai", "m1")
    assert (reply.input_tokens, reply.output_tokens) == (11, 7)
    sent = fake.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {KEY}"
    body = sent["body"]
    assert body["model"] == "m1" and body["stream"] is False and body["max_tokens"] == 256
    assert "tools" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


def test_anthropic_request_shape_and_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVO_KEY", KEY)
    with FakeProvider([anthropic_ok("ok")]) as fake:
        reply = AnthropicClient(fake.origin, "EVO_KEY").complete(
            REQUEST, Route("anthropic", "claude-x"), timeout_s=5)
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("ok", 13, 5)
    sent = fake.requests[0]
    assert sent["path"] == "/v1/messages" and sent["headers"]["x-api-key"] == KEY
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert sent["body"]["system"] == "system rules" and sent["body"]["max_tokens"] == 256
    assert "authorization" not in {k.lower() for k in sent["headers"]}


def test_no_key_configured_sends_no_auth_header_and_unset_variable_is_auth() -> None:
    with FakeProvider([openai_ok("x")]) as fake:
        OpenAIClient(fake.origin + "/v1", None).complete(REQUEST, ROUTE, timeout_s=5)
        assert "authorization" not in {k.lower() for k in fake.requests[0]["headers"]}
        error_ = _fails(OpenAIClient(fake.origin + "/v1", "EVO_UNSET_VARIABLE_X"))
    assert error_.code == "auth" and len(fake.requests) == 1  # nothing was sent


@pytest.mark.parametrize(("answer", "code", "retry_after"), [
    (error(401), "auth", None),
    (error(403), "auth", None),
    (error(402), "quota", None),
    (error(402, headers={"retry-after": "7200"}), "quota", 7200),  # the supplied reset
    (error(429, headers={"retry-after": "120"}), "rate_limited", 120),
    # past a day is a day (it was dropped: a 60 s cooldown); an HTTP-date is read too
    (error(429, headers={"retry-after": "86401"}), "rate_limited", 86400),
    (error(429, headers={"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"}), "rate_limited",
     86400),
    (error(429, headers={"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}), "rate_limited",
     None),  # a past date says no time: not supplied
    (error(429, headers={"retry-after": "soon"}), "rate_limited", None),
    (error(429, {"error": {"code": "insufficient_quota"}}), "quota", None),
    (error(408), "timeout", None),
    (error(500), "overloaded", None),
    (error(529), "overloaded", None),
    (error(400, {"error": {"message": "context_length_exceeded"}}), "bad_request", None),
    (error(404), "bad_request", None),
    (error(422), "bad_request", None),
    (error(418), "unknown", None),
    (openai_ok("cut", finish="length"), "invalid_output", None),
    ((200, b"not json at all", {}, 0.0), "invalid_output", None),
    ((200, {"choices": []}, {}, 0.0), "invalid_output", None),
])
def test_failures_map_to_allowlisted_codes(monkeypatch: pytest.MonkeyPatch, answer, code,  # type: ignore[no-untyped-def]
                                           retry_after) -> None:
    monkeypatch.setenv("EVO_KEY", KEY)
    with FakeProvider([answer]) as fake:
        failure = _fails(OpenAIClient(fake.origin + "/v1", "EVO_KEY"))
    assert failure.code == code
    assert failure.retry_after_s == retry_after


@pytest.mark.parametrize("stale", ["0", "-30", "Wed, 21 Oct 2015 07:28:00 GMT"])
@pytest.mark.parametrize(("answer", "cooldown_s"), [
    (error(402), 3600.0),  # quota: the provider for the 1 h default
    (error(429), 60.0),  # rate limited: the model for the 60 s minimum
])
def test_a_stale_retry_after_is_no_reset_so_the_default_cooldown_holds(  # type: ignore[no-untyped-def]
        answer, cooldown_s, stale: str) -> None:
    """A Retry-After of 0, a negative number or a past date says nothing about when the
    provider resets: a quota cooled the provider for 60 s instead of 1 h (clamped to 0),
    and its refused calls ate the shared hourly ceiling every minute."""
    with FakeProvider([(*answer[:2], {"retry-after": stale}, 0.0)]) as fake:
        failure = _fails(OpenAIClient(fake.origin + "/v1", None))
    assert failure.retry_after_s is None
    assert action_for(failure.code, failure.retry_after_s).cooldown_s == cooldown_s


def test_anthropic_truncated_reply_is_invalid_output() -> None:
    with FakeProvider([anthropic_ok("half", stop="max_tokens")]) as fake:
        failure = _fails(AnthropicClient(fake.origin, None))
    assert failure.code == "invalid_output"


@pytest.mark.slow
def test_a_slow_provider_times_out() -> None:
    with FakeProvider([openai_ok("late")]) as fake:
        fake.script[0] = (*fake.script[0][:3], 2.0)
        failure = _fails(OpenAIClient(fake.origin + "/v1", None), timeout=0.5)
    assert failure.code == "timeout"


class _Dribbler:
    """A raw TCP server that reads the request, then sends ``prefix`` and one more byte of
    ``filler`` every ``every`` seconds for ``lasting`` seconds (a provider stuck
    mid-response; bounded, so a client without a whole-call deadline fails, not hangs)."""

    def __init__(self, prefix: bytes, every: float = 0.2, filler: bytes = b"X",
                 lasting: float = 6.0) -> None:
        self.lasting = lasting
        self.server = socket.create_server(("127.0.0.1", 0))
        self.prefix, self.every, self.filler = prefix, every, filler
        self.stop = threading.Event()
        #: set when the client closed the connection while the response still went on
        self.hung_up = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}"

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            conn, _ = self.server.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(self.prefix)
                until = time.monotonic() + self.lasting
                while not self.stop.wait(self.every) and time.monotonic() < until:
                    try:
                        conn.sendall(self.filler)
                    except OSError:  # (a broken pipe, a reset: the client has gone)
                        self.hung_up.set()
                        return

    def __enter__(self) -> _Dribbler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.close()
        self.thread.join(5)


@pytest.mark.parametrize("prefix", [
    b"HTTP/1.1 200 OK\r\n",  # headers a byte at a time: each restarts httpx's read timeout
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n",
], ids=["headers", "body"])
@pytest.mark.slow
def test_a_provider_dribbling_its_response_is_cut_at_the_deadline(prefix: bytes) -> None:
    # the whole call is bounded, not each read (before: for as long as it sent): the call
    # hung up while the provider still sent, a minute of it, and said timeout. (It asserted
    # less than 2 s of wall time for a 1 s deadline, which a loaded machine can exceed.)
    with _Dribbler(prefix, filler=b" ", lasting=60.0) as server:
        failure = _fails(OpenAIClient(server.origin + "/v1", None), timeout=1.0)
        assert failure.code == "timeout"
        assert server.hung_up.wait(60), "the call read on until the provider stopped"


@pytest.mark.parametrize("client", [OpenAIClient, AnthropicClient])
@pytest.mark.slow
def test_a_body_without_a_length_trickled_past_the_deadline_is_a_timeout(
        client: type[OpenAIClient | AnthropicClient]) -> None:
    """Without a content-length the body runs to the end of the stream: the watchdog's
    shutdown looked like that end, the cut body reached the JSON parser and the call
    failed as invalid_output (3 of those pause a source, and no transport cooldown)."""
    prefix = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n"
    with _Dribbler(prefix, filler=b" ") as server:
        failure = _fails(client(server.origin + "/v1", None), timeout=1.0)
    assert failure.code == "timeout"


def _stalled(status: bytes, extra: bytes = b"", head: bytes = b'{"error": ') -> bytes:
    """An error status whose headers and part of its body arrive, and then nothing (its
    content-length is longer than what is sent)."""
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n" + extra
            + b"content-length: 5000\r\n\r\n" + head)


@pytest.mark.parametrize(("prefix", "code", "retry_after"), [
    (_stalled(b"429 Too Many Requests", b"retry-after: 120\r\n"), "rate_limited", 120.0),
    (_stalled(b"429 Too Many Requests", head=b'{"error": {"code": "insufficient_quota"'),
     "quota", None),
    (_stalled(b"401 Unauthorized"), "auth", None),
], ids=["rate_limited", "quota", "auth"])
def test_an_error_status_whose_body_stalls_keeps_its_error(
        prefix: bytes, code: str, retry_after: float | None) -> None:
    """The error body's 200 ms bound was checked only as a chunk arrived: a stalled body
    was waited on for the whole call's timeout (120 s by default) and the call recorded
    as a ``timeout`` (billed at worst case, the provider's Retry-After and the auth
    cooldown lost), while the same body dripped was ``rate_limited`` at once."""
    # the call's own deadline far past the error body's 200 ms (a loaded machine's slow
    # connect, served late, met a 2 s one first: a timeout): only a wait for the body
    # itself, the defect, reaches it
    with _Dribbler(prefix, every=60.0, lasting=60.0) as server:
        failure = _fails(OpenAIClient(server.origin + "/v1", None), timeout=30.0)
    assert (failure.code, failure.retry_after_s, failure.refused) == (
        code, retry_after, True)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_an_error_body_cut_by_the_calls_deadline_keeps_the_status_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The status arrived before the deadline: the watchdog firing while its body is read
    leaves the status's error, never a ``timeout``."""
    from waymarks.models import http

    monkeypatch.setattr(http, "ERROR_BODY_S", 60.0)  # the deadline comes first
    # the deadline passes as the body's read begins, the status in hand: a real 1 s
    # deadline passed before the status came on a starved run (a timeout, rightly)
    arm_the_body_bound = http._Watchdog.cut_after

    def deadline_passes_now(watchdog: http._Watchdog, seconds: float) -> None:
        arm_the_body_bound(watchdog, seconds)
        watchdog._fire()  # what the call's timer does at its deadline

    monkeypatch.setattr(http._Watchdog, "cut_after", deadline_passes_now)
    prefix = _stalled(b"429 Too Many Requests", b"retry-after: 120\r\n")
    with _Dribbler(prefix, every=60.0, lasting=60.0) as server:
        failure = _fails(OpenAIClient(server.origin + "/v1", None), timeout=60.0)
    assert (failure.code, failure.retry_after_s, failure.refused) == (
        "rate_limited", 120.0, True)


def test_an_endpoint_or_key_the_client_cannot_send_is_a_model_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx raises InvalidURL for ``http://[::1/v1`` and UnicodeEncodeError for a header
    it cannot encode: neither is an ``httpx.HTTPError``, and both escaped ``complete``
    (the ModelClient contract: a ``ModelError``, never anything else)."""
    assert _fails(OpenAIClient("http://[::1/v1", None)).code == "unavailable"
    assert _fails(AnthropicClient("http://h:abc", None)).code == "unavailable"
    with FakeProvider([openai_ok("never")]) as fake:
        monkeypatch.setenv("EVO_KEY", "sk-caf\u00e9-0123456789")
        assert _fails(OpenAIClient(fake.origin + "/v1", "EVO_KEY")).code == "auth"
        requests = fake.requests
    assert requests == []  # nothing was sent


def test_a_closed_port_is_a_network_failure() -> None:
    # the port stays bound, never listening, while it is called: a port closed first could
    # be taken by another process meanwhile (an xdist worker's server), which answers
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        failure = _fails(OpenAIClient(f"http://127.0.0.1:{port}/v1", None))
    assert failure.code == "network"


def test_a_huge_error_body_is_read_only_to_its_limit() -> None:
    body = b"x" * (ERROR_BODY_BYTES * 50)
    with FakeProvider([(500, body, {}, 0.0)]) as fake:
        failure = _fails(OpenAIClient(fake.origin + "/v1", None))
    assert failure.code == "overloaded"


def test_an_oversized_reply_is_refused() -> None:
    text = "y" * (2 * 1024 * 1024)
    with FakeProvider([openai_ok(text)]) as fake:
        failure = _fails(OpenAIClient(fake.origin + "/v1", None))
    assert failure.code == "invalid_output"


def test_client_for_picks_the_adapter() -> None:
    assert isinstance(client_for("openai", "http://h/v1", None), OpenAIClient)
    assert isinstance(client_for("anthropic", "http://h", "K"), AnthropicClient)
    with pytest.raises(ValueError, match="no model adapter"):
        client_for("smoke-signals", None, None)


SLOW_HOST = "slow-resolver.test"


def _resolver(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]],
              release: threading.Event, entered: threading.Event) -> None:
    """``socket.getaddrinfo`` answering ``answers`` (host -> addresses) for the names it
    knows; for ``SLOW_HOST`` it first hangs until ``release`` (at most 5 s, so a client
    that waits for it fails its test instead of hanging the run)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        name = host.decode() if isinstance(host, bytes) else host
        if name == SLOW_HOST:
            entered.set()
            if not release.wait(5.0):
                entered.clear()  # waited out: a call that returns after this waited for it
        if name in answers:
            return [info for address in answers[name]
                    for info in real(address, port, *args, **kwargs)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.slow
def test_a_resolver_that_hangs_is_cut_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: DNS ran inside httpx's connect, before there was a socket for the watchdog
    to shut, so a hanging resolver held the call past ``timeoutMs`` (here until the fake
    resolver gave up waiting after 5 s; only then did the call report its timeout)."""
    release, entered = threading.Event(), threading.Event()
    _resolver(monkeypatch, {SLOW_HOST: ["127.0.0.1"]}, release, entered)
    try:
        with FakeProvider([openai_ok("late")]) as fake:
            port = fake.origin.rsplit(":", 1)[1]
            failure = _fails(OpenAIClient(f"http://{SLOW_HOST}:{port}/v1", None),
                             timeout=0.5)
            assert failure.code == "timeout"
            assert entered.is_set()  # the resolver is still hanging: not waited for
            assert fake.requests == []
    finally:
        release.set()


def test_a_name_with_several_addresses_falls_back_to_the_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``localhost`` often resolves to ::1 first while a local model server listens on
    127.0.0.1 only: the next address is tried, as ``socket.create_connection`` does."""
    name = "two-addresses.test"
    with FakeProvider([openai_ok("hello")]) as fake:  # on 127.0.0.1; 127.0.0.2 refuses
        port = int(fake.origin.rsplit(":", 1)[1])
        _resolver(monkeypatch, {name: ["127.0.0.2", "127.0.0.1"]}, threading.Event(),
                  threading.Event())
        reply = OpenAIClient(f"http://{name}:{port}/v1", None).complete(
            REQUEST, ROUTE, timeout_s=5)
    assert reply.text == "hello"


def test_a_name_that_does_not_resolve_is_a_network_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> list[object]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    failure = _fails(OpenAIClient("http://no-such-host.test:9/v1", None))
    assert failure.code == "network"
