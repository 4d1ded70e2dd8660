"""Typed results of service calls: a write is committed, a duplicate, or rejected.

Rejections carry a stable ``code`` that scripts can branch on, a message that says what
to do, and the IDs involved. A rejected write has appended nothing, except ``not_applied``:
the entry reached the append-only ledger but the projection shows it does not apply (the
ledger refused its payload, or the rules ignored it), so it is not reported as committed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Literal

import msgspec

from waymarks.core.decision_types import Duplicate, Rejected, RejectionCode
from waymarks.core.model import Mutation, PinMutation
from waymarks.core.records import replace

__all__ = [
    "Committed",
    "Duplicate",
    "LedgerDamaged",
    "Rehearsed",
    "Rejected",
    "RejectionCode",
    "ServiceError",
    "WriteOutcome",
    "committed_outcome",
    "with_notices",
]


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

    @property
    def refusal(self) -> bool:
        """Whether the request is what failed (refused: the CLI's exit 2, the inspector's
        "Refused"), not the environment (exit 1, "Failed")."""
        return self.request or self.code in REQUEST_ERRORS


#: the codes of errors the request causes, whatever raised them (an unknown ID, the
#: active session named for exclusion, a credential in the text)
REQUEST_ERRORS: Final = frozenset({"not_found", "empty", "invalid_argument", "no_session",
                                   "active_source", "credential"})


def io_error(exc: OSError) -> ServiceError:
    """A request the file system stopped (a full disk, a file-size limit, a file that
    cannot be written, a lock held too long), as the command line reports it:
    ``io_error``, what failed on which file, and how to mend it."""
    from waymarks.files.errors import fix_for, os_error_cause  # (a failure's alone)

    return ServiceError("io_error", f"{os_error_cause(exc)}; nothing was acknowledged"
                        f"{fix_for(exc)}")


@contextmanager
def io_errors() -> Iterator[None]:
    """Raise an ``OSError`` of the block as :func:`io_error` (from it): a program using
    the Python API got a raw ``OSError`` from a write on a full disk (a decorator too). A
    lock not free in time stays what it is (``SessionBusy``, a ``TimeoutError``: a caller
    may wait and retry)."""
    try:
        yield
    except TimeoutError:
        raise
    except OSError as exc:
        raise io_error(exc) from exc


class LedgerDamaged(ServiceError):
    """The evolution ledger is there but cannot be read (empty, bytes before its header,
    not a regular file). It is canonical, so nothing moves, deletes or rewrites it: the
    learning commands refuse, recall and plans leave learned memory out with this one
    line as a note, ``health`` names it, and a capture waits in the spool, its tries
    uncounted, until the ledger is moved aside (:mod:`waymarks.service.capture_spool`).
    Here, not in :mod:`waymarks.service.evolution`, so the capture paths can catch it
    without importing that module (an import cycle)."""

    def __init__(self, path: Path, why: str, denied: bool = False) -> None:
        """``denied``: this user may not read it (or look into its folder): moving it
        aside, the fix for damage, set the only record of what was learned aside where a
        ``chmod`` was the fix."""
        from waymarks.core.text import shell_command

        fix = (f"learned memory is left out until this user may read and write it: "
               f"{shell_command(['chmod', 'u+rw', str(path)])}, and "
               f"{shell_command(['chmod', 'u+rwx', str(path.parent)])} (their owner may have "
               "to)" if denied else "learned memory is left out until you move it aside: "
               f"{shell_command(['mv', str(path), f'{path}.aside'])} "
               "(keep it: it is the only record of what was learned; captures made "
               "meanwhile wait and are stored then)")
        super().__init__("bad_state", f"{path}: the learned ledger cannot be read ({why}); "
                         f"{fix}")

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
