"""Name resolution bounded by a model call's deadline. The call's watchdog
(:mod:`waymarks.models.http`) cannot reach it: ``getaddrinfo`` runs before there is a
socket to shut down, and no timeout bounds it, so a resolver that does not answer held a
call past its ``timeoutMs``.

Imported on the first model call only: httpx itself imports httpcore then, not before.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2


def bounded_transport(call: threading.local) -> httpx2.HTTPTransport:
    """httpx's transport with :class:`BoundedBackend` as its network backend (``call``
    holds the deadline of the call its thread is making)."""
    transport = httpx2.HTTPTransport(trust_env=False)
    pool = getattr(transport, "_pool", None)
    # httpx offers no public way to name the network backend: a release that moves it
    # leaves resolution unbounded, which tests/evolution/test_models_http.py's
    # test_a_resolver_that_hangs_is_cut_at_the_deadline finds
    if isinstance(getattr(pool, "_network_backend", None), httpcore2.SyncBackend):
        pool._network_backend = BoundedBackend(call)  # type: ignore[union-attr]
    return transport


class BoundedBackend(httpcore2.SyncBackend):
    """httpcore's socket backend with the name resolved in a worker thread, waited on no
    longer than the call's deadline (``timeout``) then tried address by address, as
    ``socket.create_connection`` does (``localhost`` may give ::1 first while a local
    model server listens on 127.0.0.1 only)."""

    def __init__(self, call: threading.local) -> None:
        super().__init__()
        self.call = call

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None
                    ) -> httpcore2.NetworkStream:
        deadline = getattr(self.call, "deadline", None)
        if deadline is None and timeout is not None:  # not one of our calls
            deadline = time.monotonic() + timeout
        failure: Exception | None = None
        for address in resolve(host, port, deadline):
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            try:
                return super().connect_tcp(address, port, remaining, local_address,
                                           socket_options)
            except httpcore2.ConnectError as exc:
                failure = exc
        raise failure or httpcore2.ConnectTimeout("the deadline passed while connecting")


def resolve(host: str, port: int, deadline: float | None) -> list[str]:
    """The addresses of ``host`` (an address is its own), in ``getaddrinfo``'s order,
    awaited until ``deadline`` at most (``httpcore2.ConnectTimeout`` then; a name that
    does not resolve is ``httpcore2.ConnectError``, as httpcore says it)."""
    done = threading.Event()
    found: list[Any] = []

    def work() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except Exception as exc:  # noqa: BLE001 - OSError, or UnicodeError for a bad name
            found.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="waymarks-resolve", daemon=True).start()
    if not done.wait(None if deadline is None else max(0.0, deadline - time.monotonic())):
        raise httpcore2.ConnectTimeout("name resolution passed the deadline")
    if isinstance(found[0], Exception):
        raise httpcore2.ConnectError(f"name resolution failed ({type(found[0]).__name__})")
    return list(dict.fromkeys(str(info[4][0]) for info in found[0]))
