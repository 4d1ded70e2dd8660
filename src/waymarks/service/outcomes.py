"""Typed results of service calls: a write is committed, a duplicate, or rejected.

Rejections carry a stable ``code`` that scripts can branch on, a message that says what
to do, and the IDs involved. A rejected write has appended nothing, except ``not_applied``:
the entry reached the append-only ledger but the projection shows it does not apply (the
ledger refused its payload, or the rules ignored it), so it is not reported as committed.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from waymarks.core.decisions import Duplicate, Rejected, RejectionCode
from waymarks.core.model import Mutation, PinMutation
from waymarks.core.records import replace

__all__ = ["Committed", "Duplicate", "Rehearsed", "Rejected", "RejectionCode",
           "ServiceError", "WriteOutcome", "committed_outcome", "with_notices"]


class Committed(msgspec.Struct, frozen=True):
    """A mutation was appended durably and projected."""

    id: str
    entry_id: str
    kind: str
    operation: str
    previous_id: str | None = None
    warning: str | None = None
    outcome: Literal["committed"] = "committed"
    #: things the person probably wants to know about what was stored (one line each)
    notices: tuple[str, ...] = ()


WriteOutcome = Committed | Duplicate | Rejected


class ServiceError(Exception):
    """A request that cannot be served (bad session file, damaged home); message says why."""

    def __init__(self, code: str, message: str, *, request: bool = False) -> None:
        super().__init__(message)
        self.code = code
        #: caused by the request (a bad argument: exit 2), whatever the code says
        self.request = request


class Rehearsed(Exception):
    """Raised in a rehearsal (``Waymarks.rehearsing``) where a write passed every check and
    would append now: the write stops there, having appended nothing. A caller that asks a
    person before acting rehearses first, so every refusal comes before the question."""


def committed_outcome(mutation: Mutation, entry_id: str,
                      warning: str | None = None) -> Committed:
    """What a write reports once ``mutation`` is in the ledger as entry ``entry_id``."""
    kind = "pin" if isinstance(mutation, PinMutation) else "memory"
    if mutation.operation == "status":
        target = mutation.pin_id if isinstance(mutation, PinMutation) else mutation.memory_id
        return Committed(target or "", entry_id, kind, "status", warning=warning)
    assert mutation.item is not None
    return Committed(mutation.item.id, entry_id, kind, mutation.operation, mutation.previous_id,
                     warning=warning)


def with_notices(outcome: WriteOutcome, notices: tuple[str, ...]) -> WriteOutcome:
    """``outcome`` carrying ``notices`` when it was committed (else as it is)."""
    if not notices or not isinstance(outcome, Committed):
        return outcome
    return replace(outcome, notices=outcome.notices + notices)
