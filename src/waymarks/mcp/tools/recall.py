"""The ``memory_recall`` tool (read-only): at most three claims a question is about,
quoted as data, under the same rules as automatic recall."""

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
from waymarks.service.app import Waymarks
from waymarks.tool.recall import MAX_QUERY_CHARS, memory_recall

NAME = "memory_recall"
FIELDS = ("query",)


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    @server.tool(
        name=NAME,
        description=("Look up durable memory claims relevant to a question (read-only; at "
                     "most 3 confirmed claims, then at most 3 learned ones, provisional, "
                     f"under learned; query of 1-{MAX_QUERY_CHARS} characters)."),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
    )
    def recall_tool(ctx: Context, query: Annotated[Any, WithJsonSchema(
            {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS})] = None
                    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, FIELDS):
            return json_result(UNKNOWN_FIELD)
        with serial.turn():
            return json_result(memory_recall(app, argument(ctx, "query")))

    advertise(server, NAME, FIELDS)
