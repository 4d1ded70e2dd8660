"""A configuration that is wrong while the server runs (the home's ``config.toml``, or a
trusted project's ``.waymarks/config.toml``): every tool and prompt that reads it answers
``unavailable``/``runtime-unavailable`` with the error's code, through the MCP SDK's real
client. Four tools answered "Error executing tool" (a traceback on standard error) and
``promote_notes`` said its arguments were not ones it takes."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, ElicitResult

from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks

BAD = '[privacy]\nremoteDefaultAllowed = "bogus-level"\n'
#: the calls each configuration breaks (a project's is not read for personal memory)
HOME_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_recall", {"query": "staging port"}),
    ("recall_memory", {"query": "staging port"}),
    ("personal_memory_entry", {"slug": "prefers-small-prs"}),
    ("remember", {"text": "I prefer small pull requests"}),
    ("learned_memory", {"action": "list"}),
    ("learned_memory", {"action": "learning"}),
]
PROJECT_CALLS = [call for call in HOME_CALLS if call[0] in (
    "memory_recall", "recall_memory", "learned_memory")]


@pytest.mark.parametrize("where", ["home", "project"])
def test_a_bad_configuration_is_unavailable_with_its_code_for_every_tool_and_prompt(
        make_app: Callable[..., Waymarks], home: Path, project: Path, where: str,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    app = make_app()
    app.trust(str(project))
    app.session_say("Let us talk about the staging database")
    if where == "home":
        (home / "config.toml").write_text(BAD)
    else:
        (project / ".waymarks").mkdir()
        (project / ".waymarks" / "config.toml").write_text(BAD)
    asked: list[str] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"confirm": True})

    async def run() -> tuple[list[dict[str, Any]], MCPError]:
        results = []
        async with Client(build_server(app), elicitation_callback=person) as client:
            for name, arguments in HOME_CALLS if where == "home" else PROJECT_CALLS:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, result.content)
                assert result.structured_content is not None, (name, result.content)
                assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
                results.append(dict(result.structured_content))
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("promote_notes", {})
        return results, caught.value

    results, prompt = anyio.run(run)
    assert results == [{"outcome": "unavailable", "category": "runtime-unavailable",
                        "message": "memory is unavailable (bad_config)"}] * len(results)
    assert asked == []
    assert prompt.error.code == INTERNAL_ERROR
    assert "bad_config" in prompt.error.message and "arguments" not in prompt.error.message
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert "Traceback" not in logged and "Error executing tool" not in logged
