"""What a connection may hold of the two local HTTP servers (the web inspector, MCP over
HTTP): a deadline for a request's headers, and a bound on connections at once.

uvicorn's HTTP/1.1 protocol (h11) gives a connection that sends part of its headers and
then nothing all the time it wants: its keep-alive timeout starts only after a response.
Before any check of the token can run (the headers are not complete), any local process
could open thousands of such connections: the inspector ran out of file descriptors (a
real request then timed out, and its log grew by 70 MB of ``Too many open files`` in
25 s), and the MCP server kept every one (found in a security review). Here:

- a request's headers must be complete within :data:`HEADER_SECONDS` of the connection,
  or of the answer before (a request waiting on a slow body is the application's: both
  servers cap a body's size). The deadline runs whenever no request is under way, checked
  as data arrives and as an answer ends: a first version followed the request cycles
  instead, and two requests sent at once, then part of a third, held a connection for
  ever (the second was served from uvicorn's buffer, not from new data: a review found
  it);
- a connection past :data:`MAX_CONNECTIONS` open at once is closed as it arrives, so a
  flood cannot take the process's descriptors (uvicorn's ``limit_concurrency`` answers
  503 only to a complete request, and the flood's never complete).

What must stay true: a client that sends its request in time is served as before
(``Config(http=GuardedH11)``); nothing here reads or answers a request.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a connection has to send a request's headers (from its start, or from the
#: end of the response before on a kept-alive connection)
HEADER_SECONDS: Final = 10.0
#: connections open at once; one past it is closed at once (a browser opens six per host)
MAX_CONNECTIONS: Final = 256


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a bound on connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is None or self.cycle.response_complete:
            if self._deadline is None:  # (armed once: a byte at a time does not extend it)
                self._arm()  # no request under way: these are part of the next one's headers
        else:
            self._disarm()  # a request under way is the application's

    def on_response_complete(self) -> None:
        super().on_response_complete()  # (it may start a request waiting in its buffer)
        if self.cycle is None or self.cycle.response_complete:
            self._arm()  # the next request's headers: from the answer before (uvicorn's
            # keep-alive timeout, 5 s by default, closes an idle connection sooner)
        else:
            self._disarm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
