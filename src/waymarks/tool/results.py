"""Results of ``context_persistence``: deterministic, metadata-only templates.

``details`` holds only metadata (IDs, revisions, scopes, statuses, classifications, counts,
outcome and error codes); ``text`` is that metadata as one JSON line followed by a readable
rendering, plus, for a find, short previews the destination may receive. Nothing the
model sent and nothing a person confirmed is ever copied into a result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from waymarks.tool.contract import RESULT_CONTRACT
from waymarks.tool.egress import result_text

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

Outcome = Literal["ok", "committed", "rejected", "cancelled", "unavailable",
                  "committed_projection_pending", "indeterminate"]
PersistenceClass = Literal["read", "canonical", "derived-local-policy"]
#: outcomes where nothing was done, or where it cannot be shown that it was: an MCP
#: result says ``isError`` for these (the categorized outcome stays in the details)
FAILED: Final = frozenset({"rejected", "cancelled", "unavailable", "indeterminate"})
#: a read's ``stale``: the home's disk is full, the database read as it is
STALE: Final = "disk-full"


class ToolResult(msgspec.Struct, frozen=True):
    details: dict[str, Any]
    previews: tuple[str, ...] = ()

    @property
    def outcome(self) -> str:
        return str(self.details["outcome"])

    @property
    def is_error(self) -> bool:
        return self.outcome in FAILED

    @property
    def text(self) -> str:
        lines = [result_text(self.details)]
        lines += [f"preview {n}: {p}" for n, p in enumerate(self.previews, 1) if p]
        return "\n".join(lines)


def result(action: str | None, outcome: Outcome, *, error: str | None = None,
           persistence: PersistenceClass | None = None, **extra: Any) -> ToolResult:
    details: dict[str, Any] = {"contract": RESULT_CONTRACT, "action": action,
                               "outcome": outcome}
    if error is not None:
        details["errorCode"] = error
    if persistence is not None:
        details["persistenceClass"] = persistence
    details.update({k: v for k, v in extra.items() if v is not None})
    return ToolResult(details)


def listing(action: str, items: Sequence[dict[str, Any]], truncated: bool,
            previews: Sequence[str] = ()) -> ToolResult:
    base = result(action, "ok", persistence="read", items=list(items), truncated=truncated)
    return ToolResult(base.details, tuple(previews))


def read_noted(done: ToolResult, app: Waymarks) -> ToolResult:
    """A read, with what the command line says of its answer as metadata (no path, no
    error's words): ``stale`` on a full disk (the database read as it is: it may lack
    what was written since, and a find misses memory not yet indexed), and
    ``passedOver``, how many newer session files cut short it passed over."""
    said = {"stale": STALE if app.stale_note is not None else None,
            "passedOver": len(app.passed_over) if app.passed_over_note else None}
    if not any(said.values()):
        return done
    return ToolResult({**done.details, **{k: v for k, v in said.items() if v}},
                      done.previews)
