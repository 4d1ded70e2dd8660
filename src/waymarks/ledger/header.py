"""The Pi v3 session header: the first line of a session ledger, read and written.

Split from :mod:`waymarks.ledger.log` so the rules that say what a header is live in one
place, shared by the full reader and by pickers that look at a file's first line only.
What must stay true: a header is a ``{"type":"session"}`` line with a string ``id`` and
``cwd`` that can be a path (no NUL: a foreign file's made every command of that project
raise, each place that resolved it), absolute as Pi and Waymarks write it or empty (a
host's session of no project): a relative one (``"."``) was resolved against the reading
process's working directory, so such a file was a session of whichever project read it
from its own directory, and a rebuild run elsewhere dropped its items. Anything else is
not a header (``None``), never an error. A first line is read up to
:data:`MAX_HEADER_BYTES` (:func:`first_line`), and a full read takes no longer line for a
header (:func:`header_at`): a header a picker cannot see is no header to any reader.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

import msgspec

from waymarks.ledger.entries import EntryLine, decode_entry

__all__ = ["HEADER_READ", "MAX_HEADER_BYTES", "SESSION_VERSION", "SessionHeader", "first_line",
           "header_at", "header_line", "header_of", "parse_header"]

SESSION_VERSION: Final = 3
MAX_HEADER_BYTES: Final = 64 * 1024  # a header line longer than this is not a header
HEADER_READ: Final = 1024
_ENCODER: Final = msgspec.json.Encoder()


class SessionHeader(msgspec.Struct, frozen=True):
    id: str
    version: int | None
    timestamp: str
    cwd: str
    parent_session: str | None = None


def parse_header(line: bytes) -> SessionHeader | None:
    """The header a first line declares, by the rules a full read applies (``None``: the
    line is not a session header). For pickers that look at a file's first line only."""
    try:
        raw = decode_entry(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    return header_of(raw) if raw.type == "session" else None


def header_of(raw: EntryLine) -> SessionHeader | None:
    if raw.id is None or raw.cwd is None or "\x00" in raw.cwd or (
            raw.cwd and not os.path.isabs(raw.cwd)):  # (empty: a host's, of no project)
        return None
    return SessionHeader(raw.id, raw.version, raw.timestamp or "", raw.cwd, raw.parentSession)


def first_line(read: Callable[[int, int], bytes]) -> bytes | None:
    """A ledger's first line, through ``read(offset, limit)`` (``None``: no complete line
    within :data:`MAX_HEADER_BYTES`: what every picker and reader takes for its header)."""
    limit = HEADER_READ
    while True:
        first = read(0, limit)
        end = first.find(b"\n")
        if end >= 0:
            return first[:end]
        if len(first) < limit or limit >= MAX_HEADER_BYTES:
            return None
        limit *= 4


def header_at(line_no: int, raw: EntryLine, line: bytes, *,
              have_header: bool) -> SessionHeader | str:
    """The header a full read takes from line ``line_no`` (``raw``, decoded from
    ``line``), or why the line is skipped: a header only on line 1, once."""
    if have_header or line_no != 1:
        return "second session header"
    if len(line) >= MAX_HEADER_BYTES:  # (its line break past what pickers read)
        # what pickers read of a first line (``first_line``): a longer one is no header to
        # them, so a rebuild indexed a file every other read passed over, and then found
        # it "has no session header now"
        return f"session header longer than {MAX_HEADER_BYTES} bytes"
    header = header_of(raw)
    return "session header without id or cwd" if header is None else header


def header_line(session_id: str, timestamp: str, cwd: str) -> bytes:
    """The first line of a new session."""
    return _ENCODER.encode({"type": "session", "version": SESSION_VERSION, "id": session_id,
                            "timestamp": timestamp, "cwd": cwd}) + b"\n"
