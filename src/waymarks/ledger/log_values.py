"""What a session ledger's reader yields, and the line shapes it decodes in one pass
(split from :mod:`waymarks.ledger.log`, which reads and appends: these are its values)."""

from __future__ import annotations

from typing import Final

import msgspec

from waymarks.core.model import (
    MEMORY_CUSTOM_TYPE,
    PIN_CUSTOM_TYPE,
    MemoryMutation,
    PinMutation,
)
from waymarks.core.records import json_decoder


class SessionFileError(Exception):
    """The ledger cannot be used as a session; the message names it and the fix."""


class _PinEntry(msgspec.Struct, kw_only=True):
    type: str
    id: str
    parentId: str | None = None
    timestamp: str
    customType: str
    data: PinMutation


class _MemoryEntry(msgspec.Struct, kw_only=True):
    type: str
    id: str
    parentId: str | None = None
    timestamp: str
    customType: str
    data: MemoryMutation


# One-pass decoders for the lines that matter most to replay; anything they reject takes
# the general path, which classifies it.
FAST_PATHS: Final = (
    (b'"customType":"' + PIN_CUSTOM_TYPE.encode() + b'"', PIN_CUSTOM_TYPE,
     json_decoder(_PinEntry)),
    (b'"customType":"' + MEMORY_CUSTOM_TYPE.encode() + b'"', MEMORY_CUSTOM_TYPE,
     json_decoder(_MemoryEntry)),
)


class Entry(msgspec.Struct, frozen=True):
    """One tree node: where it is and what kind of entry it is."""

    id: str
    parent_id: str | None
    type: str
    index: int
    timestamp: str


def earlier(entry: Entry, below: int | None) -> bool:
    """Whether a branch walked back from an entry at position ``below`` (``None``: the
    leaf itself) may go on to ``entry``: only to an entry earlier in the file."""
    return below is None or entry.index < below


class Anomaly(msgspec.Struct, frozen=True):
    """A line or payload that was kept in the file but not used, and why."""

    line: int
    entry_id: str | None
    kind: str  # "skipped" | "unknown" | "malformed"
    detail: str
