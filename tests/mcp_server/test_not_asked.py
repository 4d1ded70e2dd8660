"""A client that can ask the person, whose confirmable write could not be planned before
the question (the environment failed then: a database held locked, a configuration being
rewritten) but could when the tool body planned it again: nobody was asked, and the call
answered ``unavailable``/``confirmation-required``, which tells the model its client
cannot confirm. It is ``unavailable``/``runtime-unavailable`` now, nothing written.
Through the MCP SDK's real client (both protocol eras), real SQLite and real files."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import ElicitResult

from waymarks.mcp.server import build_server
from waymarks.personal.store import PersonalStore
from waymarks.service.app import Waymarks

MODES = ["auto", "legacy"]


def call(app: Waymarks, name: str, arguments: dict[str, Any],
         follow: Callable[[], None], mode: str) -> tuple[dict[str, Any], list[str]]:
    """One call; ``follow`` runs before each of the server's turns on the service (the
    plan before the question is the first, the tool body the second)."""
    asked: list[str] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"confirm": True})

    async def run() -> dict[str, Any]:
        async with Client(build_server(app, follow=follow), elicitation_callback=person,
                          mode=mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool(name, arguments)
            assert result.structured_content is not None
            assert result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            if name == "context_persistence":  # its JSON line, then a readable rendering
                text = text.split("\n", 1)[0]
            assert json.loads(text) == result.structured_content
            return dict(result.structured_content)

    return anyio.run(run), asked


def second_turn(action: Callable[[], None]) -> Callable[[], None]:
    turns: list[None] = []

    def follow() -> None:
        turns.append(None)
        if len(turns) == 2:
            action()

    return follow


@pytest.mark.parametrize("mode", MODES)
def test_a_write_planned_while_the_database_was_locked_is_unavailable_not_unconfirmable(
        make_app: Callable[..., Waymarks], home: Path, project: Path, mode: str) -> None:
    app = make_app(busy_timeout_ms=200)
    app.trust(str(project))
    app.session_say("Let us record the staging settings")
    ledger = app.current_session().read_all()  # type: ignore[union-attr]
    holder = sqlite3.connect(home / "waymarks.db", isolation_level=None,
                             check_same_thread=False)  # released on the body's thread
    holder.execute("BEGIN EXCLUSIVE")

    def release() -> None:
        holder.execute("ROLLBACK")
        holder.close()

    try:
        result, asked = call(app, "context_persistence",
                             {"action": "memory_add", "content": "Staging port is 5433"},
                             second_turn(release), mode)
    finally:
        with contextlib.suppress(sqlite3.ProgrammingError):  # (closed already)
            holder.close()
    assert (result["outcome"], result["errorCode"]) == ("unavailable", "runtime-unavailable")
    assert asked == [] and app.items("memory") == []
    assert app.current_session().read_all() == ledger  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_a_save_planned_while_the_configuration_was_wrong_is_unavailable(
        make_app: Callable[..., Waymarks], home: Path, mode: str) -> None:
    app = make_app()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text('[privacy]\nremoteDefaultAllowed = "bogus-level"\n')
    result, asked = call(app, "remember", {"text": "I prefer small pull requests"},
                         second_turn(lambda: config.write_text("")), mode)
    assert result == {"outcome": "unavailable", "category": "runtime-unavailable"}
    assert asked == [] and PersonalStore(home / "memory").entries() == []
