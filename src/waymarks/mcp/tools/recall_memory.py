"""The ``recall_memory`` tool (read-only, seed 003's bridge tool): the engineering-docs
passages a question matches plus the compact personal memory index, in one call, each
rendered for the destination provider."""

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import WithJsonSchema

from waymarks.mcp.common import (
    UNKNOWN_FIELD,
    Serial,
    advertise,
    argument,
    json_result,
    unknown_field,
)
from waymarks.personal.bridge_tools import MAX_QUERY_CHARS, recall_memory
from waymarks.service.app import Waymarks
from waymarks.service.planning import egress_for
from waymarks.tool.unavailable import answered

NAME = "recall_memory"
FIELDS = ("query",)
DESCRIPTION = (
    "Recall project memory and personal memory in one call: the passages of this "
    "project's engineering docs (docs/engineering, decision records included) that match "
    "the question, plus the compact index of the person's personal memory (fetch a full "
    f"entry with personal_memory_entry). Read-only; query of 1-{MAX_QUERY_CHARS} characters."
)


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    @server.tool(
        name=NAME, description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
    )
    def recall_memory_tool(
        ctx: Context, query: Annotated[Any, WithJsonSchema(
            {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS})] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, FIELDS):
            return json_result(UNKNOWN_FIELD)
        with serial.turn():
            return json_result(answered(lambda: recall_memory(
                app, argument(ctx, "query"), egress_for(app))))

    advertise(server, NAME, FIELDS)
