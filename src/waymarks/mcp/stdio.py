"""The stdio transport of ``waymarks mcp``: the SDK's, behind a screen that answers every
line the SDK would drop without a word (its reader turns a line that does not validate
into an exception the session only logs, so a JSON-RPC client waits for its timeout).

- a line that is not JSON (or is nested too deep to decode): ``-32700``, id ``null``;
- JSON that is not a request object (``[]``, a batch, ``5``, a request without
  ``jsonrpc``/``method``): ``-32600``, with the request's id when it has one;
- a request whose id is neither a string nor an integer (``1.5``, ``true``, ``null``, an
  object, a list), which the SDK would take for a notification and never answer:
  ``-32600``, id ``null``, and the request is not run;
- a request holding a lone surrogate (``"\\ud800"``), which the SDK's parser refuses and
  no ledger line can hold, or bytes that are not UTF-8 (decoded strictly: each such byte
  is read as a lone surrogate, never replaced by U+FFFD and stored): ``tools/call`` is a
  refused tool result (``invalid-parameters``), any other request ``-32602``, a
  notification nothing; a line whose bytes are not UTF-8 outside a string is not JSON;
- a response (the client's answer to the server's own request, an elicitation) that the
  SDK cannot take (a lone surrogate in it, or not a valid response) is never answered, as
  JSON-RPC forbids: it goes to the SDK as a JSON-RPC error response with its id
  (:class:`Instead`), so the call waiting for it ends (a confirmation answered so is
  ``cancelled``/``confirmation-invalid``, as any client's error is). Before, it was
  answered with an error the client ignored, and the tool call waited forever. One whose
  id the server cannot have sent is dropped.

Every other line goes to the SDK unchanged. Standard input is moved off fd 0 while
serving (as the SDK does), so a child process never reads the protocol's bytes.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from typing import Any, BinaryIO, Final, NamedTuple, cast

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage

from waymarks.core.text import all_unicode

UNICODE_MESSAGE = ("the request holds text that is not valid Unicode (lone surrogates, or "
                   "bytes that are not UTF-8)")


Answer = types.JSONRPCResponse | types.JSONRPCError


class Instead(NamedTuple):
    """A client's response the SDK cannot take, to pass on to it as ``message`` (an error
    response with the same id): a response is never answered."""

    message: types.JSONRPCError

    def line(self) -> str:
        return self.message.model_dump_json(by_alias=True, exclude_unset=True)


class Dropped(NamedTuple):
    """A notification or response the SDK cannot take, which gets no answer over stdio;
    ``error`` says why, for a transport that answers every message it is sent (HTTP: a
    plain ASCII response that is not a valid one was answered as not valid Unicode)."""

    error: types.ErrorData


#: a line dropped for text that is not valid Unicode
DROPPED_UNICODE: Final = Dropped(types.ErrorData(
    code=types.INVALID_PARAMS, message=f"Invalid params: {UNICODE_MESSAGE}"))
#: a response dropped for not being one the SDK can take (its id none the server sent)
DROPPED_RESPONSE: Final = Dropped(types.ErrorData(
    code=types.INVALID_REQUEST, message="Invalid Request: not a valid JSON-RPC 2.0 "
    "response"))


def screen(line: str) -> Answer | Instead | Dropped | None:
    """The answer to a line the SDK cannot take (``None``: pass it on; :class:`Dropped`: a
    notification or response the SDK cannot take, which gets no answer; :class:`Instead`:
    pass that on instead)."""
    return _screened(line)[0]


def _screened(line: str) -> tuple[Answer | Instead | Dropped | None, object]:
    """:func:`screen`'s answer, and the line as decoded (``None``: not JSON)."""
    try:
        raw = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON"), None
    return _judged(line, raw), raw


