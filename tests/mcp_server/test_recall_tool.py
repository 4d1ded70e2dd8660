"""memory_recall through the MCP SDK's real client: in-process and over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def call(app: Waymarks, arguments: dict[str, Any]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with Client(build_server(app)) as client:
            result = await client.call_tool("memory_recall", arguments)
            return dict(json.loads(result.content[0].text))

    return anyio.run(run)


def test_the_tool_is_read_only(app: Waymarks) -> None:
    async def run() -> Any:
        async with Client(build_server(app)) as client:
            return (await client.list_tools()).tools

    [tool] = anyio.run(run)
    assert tool.name == "memory_recall" and tool.annotations.read_only_hint is True


def test_recalls_matching_claims_as_quoted_rows(app: Waymarks) -> None:
    claim = app.remember("The SQLite database listens on port 5433")
    app.remember("Redis caches sessions for thirty minutes")
    assert isinstance(claim, Committed)
    before = app.current_session().path.read_bytes()  # type: ignore[union-attr]
    answer = call(app, {"query": "what port does the sqlite database use?"})
    assert answer["outcome"] == "ok" and [c["id"] for c in answer["claims"]] == [claim.id]
    assert "QUOTED DATA" in answer["digest"] and "not the complete" in answer["note"]
    nothing = call(app, {"query": "what is the weather like?"})
    assert nothing == {"outcome": "ok", "claims": [], "digest": "", "note": nothing["note"]}
    assert app.current_session().path.read_bytes() == before  # type: ignore[union-attr]


@pytest.mark.parametrize("query", ["", "   ", "x" * 513, 42, None, ["list"], {"q": 1}])
def test_bad_queries_are_categorized_without_echo(app: Waymarks, query: object) -> None:
    app.remember("The SQLite database listens on port 5433")
    answer = call(app, {"query": query})
    assert answer["outcome"] == "rejected" and answer["category"] == "invalid-parameters"
    if isinstance(query, str) and query.strip():
        assert query not in json.dumps(answer)


def test_no_session_is_unavailable_not_empty(app: Waymarks) -> None:
    answer = call(app, {"query": "anything at all"})
    assert answer["outcome"] == "unavailable" and answer["category"] == "runtime-unavailable"


def test_over_stdio_with_a_real_subprocess(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        claim = app.remember("Deploys go to staging first")
    assert isinstance(claim, Committed)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "waymarks.cli.main", "--home", str(home), "mcp"],
        cwd=str(project), env={**os.environ, "WAYMARKS_HOME": str(home)})

    async def run() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("memory_recall", {"query": "where do deploys go?"})
            return dict(json.loads(result.content[0].text))

    answer = anyio.run(run)
    assert [c["id"] for c in answer["claims"]] == [claim.id]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=600),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=st.dictionaries(st.sampled_from(["query", "q", "limit", "id", "content"])
                                 | st.text(max_size=8), json_values, max_size=4))
def test_random_arguments_get_answers_not_crashes_and_write_nothing(
        app: Waymarks, arguments: dict[str, Any]) -> None:
    if app.current_session() is None:
        app.remember("The SQLite database listens on port 5433")
    before = app.current_session().path.read_bytes()  # type: ignore[union-attr]
    answer = call(app, arguments)
    assert answer["outcome"] in {"ok", "rejected", "unavailable"}
    if answer["outcome"] != "ok":
        assert answer["category"] in {"invalid-parameters", "runtime-unavailable"}
        for value in arguments.values():
            if isinstance(value, str) and len(value) > 3:
                assert value not in json.dumps(answer)
    assert app.current_session().path.read_bytes() == before  # type: ignore[union-attr]
