"""The ``remember`` tool: propose one personal memory entry; the person confirms the save
(it applies to every project). Refusals come first: the person is asked only about a save
that can happen (a call naming a field the tool does not take is refused too)."""

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import WithJsonSchema

from waymarks.mcp.common import (
    NO_QUESTION,
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
from waymarks.personal.curation import MAX_PREFILL_CHARS
from waymarks.personal.setup import personal_store
from waymarks.personal.store import PersonalStore
from waymarks.personal.tools import Remember, RememberPlan, plan_remember
from waymarks.service.app import Waymarks
from waymarks.tool.unavailable import answered

NAME = "remember"
FIELDS = ("text", "slug")
DESCRIPTION = (
    "Propose one item of the person's personal memory (a preference, lesson or reference "
    "that follows them across projects), after they chose it in a visible curation turn. "
    "The person confirms the save (it applies to every project). Pass the slug of an "
    "existing entry to replace it. The result is the proof of persistence. Text of at most "
    f"{MAX_PREFILL_CHARS} characters; never credentials."
)


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    personal = Remember()

    def ask_remember(ctx: Context) -> Elicit[Confirm] | str:
        """Refusals first: the person is asked only about a save that can happen."""
        if not can_elicit(ctx) or unknown_field(ctx, FIELDS):
            return NO_QUESTION  # the body answers: a refusal, or unavailable
        with serial.turn():
            store = answered(lambda: personal_store(app))
            plan = plan_remember(store, argument(ctx, "text"), argument(ctx, "slug")) \
                if isinstance(store, PersonalStore) else store
        if not isinstance(plan, RememberPlan):
            return NO_QUESTION
        return ask(plan.message, personal.shown)

    @server.tool(
        name=NAME, description=DESCRIPTION,
        # not idempotent: the same text saved again without a slug is another entry
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=False, open_world_hint=False),
    )
    def remember_tool(
        ctx: Context,
        answer: Annotated[ElicitationResult[Confirm], Resolve(ask_remember)],
        text: Annotated[Any, WithJsonSchema(
            {"type": "string", "maxLength": MAX_PREFILL_CHARS})] = None,
        slug: Annotated[Any, WithJsonSchema({"type": "string"})] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, FIELDS):
            return json_result(UNKNOWN_FIELD)
        decision = answer_of(answer) if can_elicit(ctx) else "unavailable"
        with serial.turn():
            store = answered(lambda: personal_store(app))  # (a bad config.toml: unavailable)
            if not isinstance(store, PersonalStore):
                return json_result(store)
            return json_result(personal.commit(store, argument(ctx, "text"),
                                               argument(ctx, "slug"), decision))

    advertise(server, NAME, ("text",))
