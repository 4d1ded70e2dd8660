"""Encoding and decoding of mutation payloads (the ``data`` of DS4 custom entries).

Decoding never guesses. A payload is one of:
- a :data:`~waymarks.core.model.Mutation` that passed every structural check;
- :class:`UnknownPayload`: our custom-type family but a ``customType`` or
  ``schemaVersion`` this version does not know. It is preserved and reported, never applied;
- :class:`MalformedPayload`: a known type and version whose fields are wrong.

Encoding writes camelCase keys in declaration order with absent optionals omitted, the
shape the reference implementation writes and reads.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.model import (
    KNOWN_CUSTOM_TYPES,
    MEMORY_CUSTOM_TYPE,
    MEMORY_SCOPES,
    MEMORY_STATUS_TARGETS,
    PIN_CUSTOM_TYPE,
    PIN_STATUS_TARGETS,
    SCHEMA_VERSION,
    MemoryMutation,
    Mutation,
    PinItem,
    PinMutation,
)
from waymarks.core.records import json_decoder


class UnknownPayload(msgspec.Struct, frozen=True):
    """A payload we must keep but cannot interpret (future type or schema version)."""

    custom_type: str
    schema_version: object


class MalformedPayload(msgspec.Struct, frozen=True):
    """A payload of a known type and version whose fields do not validate."""

    custom_type: str
    problem: str


DecodedPayload = Mutation | UnknownPayload | MalformedPayload

_PIN_DECODER: Final = json_decoder(PinMutation)
_MEMORY_DECODER: Final = json_decoder(MemoryMutation)
_LOOSE_DECODER: Final = msgspec.json.Decoder()
_ENCODER: Final = msgspec.json.Encoder()
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND: Final = timedelta(milliseconds=1)
_HOUR_MS: dict[str, int] = {}  # a pure memo of iso_to_ms's fast path
_HOUR_CACHE_LIMIT: Final = 4096
#: the timestamp form Pi writes (``2026-01-01T00:00:00.000Z``): the hour (any 13 characters,
#: parsed once), then minutes and seconds below 60 and milliseconds, in ASCII digits only
#: (``str.isdigit`` also takes "²", which ``int`` refuses: one such timestamp in any
#: session file made every command fail)
_PI_TIMESTAMP: Final = lazy(r"(.{13}):([0-5][0-9]):([0-5][0-9])\.([0-9]{3})Z", re.DOTALL)
_INT64_MIN: Final = -(2**63)
#: the largest integer SQLite stores (a larger one is refused with OverflowError)
INT64_MAX: Final = 2**63 - 1


def decode_payload(custom_type: str, data: bytes | None) -> DecodedPayload:
    """Decode and validate the raw JSON ``data`` of a custom entry of our family."""
    if custom_type not in KNOWN_CUSTOM_TYPES:
        return UnknownPayload(custom_type, _schema_version_of(data))
    if data is None:
        return MalformedPayload(custom_type, "custom entry has no data")
    decoder = _PIN_DECODER if custom_type == PIN_CUSTOM_TYPE else _MEMORY_DECODER
    try:
        mutation: Mutation = decoder.decode(data)
    except RecursionError:
        return MalformedPayload(custom_type, "data is nested too deeply")
    except msgspec.DecodeError as exc:
        loose = _loose(data)
        if not isinstance(loose, dict):
            return MalformedPayload(custom_type, "data is not a JSON object")
        version = loose.get("schemaVersion")
        if version != SCHEMA_VERSION:
            return UnknownPayload(custom_type, version)
        return MalformedPayload(custom_type, str(exc))
    return checked_payload(custom_type, mutation)


def checked_payload(custom_type: str, mutation: Mutation) -> DecodedPayload:
    """The verdict on a payload that decoded into its struct: usable, unknown or malformed."""
    if mutation.schema_version != SCHEMA_VERSION:
        return UnknownPayload(custom_type, mutation.schema_version)
    problem = structural_problem(mutation)
    return MalformedPayload(custom_type, problem) if problem else mutation


def structural_problem(mutation: Mutation) -> str | None:
    """What makes a type-correct mutation unusable, or ``None`` if it is sound."""
    if not mutation.mutation_id:
        return "mutationId is empty"
    if not _INT64_MIN <= mutation.created_at <= INT64_MAX:
        return "createdAt is out of range"
    if mutation.item is not None and not _INT64_MIN <= mutation.item.created_at <= INT64_MAX:
        return "item createdAt is out of range"
    if mutation.operation == "status":
        target = mutation.pin_id if isinstance(mutation, PinMutation) else mutation.memory_id
        if not target:
            return "status mutation names no item"
        allowed = PIN_STATUS_TARGETS if isinstance(mutation, PinMutation) else MEMORY_STATUS_TARGETS
        if mutation.status not in allowed:
            return f"status {mutation.status!r} cannot be set by a status mutation here"
        return None
    item = mutation.item
    if item is None:
        return f"{mutation.operation} mutation has no item"
    if mutation.operation == "supersede" and not mutation.previous_id:
        return "supersede mutation has no previousId"
    if not item.id:
        return "item id is empty"
    if isinstance(mutation, MemoryMutation) and item.scope not in MEMORY_SCOPES:
        return f"memory scope {item.scope!r} is not allowed"
    if item.scope == "project" and not item.project_path:
        return "project item has no projectPath"
    if isinstance(item, PinItem) and item.scope == "branch" and not item.branch_leaf_id:
        return "branch pin has no branchLeafId"
    return None


def encode_payload(mutation: Mutation) -> bytes:
    """Canonical JSON of a mutation payload."""
    return _ENCODER.encode(mutation)


def payload_digest(payload: bytes) -> bytes:
    """A short digest of a payload's canonical JSON (:func:`encode_payload`): what a
    whole check compares a ledger's mutations with the projection's by."""
    from waymarks.core.digests import blake2b

    return blake2b(payload, digest_size=16).digest()


def custom_type_of(mutation: Mutation) -> str:
    return PIN_CUSTOM_TYPE if isinstance(mutation, PinMutation) else MEMORY_CUSTOM_TYPE


def iso_to_ms(timestamp: str) -> int | None:
    """Milliseconds since the epoch for an ISO-8601 timestamp, ``None`` if unparseable."""
    # Fast path for the form Pi writes, 2026-01-01T00:00:00.000Z: one match checks the
    # shape (ASCII digits, minutes and seconds below 60), the hour is parsed once and
    # cached, minutes, seconds and milliseconds are added (replay reads every entry).
    if not isinstance(timestamp, str):
        return None
    shape = _PI_TIMESTAMP.fullmatch(timestamp)
    if shape is not None:
        hour_text, minutes, seconds, millis = shape.groups()
        hour = _HOUR_MS.get(hour_text)
        if hour is None:
            hour = _parse_ms(hour_text + ":00:00+00:00")
            if hour is None:
                return None
            if len(_HOUR_MS) > _HOUR_CACHE_LIMIT:
                _HOUR_MS.clear()
            _HOUR_MS[hour_text] = hour
        return hour + int(minutes) * 60_000 + int(seconds) * 1000 + int(millis)
    return _parse_ms(timestamp)


def utc_text(ms: int | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """``ms`` after the epoch as UTC text in ``pattern`` (``2026-11-30 10:04``), or ``-``
    when unknown or outside the years a date can hold: a ledger may say ``createdAt``
    -99999999999999, and listing it raised ``ValueError`` in every listing and recall."""
    if not ms:
        return "-"
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime(pattern)
    except (OverflowError, ValueError, OSError):
        return "-"


_EARLIEST: Final = datetime(1000, 1, 1, tzinfo=UTC)
_LATEST: Final = datetime.max.replace(tzinfo=UTC)


def utc_clamped(ms: int) -> datetime:
    """The UTC moment ``ms`` after the epoch, held to the years 1000-9999 (four digits:
    ISO texts of them compare as the moments do), for comparisons and ISO text that must
    not raise on what a ledger says."""
    try:
        moment = datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, ValueError, OSError):
        moment = _LATEST if ms > 0 else _EARLIEST
    return min(max(moment, _EARLIEST), _LATEST)


def _parse_ms(timestamp: str) -> int | None:
    try:
        moment = datetime.fromisoformat(timestamp)
    except (ValueError, TypeError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MILLISECOND


def _loose(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return _LOOSE_DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None


def _schema_version_of(data: bytes | None) -> object:
    loose = _loose(data)
    return loose.get("schemaVersion") if isinstance(loose, dict) else None
