"""The tools the Pi extension registers, run by the bridge (``tool`` requests).

- ``context_persistence`` and ``memory_recall``: pins and memory (seed 001, seed 000);
- ``remember`` (seed 003): the deterministic save of one curated personal memory entry.
  Personal memory applies to every project, so — as over MCP — the person confirms each
  save in Pi's dialog; refusals come first and ask nobody; print and JSON modes have no
  dialog, so there a save ends ``unavailable`` / ``confirmation-required``;
- ``recall_memory_entry`` (seed 003): one personal entry by its name (slug), as the
  destination provider may see it;
- ``capture_note`` and ``recall_memory``: seed 003's bridge tools
  (:mod:`waymarks.personal.bridge_tools`).

Every tool that renders stored text for a model renders it for Pi's *active* provider
(the bridge learns it with every request), never the configured default.

A tool result is ``{"text", "details"}``: the details as the tool's outcome, the text as
the JSON of it (``context_persistence`` has its own deterministic text).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from waymarks.core.egress import json_line
from waymarks.service.ports import ConfirmationRequest, Decision

if TYPE_CHECKING:
    from waymarks.hosts.pi_bridge import Bridge

TOOLS: Final = ("context_persistence", "memory_recall", "remember", "recall_memory_entry",
                "capture_note", "recall_memory")


def run_tool(bridge: Bridge, name: object, arguments: object) -> dict[str, Any] | None:
    """One tool call (``None``: there is no such tool)."""
    args = arguments if isinstance(arguments, dict) else {}
    if name == "context_persistence":
        from waymarks.tool.egress import rendered_stamp
        from waymarks.tool.results import ToolResult

        result = bridge.persistence().call(arguments, HostConfirmer(bridge))
        # its previews are rendered for Pi's model now: stamped as the others' results
        stamped = ToolResult({**result.details, **rendered_stamp(_egress(bridge))},
                             result.previews)
        return {"text": stamped.text, "details": stamped.details}
    if name == "memory_recall":
        from waymarks.tool.recall import memory_recall

        return _rendered(bridge, memory_recall(bridge.app_now(), args.get("query"),
                                               provider=bridge.provider))
    if name == "remember":
        return _answer(_remember(bridge, args.get("text"), args.get("slug")))
    if name == "recall_memory_entry":
        from waymarks.personal.setup import personal_store
        from waymarks.personal.tools import fetch_entry

        app = bridge.app_now()
        return _rendered(bridge, fetch_entry(personal_store(app), args.get("name"),
                                             _egress(bridge)))
    if name == "capture_note":
        from waymarks.personal.bridge_tools import capture_note

        return _answer(capture_note(bridge.app_now(), args.get("text"), args.get("type"),
                                    bridge.provider))
    if name == "recall_memory":
        from waymarks.personal.bridge_tools import recall_memory

        return _rendered(bridge, recall_memory(bridge.app_now(), args.get("query"),
                                               _egress(bridge)))
    return None


def _answer(details: dict[str, Any]) -> dict[str, Any]:
    return {"text": json_line(details), "details": details}  # the egress quoting's escapes


def _rendered(bridge: Bridge, details: dict[str, Any]) -> dict[str, Any]:
    """A result of stored text as rendered for Pi's model now, saying which: Pi sends it
    again with later requests, and after a model switch the payload guard lets it go
    only where that rendering fits (:func:`waymarks.tool.egress.withhold_misfits`)."""
    from waymarks.tool.egress import rendered_stamp

    return _answer({**details, **rendered_stamp(_egress(bridge))})


def _egress(bridge: Bridge) -> Any:
    from waymarks.service.planning import egress_for

    return egress_for(bridge.app_now(), bridge.provider)


def _remember(bridge: Bridge, text: object, slug: object) -> dict[str, Any]:
    from waymarks.personal.setup import personal_store
    from waymarks.personal.tools import CONFIRM_TITLE, RememberPlan, plan_remember

    store = personal_store(bridge.app_now())
    plan = plan_remember(store, text, slug)
    if not isinstance(plan, RememberPlan):
        return plan  # refused before anyone is asked
    answer: Decision = "unavailable"
    if bridge.has_ui:
        bridge.remember.shown(plan.message)
        answer = HostConfirmer(bridge).confirm(ConfirmationRequest(CONFIRM_TITLE,
                                                                   plan.message))
    saved: dict[str, Any] = bridge.remember.commit(store, text, slug, answer)
    return saved


class HostConfirmer:
    """Asks the person through Pi's dialog (``ctx.ui.confirm``, via the extension)."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def confirm(self, request: ConfirmationRequest) -> Decision:
        if not self.bridge.has_ui:
            return "unavailable"
        answer = self.bridge.ask_host("confirm", {"title": request.title,
                                                  "message": request.message})
        decision = answer.get("decision") if isinstance(answer, dict) else None
        if decision in ("accepted", "declined", "cancelled", "unavailable"):
            return decision  # type: ignore[no-any-return]
        return "cancelled"
