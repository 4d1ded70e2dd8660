"""The ``capture_note`` tool: the model captures a live discussion note on this session's
active branch (seed 003's bridge tool). Notes are working notes, not memory: nothing is
promoted until the person runs ``notes promote`` or ``remember``, so no confirmation is
asked; a note holding a credential, ``local-only`` text or the history sentinel is refused,
and so is a call naming a field the tool does not take."""

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
from waymarks.personal.bridge_tools import capture_note
from waymarks.personal.notes import MAX_NOTE_CHARS, NOTE_TYPES
from waymarks.service.app import Waymarks
from waymarks.tool.unavailable import answered

NAME = "capture_note"
FIELDS = ("text", "type")
DESCRIPTION = (
    "Capture a short discussion note (a lesson, decision, constraint, requirement, "
    "question, action, preference or implementation detail) for this session. Notes are "
    "working notes: the person promotes lessons to the engineering docs with `notes "
    f"promote`. At most {MAX_NOTE_CHARS} characters of text (no control characters); "
    "never credentials."
)


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    @server.tool(
        name=NAME, description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
    )
    def capture_note_tool(
        ctx: Context,
        text: Annotated[Any, WithJsonSchema(
            {"type": "string", "minLength": 1, "maxLength": MAX_NOTE_CHARS})] = None,
        type: Annotated[Any, WithJsonSchema(
            {"type": "string", "enum": list(NOTE_TYPES)})] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        if unknown_field(ctx, FIELDS):
            return json_result(UNKNOWN_FIELD)
        with serial.turn():
            return json_result(answered(lambda: capture_note(
                app, argument(ctx, "text"), argument(ctx, "type"))))

    advertise(server, NAME, ("text",))
