"""Every MCP tool refuses a call naming a field it does not take (README, "MCP tools"),
before any work and before the person could be asked: a misspelt or invented field is
never silently ignored. Through the SDK's real client, over every tool the server lists,
so a tool added later is held to it too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from tests.mcp_server.test_context_persistence import person
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

#: a call each tool would run (or ask about) without the extra field
VALID: dict[str, dict[str, Any]] = {
    "context_persistence": {"action": "memory_list"},
    "memory_recall": {"query": "which port does staging use?"},
    "recall_memory": {"query": "which port does staging use?"},
    "personal_memory_entry": {"slug": "anything"},
    "remember": {"text": "I prefer small pull requests"},
    "capture_note": {"text": "Run migrations in one transaction"},
    "learned_memory": {"action": "list"},
    "learned_memory_edit": {"action": "forget", "id": "0" * 24},
}


def test_every_tool_refuses_a_field_it_does_not_take_without_asking(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    app = make_app()
    app.session_say("Let us look at staging")
    assert isinstance(app.remember("The staging port is 5433"), Committed)
    asked: list[str] = []

    async def run() -> tuple[list[str], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        async with Client(build_server(app),
                          elicitation_callback=person("accept", asked=asked)) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            refused, valid = {}, {}
            for name in names:
                arguments = VALID.get(name, {})
                result = await client.call_tool(name, {**arguments, "bogus": 1})
                refused[name] = dict(result.structured_content or {})
                if name in ("memory_recall", "recall_memory"):
                    answered = await client.call_tool(name, arguments)
                    valid[name] = dict(answered.structured_content or {})
            return names, refused, valid

    names, refused, valid = anyio.run(run)
    assert sorted(names) == sorted(VALID), "a new tool: add a valid call for it here"
    for name, result in refused.items():
        assert result.get("outcome") == "rejected", (name, result)
        assert "invalid-parameters" in (result.get("category"), result.get("errorCode")), (
            name, result)
    assert asked == []
    # the same calls without the field are answered (so the refusal is the field's)
    assert [valid[n]["outcome"] for n in ("memory_recall", "recall_memory")] == ["ok", "ok"]
