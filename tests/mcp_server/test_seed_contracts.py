"""Issue 23 item 5: the contract identifiers seed 001 fixes (``ds4-context-persistence-
tool-v1`` and ``ds4-context-persistence-result-v1``), through the MCP SDK's real client,
and results written under the legacy identifier still read on input (the history guard,
through ``waymarks privacy sanitize``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks

TOOL = "ds4-context-persistence-tool-v1"
RESULT = "ds4-context-persistence-result-v1"
LEGACY = "waymarks-context-persistence-result-v1"
ITEM = "0badc0de-0000-4000-8000-000000000001"


def test_the_tool_and_its_results_carry_the_seed_identifiers(
        make_app: Callable[..., Waymarks]) -> None:
    from mcp import Client

    app = make_app()
    app.session_say("Let us record facts")
    app.remember("The staging database listens on port 5433.")

    async def run() -> tuple[Any, list[dict[str, Any]]]:
        async with Client(build_server(app)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            out = []
            for args in ({"action": "memory_list"}, {"action": "memory_find", "query": "port"},
                         {"action": "memory_add", "content": "x"},  # no elicitation: refused
                         {"action": "nonsense"}):
                result = await client.call_tool("context_persistence", args)
                out.append(dict(result.structured_content or {}))
            return tools["context_persistence"], out

    tool, results = anyio.run(run)
    assert tool.meta == {"contract": TOOL, "resultContract": RESULT}
    assert [r["contract"] for r in results] == [RESULT] * 4
    assert [r["outcome"] for r in results] == ["ok", "ok", "unavailable", "rejected"]
    assert "waymarks-context-persistence" not in json.dumps(results)


def _sanitize(home: Path, payload: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json", "privacy",
         "sanitize", "--provider", "openai"], input=json.dumps(payload),
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def test_a_legacy_result_in_history_is_read_and_resent_under_the_new_identifier(
        home: Path, project: Path) -> None:
    secret = "The deploy key lives in vault path ops/bluefin"

    def result_message(contract: str, call: str) -> dict[str, Any]:
        details = {"contract": contract, "action": "memory_find", "outcome": "ok",
                   "persistenceClass": "read", "items": [{"id": ITEM, "kind": "memory"}]}
        return {"role": "tool", "tool_call_id": call,
                "content": json.dumps(details) + "\npreview 1: " + json.dumps(secret)}

    def call(call_id: str) -> dict[str, Any]:
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function", "function": {
                "name": "context_persistence",
                "arguments": json.dumps({"action": "memory_find", "query": secret})}}]}

    payload = {"model": "m", "messages": [
        {"role": "user", "content": "find it"}, call("c1"), result_message(LEGACY, "c1"),
        call("c2"), result_message("someone-elses-contract-v9", "c2"),
        {"role": "user", "content": "next"}]}
    sent = _sanitize(home, payload)
    text = json.dumps(sent)
    assert secret not in text and LEGACY not in text
    messages = sent.get("payload", sent)["messages"]
    legacy, foreign = (json.loads(m["content"].split("\n", 1)[0]) for m in messages
                       if m["role"] == "tool")
    # the legacy result is recognised: its metadata survives, under the seed's identifier
    assert legacy == {"contract": RESULT, "action": "memory_find", "outcome": "ok",
                      "persistenceClass": "read", "items": [{"id": ITEM, "kind": "memory"}]}
    # a result of another contract is not trusted: nothing of it survives
    assert foreign["contract"] == RESULT and "items" not in foreign
    assert foreign["outcome"] == "unavailable"


def test_the_mcp_commands_help_names_every_tool_it_serves(make_app) -> None:  # type: ignore[no-untyped-def]
    """``waymarks mcp --help`` named 4 of the 8 tools the server registers."""
    from tests.inprocess import waymarks

    app = make_app()
    served = {tool.name for tool in anyio.run(build_server(app).list_tools)}
    assert len(served) >= 8
    shown = " ".join(waymarks("mcp", "--help").stdout.split())
    assert not [name for name in served if name not in shown], shown
