"""Every check that can refuse a context_persistence write runs before the person is asked,
through the MCP SDK's real client on both protocol eras: the elicitation callback is never
invoked for a write that the service would refuse or that changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_server.test_context_persistence import calls, person, with_action
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

MODES = ["auto", "legacy"]


@pytest.fixture
def app(make_app: Callable[..., Waymarks], project: Path) -> Waymarks:
    app = make_app()
    app.trust(str(project))
    app.session_say("Let us record the staging settings")
    return app


def ledger(app: Waymarks) -> bytes:
    return app.current_session().read_all()  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_conflicts_come_back_with_their_ids_and_nobody_is_asked(app: Waymarks,
                                                               mode: str) -> None:
    keyed = app.remember("The staging port is 5433", key="staging-port")
    plain = app.remember("Remote caching enabled")
    assert isinstance(keyed, Committed) and isinstance(plain, Committed)
    before, asked = ledger(app), []
    results = calls(app, [
        {"action": "memory_add", "content": "The staging port is 6543", "key": "staging-port"},
        {"action": "memory_add", "content": "Remote caching disabled"},
    ], person("accept", asked=asked), mode)
    assert [(r["outcome"], r["errorCode"], r["conflicts"]) for r in results] == [
        ("rejected", "conflict", [keyed.id]), ("rejected", "conflict", [plain.id])]
    assert asked == [] and ledger(app) == before


@pytest.mark.parametrize("mode", MODES)
def test_a_duplicate_answers_with_the_existing_id_without_asking(app: Waymarks,
                                                                mode: str) -> None:
    pin = app.pin("Run ruff before committing")
    claim = app.remember("Staging is at 10.0.0.5")
    assert isinstance(pin, Committed) and isinstance(claim, Committed)
    before, asked = ledger(app), []
    results = calls(app, [
        {"action": "pin_add", "content": "Run ruff before committing"},
        {"action": "memory_add", "content": "  Staging is at 10.0.0.5 "},
    ], person("accept", asked=asked), mode)
    assert [(r["outcome"], r["id"], r["duplicate"]) for r in results] == [
        ("ok", pin.id, True), ("ok", claim.id, True)]
    assert asked == [] and ledger(app) == before


@pytest.mark.parametrize("arguments", [
    {"action": "memory_add", "content": "Staging is shared", "scope": "project"},
    {"action": "pin_add", "content": "Use tabs", "scope": "project"},
], ids=["memory", "pin"])
def test_project_scope_in_an_untrusted_project_is_refused_without_asking(
        make_app: Callable[..., Waymarks], arguments: dict[str, Any]) -> None:
    app = make_app()  # not trusted
    app.session_say("hello")
    asked: list[str] = []
    [result] = calls(app, [arguments], person("accept", asked=asked))
    assert (result["outcome"], result["errorCode"]) == ("rejected", "untrusted")
    assert asked == [] and app.items("pin") == [] and app.items("memory") == []


def test_a_branch_pin_with_no_branch_is_refused_without_asking(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app()  # the server creates the session: no entry, so no branch yet
    asked: list[str] = []
    [result] = calls(app, [{"action": "pin_add", "content": "Here only", "scope": "branch"}],
                     person("accept", asked=asked))
    assert (result["outcome"], result["errorCode"]) == ("rejected", "off-branch")
    assert asked == [] and app.items("pin") == []


@pytest.mark.parametrize(("arguments", "code"), [
    ({"action": "memory_add", "content": "x" * 2001}, "too-long"),
    ({"action": "pin_add", "content": "y", "classification": "local-only"},
     "local-only-refused"),
    ({"action": "pin_add", "content": "y", "classification": "internal"},
     "provider-disallowed"),
    ({"action": "memory_add", "content": "Ports", "key": "!!!"}, "invalid-parameters"),
])
def test_text_checks_refuse_without_asking(app: Waymarks, arguments: dict[str, Any],
                                           code: str) -> None:
    before, asked = ledger(app), []
    [result] = calls(app, [arguments], person("accept", asked=asked))
    assert (result["outcome"], result["errorCode"]) == ("rejected", code)
    assert asked == [] and ledger(app) == before


def test_a_supersede_that_would_conflict_with_a_third_item_is_refused_before_asking(
        app: Waymarks) -> None:
    caching = app.remember("Remote caching enabled")
    other = app.remember("The cache size is 2 GB")
    assert isinstance(caching, Committed) and isinstance(other, Committed)
    asked: list[str] = []
    results = calls(app, [
        {"action": "memory_find", "query": "cache size"},
        with_action("memory_supersede", 0, content="Remote caching disabled"),
    ], person("accept", asked=asked))
    assert results[0]["items"][0]["id"] == other.id
    assert (results[1]["outcome"], results[1]["errorCode"], results[1]["conflicts"]) == (
        "rejected", "conflict", [caching.id])
    assert asked == [] and [v.status for v in app.items("memory")] == ["active", "active"]


def test_a_write_that_can_succeed_is_asked_exactly_once(app: Waymarks) -> None:
    asked: list[str] = []
    [result] = calls(app, [{"action": "memory_add", "content": "The staging port is 5433"}],
                     person("accept", asked=asked))
    assert result["outcome"] == "committed" and len(asked) == 1


def find(app: Waymarks, **extra: Any) -> CallToolResult:
    async def run() -> CallToolResult:
        async with Client(build_server(app)) as client:
            return await client.call_tool("context_persistence", {
                "action": "memory_find", "query": "staging database port", **extra})

    return anyio.run(run)


def test_memory_find_active_only_leaves_out_superseded_claims_and_their_previews(
        app: Waymarks) -> None:
    old = app.remember("The staging database port is 5433")
    assert isinstance(old, Committed)
    new = app.supersede_memory(old.id, "The staging database port is 6543")
    assert isinstance(new, Committed)
    for result in (find(app), find(app, activeOnly=True)):
        assert result.structured_content is not None
        assert [i["id"] for i in result.structured_content["items"]] == [new.id]
        text = result.content[0].text  # type: ignore[union-attr]
        assert "port is 5433" not in text and "port is 6543" in text
    every = find(app, activeOnly=False).structured_content
    assert every is not None and {i["id"] for i in every["items"]} == {old.id, new.id}
    app.set_memory_status(new.id, "invalid")
    gone = find(app, activeOnly=True)
    assert gone.structured_content is not None and gone.structured_content["items"] == []
    assert "543" not in gone.content[0].text  # type: ignore[union-attr]
