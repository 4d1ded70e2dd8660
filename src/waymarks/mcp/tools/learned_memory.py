"""The ``learned_memory`` tools: inspect learned (evolved, provisional) claims, and forget,
correct or undo them with the person's confirmation (EVOLUTION item 76).

``learned_memory`` is read-only (list, search, show, history, learning): no question is
asked. ``learned_memory_edit`` (forget, correct, pin, unpin, adopt, undo) runs every check
that can refuse before the question, asks the person through elicitation, and checks again
when it writes (the service validates under the ledger's lock); a client without
elicitation gets ``unavailable`` and nothing changes. Arguments are read raw and never
echoed in errors.
"""

import re
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server import MCPServer
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import WithJsonSchema

from waymarks.mcp.common import (
    NO_QUESTION,
    NOT_ASKED,
    UNKNOWN_FIELD,
    Confirm,
    Serial,
    advertise,
    answer_of,
    argument,
    ask,
    can_elicit,
    json_result,
    unknown_field,
)
from waymarks.service.app import Waymarks
from waymarks.service.shown import Shown
from waymarks.tool.unavailable import answered, unavailable

if TYPE_CHECKING:
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_feedback import EditOutcome

READ_NAME = "learned_memory"
EDIT_NAME = "learned_memory_edit"
READS = ("list", "search", "show", "history", "learning")
EDITS = ("forget", "correct", "undo", "pin", "unpin", "adopt")
#: the fields each tool takes (a call naming another is refused, never run without it)
READ_FIELDS = ("action", "query", "id", "scope", "page")
EDIT_FIELDS = ("action", "id", "text", "event")
_ID = re.compile(r"[0-9a-f]{24}")
_STRING = {"type": "string"}


def _rejected(code: str, message: str) -> dict[str, Any]:
    return {"outcome": "rejected", "code": code, "message": message}


def read(app: Waymarks, arguments: dict[str, object]) -> dict[str, Any]:
    """One read-only action; refusals name the argument and the fix, never its value.
    One request (:meth:`Waymarks.begin`): each learned claim weighed against the person's
    own claims it bears on refreshed the session and the project's sessions again."""
    with app.begin():
        return _read(app, arguments)


def _read(app: Waymarks, arguments: dict[str, object]) -> dict[str, Any]:
    from waymarks.service import evolution_inspect as inspect
    from waymarks.service.planning import egress_for
    from waymarks.service.team_here import held_here

    action = arguments.get("action")
    egress = egress_for(app)  # the answer goes to the model: its provider's egress
    if action not in READS:
        return _rejected("bad_input", f"action is one of {', '.join(READS)}")
    if action == "list":
        scope, page = arguments.get("scope") or "all", arguments.get("page")
        page = 1 if page is None else page
        if scope not in inspect.SCOPES or not isinstance(page, int) or isinstance(
                page, bool) or page < 1:  # (`true` is an int to Python, not a page)
            return _rejected("bad_input", "scope is all, here or legacy; page is 1 or more")
        return {"outcome": "ok", **inspect.list_claims(
            app.home, str(scope), page, app.cwd, egress=egress, mine=held_here(app))}
    if action == "search":
        query = arguments.get("query")
        if not isinstance(query, str) or not 1 <= len(query.strip()) <= 512:
            return _rejected("bad_input", "query is a string of 1-512 characters")
        from waymarks.core.privacy import OMITTED

        if OMITTED in query:
            return _rejected("egress-placeholder", f"the query holds {OMITTED}, which "
                             "marks text withheld from the model; ask in your own words")
        found = inspect.search(app.home, query, egress=egress, mine=held_here(app))
        del found["query"]  # the model's own text, never sent back unchecked (a credential
        # or a local-only span in it went out as written)
        return {"outcome": "ok", **found}
    if action == "show":
        cid = arguments.get("id")
        if not isinstance(cid, str) or not _ID.fullmatch(cid):
            return _rejected("bad_input", "id is a learned claim's 24 hex digits")
        shown = inspect.show(app.home, cid, egress=egress, mine=held_here(app))
        if shown is None:
            return _rejected("not_found", "no learned claim has that ID; list them first")
        if shown.get("withheld"):
            return _rejected("withheld", "the provider this answer goes to may not receive "
                                         "that claim (its classification, or the person "
                                         "holds a claim that says it or otherwise)")
        return {"outcome": "ok", **shown}
    if action == "history":
        return {"outcome": "ok", **inspect.history(app.home, egress=egress)}
    return {"outcome": "ok", **inspect.learning(app.home, egress=egress)}


def _edit_arguments(arguments: dict[str, object]) -> tuple[str, Any] | dict[str, Any]:
    action = arguments.get("action")
    if action not in EDITS:
        return _rejected("bad_input", f"action is one of {', '.join(EDITS)}")
    if action == "undo":
        event = arguments.get("event")
        if not isinstance(event, int) or isinstance(event, bool) or event < 1:
            return _rejected("bad_input", "event is a positive integer from history")
        return "undo", event
    cid = arguments.get("id")
    if not isinstance(cid, str) or not _ID.fullmatch(cid):
        return _rejected("bad_input", "id is a learned claim's 24 hex digits")
    if action == "correct":
        from waymarks.service.evolution_edits import correction_fits

        text = arguments.get("text")
        if not isinstance(text, str) or not correction_fits(text):
            return _rejected("bad_input", "text is the correction (4-800 characters)")
        refused = _unspeakable(text)
        if refused is not None:
            return refused
        return "correct", (cid, text)
    return str(action), cid


