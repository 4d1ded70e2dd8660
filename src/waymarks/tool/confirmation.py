"""What ``context_persistence`` shows the person before a write: the confirmation of a pin
or memory write, its text made visible whole, and the level a text has on the way out
(the tool's egress checks and the confirmation read it alike)."""

from __future__ import annotations

from typing import Final

from waymarks.core.egress import Egress
from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import Classification, highest
from waymarks.core.secrets import redact
from waymarks.core.text import escaped
from waymarks.service.ports import ConfirmationRequest
from waymarks.service.views import ItemView
from waymarks.tool.contract import Request
from waymarks.tool.egress import ON_SCREEN, preview

CONFIRM_TITLE: Final = "Waymarks context persistence"


def effective_level(text: str, explicit: str | None, egress: Egress) -> Classification:
    """The explicit level (the policy's default when there is none) raised by markers
    and by anything that looks like a credential (a ledger from before credentials were
    refused may hold one)."""
    level = egress.level(text, explicit)
    return highest(level, "sensitive") if redact(text)[1] else level


def item_confirmation(request: Request, target: ItemView | None,
                      level: Classification | None, session: str, provenance: str | None,
                      replaces: str | None = None) -> ConfirmationRequest:
    """What the person is asked about a pin or memory write: the action, the session whose
ledger it goes to, the target and its current text (a local-only one not shown), the
scope, key, level, content, the message it cites as its source, and the reason, each as
it will be written. A yes stands for this text alone (:mod:`waymarks.service.shown`):
the session and the source are in it, so a yes to a write into one session, citing one
message, never confirms the write planned after another session or message came."""
    action = request.action
    lines = [f"Action: {action.name}",
             f"Persistence: canonical (appended to the ledger of session "
             f"{shown_text(session)})"]
    if replaces is not None:
        lines.append(f"Supersedes: {replaces} (the same text, stored at a looser level)")
    if target is not None:
        lines.append(f"Target: {target.kind} {target.id} ({target.scope}, {target.status})")
        level_now = effective_level(target.text, target.classification, ON_SCREEN)
        lines.append("Current text: " + (
            "(local-only: not shown here; see `waymarks pins` or `waymarks memory`)"
            if level_now == "local-only" else preview(target.text, ON_SCREEN, limit=400)))
    else:
        lines.append(f"Scope: {request.get('scope', 'session')}")
    if request.get("key"):
        lines.append(f"Key: {shown_text(str(request.get('key')))}")
    if level is not None:
        lines.append(f"Classification: {level}")
        lines.append("Source: " + (
            f"your message {shown_text(provenance)}, the latest on this branch"
            if provenance else "this confirmation (no message of yours on this branch)"))
        lines.append(f"Content:\n{shown_text(str(request.get('content')))}")
    if request.get("reason"):
        lines.append(f"Reason: {shown_text(str(request.get('reason')))}")
    return ConfirmationRequest(CONFIRM_TITLE, "\n".join(lines))


def shown_text(text: str) -> str:
    """Text for the person's screen, whole (what is confirmed is exactly what is written),
    with control and invisible format characters made visible, and a run of blank lines
    shown as one line that counts them: sixty empty lines must not push the rest of the
    text, or the lines after it, out of the confirmation's sight."""
    shown = escaped(text, keep="\n\t")
    return _BLANK_RUN.sub(lambda m: f"\n[{m.group(0).count(chr(10)) - 1} blank lines]\n",
                          shown)


#: two or more blank (empty or whitespace-only) lines in a row
_BLANK_RUN: Final = lazy(r"\n(?:[ \t]*\n){2,}")