def _judged(line: str, raw: object) -> Answer | Instead | Dropped | None:
    """:func:`screen`'s answer to ``line``, decoded as ``raw``."""
    request_id = _id_of(raw)
    if not isinstance(raw, dict):
        return _error(None, types.INVALID_REQUEST, "Invalid Request: not a JSON object "
                      "(batches are not supported)")
    if "method" not in raw and ("result" in raw or "error" in raw):
        return _response(line, raw, request_id)
    if "method" in raw and "id" in raw and request_id is None:
        return _error(None, types.INVALID_REQUEST, "Invalid Request: the id must be a string "
                      "(of valid Unicode) or an integer")
    if not all_unicode(raw):
        if "method" in raw and "id" not in raw:
            return DROPPED_UNICODE
        if raw.get("method") == "tools/call" and request_id is not None:
            from waymarks.mcp.common import json_result  # (the tools' results: on a call)

            refused = json_result({"outcome": "rejected", "category": "invalid-parameters",
                                   "message": UNICODE_MESSAGE})
            return types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=refused.model_dump(
                by_alias=True, exclude_none=True, mode="json"))
        return _error(request_id, types.INVALID_PARAMS, f"Invalid params: {UNICODE_MESSAGE}")
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:  # pydantic's ValidationError
        return _error(request_id, types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC "
                      "2.0 request, notification or response")
    return None


def _response(line: str, raw: dict[str, Any], request_id: int | str | None
              ) -> Instead | Dropped | None:
    """A response passes unchanged when the SDK can take it; else it is passed on as an
    error response with its id, for the request waiting for it (never answered: JSON-RPC
    forbids it, and the client would not read it), or dropped when its id is none the
    server sends (an integer: the server's requests are numbered)."""
    unicode = all_unicode(raw)
    if unicode:
        try:
            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            return None
        except ValueError:  # pydantic's ValidationError
            pass
    if type(request_id) is not int:
        return DROPPED_RESPONSE if unicode else DROPPED_UNICODE
    return Instead(_error(request_id, types.INVALID_PARAMS, "the client's response was not "
                          "valid Unicode or not a JSON-RPC 2.0 response"))


def _id_of(raw: object) -> int | str | None:
    """The request's ID if it can be echoed: an integer, or a string of valid Unicode (a
    lone surrogate, from an escape or a byte that is not UTF-8, could not be written
    back: the answer's serialisation ended the server)."""
    found = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(found, str):
        return found if all_unicode(found) else None
    return found if type(found) is int else None


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id,
                              error=types.ErrorData(code=code, message=message))


class _Screened:
    """The lines of standard input the SDK can take; the others are answered here,
    through the SDK's own writer (so answers never interleave)."""

    def __init__(self, source: BinaryIO) -> None:
        # a byte that is not UTF-8 becomes a lone surrogate, which the screen refuses
        # (errors="replace" turned it into U+FFFD, and a note was stored holding that)
        self._text = TextIOWrapper(source, encoding="utf-8", errors="surrogateescape")
        self._ready = anyio.Event()
        self._write: MemoryObjectSendStream[SessionMessage] | None = None
        self.in_flight = _InFlight()

    def answer_through(self, write: MemoryObjectSendStream[SessionMessage]) -> None:
        self._write = write
        self._ready.set()

    async def _lines(self) -> AsyncIterator[str]:
        """Standard input's lines, each read on request by a daemon thread of their own.
        The SDK's (and this module's before) read them in a worker thread the event loop
        waits for: after Ctrl-C the server answered nothing more, yet lived on, holding
        the database open, until standard input closed. A daemon thread blocked reading
        is left behind, and the process ends at once. (One line per request, as before:
        a line is read when the one before was taken.)"""
        asked: queue.SimpleQueue[Callable[[str], None]] = queue.SimpleQueue()
        token = anyio.lowlevel.current_token()

        def serve() -> None:
            while True:
                deliver = asked.get()
                try:
                    line = self._text.readline()
                except OSError:  # standard input cannot be read: its end, as a closed one
                    line = ""
                try:
                    anyio.from_thread.run_sync(deliver, line, token=token)
                except RuntimeError:  # the server's loop has ended
                    return

        threading.Thread(target=serve, name="waymarks-mcp-stdin", daemon=True).start()
        while True:
            got: list[str] = []
            done = anyio.Event()

            def deliver(line: str, got: list[str] = got, done: anyio.Event = done) -> None:
                got.append(line)
                done.set()

            asked.put(deliver)
            await done.wait()
            if not got[0]:
                return
            yield got[0]

    async def __aiter__(self) -> AsyncIterator[str]:
        await self._ready.wait()
        async for line in self._lines():
            if not line.strip():
                continue
            answer, raw = _screened(line)
            if answer is None:
                self.in_flight.passed(raw)
                yield line
            elif isinstance(answer, Instead):
                yield answer.line()
            elif not isinstance(answer, Dropped) and self._write is not None:
                await self._write.send(SessionMessage(answer))
        await self.in_flight.settled()  # (the SDK cancels what is in flight at the end)


