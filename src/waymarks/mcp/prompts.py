"""The MCP prompts: ``remember`` (the guided curation turn) and ``promote_notes``."""

from mcp.server import MCPServer

from waymarks.mcp.common import Serial
from waymarks.personal.curation import PrefillTooLong, curation_prompt
from waymarks.personal.notes import left_out, not_promoted, promote_prompt
from waymarks.service.app import Waymarks
from waymarks.service.planning import egress_for


def register(server: MCPServer, app: Waymarks, serial: Serial) -> None:
    @server.prompt(name="remember", title="Curate personal memory",
                   description="The guided curation turn: gather lessons, ask what to keep, "
                               "save nothing until the person answers.")
    def remember_prompt(text: str | None = None) -> str:
        try:
            with serial.turn():  # the model of this server's host (else the default)
                egress = egress_for(app)
            return curation_prompt(text, egress)
        except PrefillTooLong as exc:  # refused, not cut: nothing is saved
            return str(exc)

    @server.prompt(name="promote_notes", title="Promote lesson notes to engineering docs",
                   description="Propose where this branch's lesson notes belong in "
                               "docs/engineering (edits nothing itself).")
    def promote_prompt_() -> str:
        with serial.turn():
            prompt, lessons = promote_prompt(app)
            held = left_out(app, lessons)
        return prompt or not_promoted(held, "`waymarks notes promote --provider ID` in a "
                                      "terminal prints the prompt for a model that may.")