def _unspeakable(text: str) -> dict[str, Any] | None:
    """Why a model's correction is refused before the person is asked, as ``remember``
    refuses a note: the output-only omission sentinel (text the model was never shown),
    or ``local-only`` text, which already passed through the model and which the
    question could only show as withheld (the person would approve text unseen)."""
    from waymarks.core.privacy import OMITTED, classify

    if OMITTED in text:
        return _rejected("egress-placeholder", f"the correction holds {OMITTED}, which "
                         "stands for text that was withheld; write the claim's text")
    if classify(text) == "local-only":
        return _rejected("local-only-refused", "a correction with local-only text is made "
                         "in a terminal: `waymarks evolution correct ID TEXT`")
    return None


def _question(app: Waymarks, action: str, value: Any) -> str | dict[str, Any]:
    """The question for the person, or a refusal decided before asking."""
    from waymarks.service.evolution_inspect import event_json, show
    from waymarks.service.learning import has_ledger

    if not has_ledger(app.home):  # (a directory or a FIFO in its place cannot be read:
        # the store names that, as the read tool does; it answered "nothing has been
        # learned yet", as if the claim had never existed)
        return _rejected("not_found", "nothing has been learned yet")
    from waymarks.service.evolution import Evolution
    from waymarks.service.evolution_feedback import dry_run

    with Evolution(app.home) as evo:  # every refusal comes before the question
        would = dry_run(evo, lambda: _edit(evo, app, action, value))
    if not would.ok:
        return _rejected(would.code, would.message)
    if action == "undo":
        from waymarks.service.evolution import Evolution

        with Evolution(app.home) as evo:
            evo.sync()
            row = evo.store.event(value)
        if row is None or not row.changes:
            return _rejected("not_found", "that event changed no learned claim; see history")
        # the event's claim IDs, actor and time are the ledger's: shown as a claim is,
        # on one line (a forged line break or bidi override in one went to the dialog raw)
        told = event_json(row, lambda stored: _on_screen(stored, keep=""))
        return (f"Undo event {value} ({row.op} by {told['actor']} at {told['at']})? It "
                "changed: " + "; ".join(f"{c['claim']} {c['before']} -> {c['after']}"
                                        for c in told["changes"]))
    cid = value if isinstance(value, str) else value[0]
    shown = show(app.home, cid)
    if shown is None:
        return _rejected("not_found", "no learned claim has that ID; list them first")
    shown["content"] = _on_screen(shown["content"])
    # the claim as the person sees it, its pin and last event included: the SDK asks
    # again when the question changed while the person decided (it said nothing of the
    # pin, so a claim pinned meanwhile was forgotten on the first yes)
    events = [int(e["event"]) for e in shown.get("events", [])
              if isinstance(e, dict) and isinstance(e.get("event"), int)]
    state = (f"{shown['kind']}, {shown['state']}" + (", pinned" if shown.get("pinned") else "")
             + (f", last changed by event {max(events)}" if events else ""))
    if action == "forget":
        return (f"Forget learned claim {cid} ({state})? Its text is never learned again in "
                f"its origin (logical, not secure erasure):\n{shown['content']}")
    if action in ("pin", "unpin"):
        return (f"{action.capitalize()} learned claim {cid} ({state})?"
                + (" It stays fresh, is never dormant and is never replaced by the model:"
                   if action == "pin" else "") + f"\n{shown['content']}")
    if action == "adopt":  # the folder shown as a name is (a line break or a bidi
        # override in it went to the dialog raw: it could read as another folder)
        from waymarks.core.text import escaped

        return (f"Adopt legacy learned claim {cid} ({state}) into {escaped(app.cwd)}? It "
                f"gets a new ID there; its evidence dates stay:\n{shown['content']}")
    # the correction is shown as the claim is: a bidi override or a terminal escape in it
    # went to the dialog raw (the person could approve text that reads otherwise)
    return (f"Correct learned claim {cid} ({state})?\nNow: {shown['content']}\n"
            f"Correction: {_on_screen(value[1].strip())}")


def _on_screen(content: str, keep: str = "\n\t") -> str:
    """A claim as a confirmation dialog may show it (``tool.egress.ON_SCREEN``): never
    local-only text, markers removed, credentials redacted, invisible characters shown
    (but those in ``keep``: ``""`` for a name such as an ID, which has no lines)."""
    from waymarks.core.text import escaped
    from waymarks.tool.egress import ON_SCREEN

    if ON_SCREEN.level(content) == "local-only":
        return ("(local-only text: not shown here; see `waymarks evolution show` in a "
                "terminal)")
    return escaped(ON_SCREEN.text(content) or "", keep=keep)