class _InFlight:
    """The client's requests passed on to the SDK and not answered yet. At the end of
    standard input the SDK cancelled every call in flight and answered each "Connection
    closed" (-32000), though the output was open and a call may have written: the end is
    passed on once they are answered (or once the server asks the client something, which
    it can no longer answer: then the SDK ends that call as before)."""

    def __init__(self) -> None:
        self._asked: dict[int | str, int] = {}
        self._theirs: set[int | str] = set()  # the server's requests, unanswered
        self._changed = anyio.Event()

    def passed(self, raw: object) -> None:
        """Note a line passed on to the SDK."""
        if not isinstance(raw, dict):
            return
        request_id, method = _id_of(raw), raw.get("method")
        if method == "notifications/cancelled":  # (never answered, as the spec says)
            params = raw.get("params")
            self._settle(_id_of({"id": params.get("requestId")})
                         if isinstance(params, dict) else None)
        elif request_id is not None and method is not None:
            key = coerce_request_id(request_id)  # ("7" and 7 are one id to the SDK)
            self._asked[key] = self._asked.get(key, 0) + 1
        elif request_id is not None:
            self._theirs.discard(coerce_request_id(request_id))

    def sent(self, message: object) -> None:
        """Note a message the SDK wrote."""
        if isinstance(message, types.JSONRPCRequest):
            self._theirs.add(coerce_request_id(message.id))
            self._wake()
        elif isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._settle(message.id)

    def _settle(self, request_id: int | str | None) -> None:
        key = None if request_id is None else coerce_request_id(request_id)
        if key is not None and key in self._asked:
            self._asked[key] -= 1
            if not self._asked[key]:
                del self._asked[key]
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def settled(self) -> None:
        """Wait until no call is in flight, or the server waits for the client."""
        while self._asked and not self._theirs:
            await self._changed.wait()


class _Watched:
    """The SDK's write stream, each message it sends noted in :class:`_InFlight`."""

    def __init__(self, stream: MemoryObjectSendStream[SessionMessage],
                 in_flight: _InFlight) -> None:
        self._stream = stream
        self._in_flight = in_flight

    async def send(self, item: SessionMessage) -> None:
        await self._stream.send(item)
        self._in_flight.sent(item.message)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _Watched:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stream.__aexit__(*exc)


@contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """Standard input's bytes, with fd 0 pointing at the null device meanwhile."""
    try:
        private = os.dup(0)
        nothing = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        import sys

        yield sys.stdin.buffer
        return
    try:
        os.dup2(nothing, 0)
    finally:
        os.close(nothing)
    try:
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


async def run_screened(server: Any) -> None:
    """Serve the low-level SDK ``server`` over stdio, behind :func:`screen`.

    Ctrl-C cancels this task (the event loop's handler) and ends as ``KeyboardInterrupt``;
    right after the handshake the SDK's teardown could raise its streams' closing instead
    (an exception group of ``BrokenResourceError``), which hid the interrupt: a traceback
    and exit 1 about half the time. Such a group under a cancellation is the cancellation.

    A client that stopped reading (killed, crashed, with calls in flight) leaves nobody to
    answer: the SDK's writer raised ``BrokenPipeError`` in a group, a traceback and exit 1.
    It ends as the end of input does, quietly."""
    import asyncio

    try:
        with _claimed_stdin() as source:
            lines = _Screened(source)
            async with stdio_server(stdin=cast(Any, lines)) as (read_stream, write_stream):
                lines.answer_through(write_stream)
                await server.run(read_stream, _Watched(write_stream, lines.in_flight),
                                 server.create_initialization_options())
    except BaseExceptionGroup as group:
        task = asyncio.current_task()
        if task is not None and task.cancelling() and group.split(_TEARDOWN)[1] is None:
            raise asyncio.CancelledError from None
        broken, rest = group.split((BrokenPipeError, *_TEARDOWN))
        if rest is None and broken is not None and broken.subgroup(BrokenPipeError):
            return  # the client left: nothing more can be answered
        raise


#: what the SDK's streams raise when a cancellation closed them under a task
_TEARDOWN: Final = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)
