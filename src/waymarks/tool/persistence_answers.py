"""``context_persistence``'s answers to a write: the one table from the write decisions'
rejection codes to the tool's error categories, a write outcome as the tool's result (the
stored items it names by their IDs as a model may see them), the level a call carried,
and the refusal of a level the destination may not receive.

Split from :mod:`waymarks.tool.persistence` (which re-exports :data:`CATEGORIES`).
"""

from __future__ import annotations

from typing import Final

from waymarks.core.decisions import RejectionCode
from waymarks.core.egress import Egress
from waymarks.core.privacy import Classification
from waymarks.planner.render import ident
from waymarks.service.outcomes import Committed, Duplicate, Rejected, WriteOutcome
from waymarks.tool.results import ToolResult, result

#: the one table from the write decisions' rejection codes to the tool's error categories
CATEGORIES: Final[dict[RejectionCode, str]] = {
    "empty": "invalid-parameters", "invalid_argument": "invalid-parameters",
    "too_long": "too-long", "credential": "credential-refused", "untrusted": "untrusted",
    "not_found": "not-found", "not_active": "not-active", "ambiguous": "ambiguous",
    "scope_mismatch": "scope-mismatch", "off_branch": "off-branch", "conflict": "conflict",
    "target_changed": "target-changed", "no_session": "no-session",
    "foreign_session": "foreign-session", "source_withheld": "source-withheld",
    "not_applied": "not-applied", "clock_ahead": "clock-ahead", "not_saved": "not-saved",
    "open_in_pi": "open-in-pi",
}
#: refusals that come from what is stored, answered (like a duplicate) only once the
#: destination may receive the text: the tool never reports on stored text it refuses
AFTER_EGRESS: Final[frozenset[RejectionCode]] = frozenset({"conflict", "off_branch"})


class Rejector:
    def __init__(self, action: str) -> None:
        self.action = action

    def __call__(self, code: str) -> ToolResult:
        return result(self.action, "rejected", error=code)


def write_answer(action: str, outcome: WriteOutcome, egress: Egress) -> ToolResult:
    """A write's result; the stored items it names (a duplicate, conflicts) by their IDs as
    a model may see them (:func:`~waymarks.planner.render.ident`: a ledger line can hold
    any text as an ID)."""
    if isinstance(outcome, Duplicate):
        return result(action, "ok", persistence="canonical",
                      id=ident(egress, outcome.id, None), duplicate=True)
    if isinstance(outcome, Rejected):
        return result(action, "rejected", error=CATEGORIES[outcome.code],
                      conflicts=[ident(egress, c, None) for c in outcome.conflicts] or None)
    assert isinstance(outcome, Committed)
    pending = outcome.warning is not None
    return result(action, "committed_projection_pending" if pending else "committed",
                  persistence="canonical", id=outcome.id)


def carrying(done: ToolResult, level: Classification, egress: Egress) -> ToolResult:
    """``done`` naming the level of what its call carried (content, key and reason, and
    the text a replacement replaces): the call's arguments stay in the conversation, and
    the history guard, which cannot look the item up, reads it there to keep them from a
    model that may not receive it (a switch within the turn). Named only when the caller
    may receive it: a level refusal (:func:`over_level`) says enough."""
    if not egress.admits(level):
        return done
    return ToolResult({**done.details, "classification": level}, done.previews)


def over_level(level: Classification, egress: Egress, rejected: Rejector
                ) -> ToolResult | None:
    """Text above what the destination may receive is refused (it came through a model)."""
    if level == "local-only":
        return rejected("local-only-refused")
    return None if egress.admits(level) else rejected("provider-disallowed")
