"""Ports the service depends on, with their production implementations.

Time and identity are injected so that tests and replay are deterministic: nothing in
``core`` reads a clock or a random source.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from typing import Literal, Protocol

# the ledger port and its error, re-exported for the layers above the service
import msgspec

from waymarks.ledger.log import SessionFileError as SessionFileError
from waymarks.ledger.log import SessionLog as SessionLog


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class IdSource(Protocol):
    def entry_id(self) -> str:
        """A Pi entry ID: 8 lowercase hex characters."""
        ...

    def uuid(self) -> str:
        """A fresh UUID for sessions, items and mutations."""
        ...


Decision = Literal["accepted", "declined", "cancelled", "unavailable"]


class ConfirmationRequest(msgspec.Struct, frozen=True):
    """What the person is asked: a title and a bounded, local-only message."""

    title: str
    message: str


class Confirmer(Protocol):
    def confirm(self, request: ConfirmationRequest) -> Decision:
        """Ask the person, on their own screen. ``unavailable`` when there is no one to
        ask (no UI); ``cancelled`` when the dialog was closed or aborted."""
        ...


class NoConfirmer:
    """Headless modes: nobody can confirm, so every write is unavailable."""

    def confirm(self, request: ConfirmationRequest) -> Decision:
        return "unavailable"


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class RandomIds:
    def entry_id(self) -> str:
        return os.urandom(4).hex()  # what secrets.token_hex(4) does, without importing it

    def uuid(self) -> str:
        return str(uuid.uuid4())


def iso(moment: datetime) -> str:
    """Pi's timestamp form: ISO-8601 UTC with milliseconds and a ``Z``."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
