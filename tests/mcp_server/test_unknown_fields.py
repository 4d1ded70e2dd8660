"""Every MCP tool refuses a call naming a field it does not take (docs/hosts.md,
"Connecting an agent (MCP)"), before any work and before the person could be asked: a
misspelt or invented field is never silently ignored. Through the SDK's real client, over
every tool the server lists, so a tool added later is held to it too."""

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


def test_every_tool_advertises_the_schema_it_enforces(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    """A review: tools/list showed no ``required`` and no ``additionalProperties: false``
    for any tool, though each refuses a call without its required field or with another
    one, and every property advertised ``"default": null`` against its own type.
    ``context_persistence`` now advertises its contract's schema whole; every tool's
    required fields are refused when missing, and what is not listed is refused."""
    from waymarks.tool.contract import input_schema

    app = make_app()
    app.session_say("Let us look at staging")
    asked: list[str] = []

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]:
        async with Client(build_server(app),
                          elicitation_callback=person("accept", asked=asked)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            empty = {}
            for name in tools:
                result = await client.call_tool(name, {})
                empty[name] = {"isError": result.is_error,
                               **dict(result.structured_content or {})}
            return ({n: t.input_schema for n, t in tools.items()},
                    {n: t.description for n, t in tools.items()}, empty)

    schemas, descriptions, empty = anyio.run(run)
    assert sorted(schemas) == sorted(VALID)
    assert schemas["context_persistence"] == input_schema()
    for name, schema in schemas.items():
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        assert schema["required"] and set(schema["required"]) <= set(schema["properties"])
        assert set(VALID[name]) >= set(schema["required"]), name  # a valid call has them
        for field, spec in schema["properties"].items():
            assert "default" not in spec and spec.get("type"), (name, field)
        # a call without its required fields is refused, never run
        assert empty[name]["isError"] is True and empty[name]["outcome"] == "rejected", (
            name, empty[name])
    assert asked == []
    assert "learned" in descriptions["memory_recall"]  # (3 claims and 3 learned ones)
