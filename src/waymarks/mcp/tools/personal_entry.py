"""The ``personal_memory_entry`` tool (read-only): one personal entry in full, with the
spans the destination provider may not see withheld."""

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
from waymarks.personal.setup import personal_store
from waymarks.personal.tools import fetch_entry
from waymarks.service.app import Waymarks
from waymarks.service.planning import egress_for
from waymarks.tool.unavailable import answered

NAME = "personal_memory_entry"
FIELDS = ("slug",)


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    @server.tool(
        name=NAME,
        description="Fetch one personal memory entry in full by its slug (read-only).",
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
    )
    def entry_tool(
        ctx: Context, slug: Annotated[Any, WithJsonSchema({"type": "string"})] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, FIELDS):
            return json_result(UNKNOWN_FIELD)
        with serial.turn():
            return json_result(answered(lambda: fetch_entry(
                personal_store(app), argument(ctx, "slug"), egress_for(app))))

    advertise(server, NAME, FIELDS)
