"""One-line notices for writes that will not apply where the person probably expects.

Decided after the write committed, from what was stored (issue 16, defect 3):

- the scope was left to its default (``session``) while this project is trusted: the item
  will not apply after ``waymarks session new``; ``--scope project`` keeps it;
- the item's level (its classification, or the default one, raised by markers) is one the
  provider plans go to will not receive (:func:`egress_for`: the host's model's, Pi's
  active one inside Pi, else the default provider), named: it is stored, but no plan for
  that provider will carry it;
- a pin (``pin``, ``pin --supersedes``) after which the pins that apply need more than the
  pin budget: every plan falls back and adds nothing (:func:`with_pin_budget`).

Notices name levels, scopes, providers and budgets, never the stored text.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Literal

from waymarks.core.privacy import highest
from waymarks.service.outcomes import Committed, ServiceError, WriteOutcome, with_notices
from waymarks.service.planning import (
    PINS_FIX,
    UNKNOWN_HOST_MODELS,
    egress_for,
    pins_left_out,
)

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


def with_write_notices(app: Waymarks, outcome: WriteOutcome, kind: Literal["pin", "memory"],
                       *, scope_given: str | None) -> WriteOutcome:
    if not isinstance(outcome, Committed) or outcome.operation == "status":
        return outcome
    try:
        found = app.items(kind, ids=[outcome.id])
    except (ServiceError, OSError, sqlite3.Error) as exc:
        # the ledger holds the write (a full disk, say, failed the read after it): it is
        # committed, and says so; reported as an error, a retry wrote it twice
        return with_notices(outcome, (f"committed, but it could not be read back: {exc}",))
    if not found:
        return outcome
    view = found[0]
    notices = []
    if scope_given is None and view.scope == "session" and app.project_trusted:
        notices.append(
            "stored for this session only (the default scope): it will not apply after "
            f"{app.new_session_hint}; add --scope project to keep it for this trusted "
            "project")
    try:
        left_out = unsent(app, view.text, classification=view.classification)
    except ServiceError as exc:  # changed since the write read it: the write stands
        notices.append(f"committed, but the privacy policy could not be read: {exc}")
        return with_notices(outcome, tuple(notices))
    if left_out is not None:
        notices.append(left_out)
    return with_notices(outcome, tuple(notices))


def unsent(app: Waymarks, *texts: str, classification: str | None) -> str | None:
    """The notice for an item made of ``texts`` (at least ``classification``, raised by
    their markers) that the provider plans go to will not receive, else ``None``;
    ``ServiceError`` when the privacy policy cannot be read."""
    egress = egress_for(app)
    level = highest(*(egress.level(text, classification) for text in texts))
    if egress.admits(level):
        return None
    whose = "the default provider" if app.host_provider in (None, *UNKNOWN_HOST_MODELS) \
        else "the active model's provider"
    return (f"classified {level}: {whose} ({egress.provider}) will not receive it, so plans "
            "for it leave it out; `waymarks privacy` shows the policy")


def with_pin_budget(app: Waymarks, outcome: WriteOutcome) -> tuple[WriteOutcome, str | None]:
    """A committed pin with a note when the pins that apply now need more than the pin
    budget (every plan then adds nothing, these pins included), and why (the plan's own
    reason, ``pinsLeftOut`` in ``--json``); ``None`` while they fit. A pin that tipped
    them over reported success, and the requests after it went out without a word."""
    if not isinstance(outcome, Committed):
        return outcome, None
    found = _pin_budget(app)
    if found is None:
        return outcome, None
    return with_notices(outcome, (found[0],)), found[1]


def note_pin_budget(app: Waymarks, report: list[dict[str, Any]]) -> None:
    """An import's :func:`with_pin_budget`: the note goes under the last pin it wrote
    (checked once, after its writes: an import of pins said "Imported" while every plan
    after it added nothing)."""
    pinned = [e for e in report if e["outcome"] == "imported" and e["kind"] == "pin"]
    if pinned and (found := _pin_budget(app)) is not None:
        pinned[-1]["notices"] = [*pinned[-1]["notices"], found[0]]


def _pin_budget(app: Waymarks) -> tuple[str, str] | None:
    """(the note, the reason) when the pins that apply need more than the pin budget."""
    try:
        reason = pins_left_out(app)
    except (ServiceError, OSError, sqlite3.Error):
        return None  # the write stands; what failed to read is noted above
    if reason is None:
        return None
    return f"plans now add nothing, not even the pins: {reason}; {PINS_FIX}", reason