def _edit(evo: "Evolution", app: Waymarks, action: str, value: Any) -> "EditOutcome":
    """The edit use case for ``action`` (run for real, or inside a dry run)."""
    from waymarks.service import evolution_edits as edits
    from waymarks.service.planning import egress_for

    if action == "undo":  # the claim IDs it names go to the model: through its egress
        return edits.undo(evo, value, egress_for(app).label)
    if action == "correct":
        return edits.correct(evo, value[0], value[1])
    if action in ("pin", "unpin"):
        return edits.pin(evo, value, action == "pin")
    if action == "adopt":  # the project's path it names too
        return edits.adopt(evo, value, str(app.cwd), egress_for(app).label)
    return edits.forget(evo, value)


def _apply(app: Waymarks, action: str, value: Any) -> dict[str, Any]:
    from waymarks.service.evolution import Evolution

    with Evolution(app.home) as evo:
        outcome = _edit(evo, app, action, value)
    if not outcome.ok:
        return _rejected(outcome.code, outcome.message)
    return {"outcome": "done", **outcome.to_json()}


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    @server.tool(
        name=READ_NAME,
        description=("Inspect learned memory (claims learned automatically from earlier "
                     "conversations: provisional, not confirmed). Actions: list (scope "
                     "all|here|legacy, page), search (query), show (id: provenance, "
                     "evidence, feedback, aging, events), history, learning. Read-only."),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
    )
    def learned_read(
        ctx: Context,
        action: Annotated[Any, WithJsonSchema({"type": "string", "enum": list(READS)})] = None,
        query: Annotated[Any, WithJsonSchema(_STRING)] = None,
        id: Annotated[Any, WithJsonSchema(_STRING)] = None,
        scope: Annotated[Any, WithJsonSchema(
            {"type": "string", "enum": ["all", "here", "legacy"]})] = None,
        page: Annotated[Any, WithJsonSchema({"type": "integer", "minimum": 1})] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, READ_FIELDS):
            return json_result(UNKNOWN_FIELD)
        arguments = {name: argument(ctx, name) for name in READ_FIELDS}
        with serial.turn():
            return json_result(answered(lambda: read(app, arguments)))

    advertise(server, READ_NAME, ("action",))

    shown = Shown()  # the questions asked: a yes applies only to the claim as it was shown

    def ask_edit(ctx: Context) -> Elicit[Confirm] | str:
        if not can_elicit(ctx) or unknown_field(ctx, EDIT_FIELDS):
            return NO_QUESTION  # the body answers: a refusal, or unavailable
        parsed = _edit_arguments({n: argument(ctx, n) for n in EDIT_FIELDS})
        if isinstance(parsed, dict):
            return NO_QUESTION
        with serial.turn():
            question = answered(lambda: _question(app, *parsed))
        if isinstance(question, dict):
            return NO_QUESTION
        return ask(question, shown.record)

    @server.tool(
        name=EDIT_NAME,
        description=("Forget (id), correct (id, text of 4-800 characters), pin or unpin "
                     "(id), adopt a legacy claim into this directory (id) or undo (event "
                     "from learned_memory history) a learned claim. The "
                     "person confirms each change; refusals come first, without a question."),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=False, open_world_hint=False),
    )
    def learned_edit(
        ctx: Context,
        answer: Annotated[ElicitationResult[Confirm], Resolve(ask_edit)],
        action: Annotated[Any, WithJsonSchema({"type": "string", "enum": list(EDITS)})] = None,
        id: Annotated[Any, WithJsonSchema(_STRING)] = None,
        text: Annotated[Any, WithJsonSchema(_STRING)] = None,
        event: Annotated[Any, WithJsonSchema({"type": "integer", "minimum": 1})] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, EDIT_FIELDS):
            return json_result(UNKNOWN_FIELD)
        parsed = _edit_arguments({n: argument(ctx, n) for n in EDIT_FIELDS})
        if isinstance(parsed, dict):
            return json_result(parsed)
        with serial.turn():
            question = answered(lambda: _question(app, *parsed))
            if isinstance(question, dict):
                return json_result(question)
            if not can_elicit(ctx):
                return json_result({"outcome": "unavailable", "code": "confirmation-required",
                                    "message": "this client cannot ask the person; use "
                                    "`waymarks evolution ...` instead. Nothing changed"})
            decision = answer_of(answer)
            if decision == NOT_ASKED:  # (see NOT_ASKED)
                return json_result(unavailable("the person was not asked: the change could "
                                               "not be planned then; nothing changed"))
            if decision != "accepted":
                # an answer that is neither yes nor no is ``confirmation-invalid``, as
                # every confirmed tool names it
                code = "confirmation-invalid" if decision == "invalid" else decision
                return json_result({"outcome": "cancelled", "code": code,
                                    "message": "the person did not confirm; nothing changed"})
            if not shown.spend(question):
                # the claim changed while the person decided (a client on a protocol
                # whose SDK never asks again: the yes was to the claim as it was)
                return json_result(_rejected(
                    "changed-since-confirmation", "the learned claim changed after the "
                    "question was asked; nothing changed: show it and ask again"))
            return json_result(_apply(app, *parsed))

    advertise(server, EDIT_NAME, ("action",))
