"""``waymarks mcp`` lives as long as its client, across the person's commands: a session
started meanwhile (``waymarks session new``) is the one its tools act on, as a command run
then would, unless ``--session`` named one (or ``--claude-code`` follows the hooks')."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.types import ElicitResult

from waymarks.cli.launchers import prepare_mcp
from waymarks.cli.runner import CliRuntime
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks


async def _yes(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"confirm": True})


def _add(app: Waymarks, follow: Any, text: str) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with Client(build_server(app, follow=follow), elicitation_callback=_yes
                          ) as client:  # type: ignore[arg-type]
            done = await client.call_tool("context_persistence",
                                          {"action": "memory_add", "content": text})
            return dict(done.structured_content or {})

    return anyio.run(run)


def _texts(home: Path, project: Path, session: str) -> list[str]:
    """The memory that session's commands see (its own; nothing here is project-scoped)."""
    with Waymarks(home, cwd=str(project), session=session) as reader:
        return [view.text for view in reader.items("memory")]


def test_a_session_started_while_the_server_runs_is_the_one_it_acts_on(
        home: Path, project: Path) -> None:
    """It stayed on the session it bound at its first call: after ``session new`` what it
    remembered went to the old session, which no later command shows."""
    with Waymarks(home, cwd=str(project)) as app:
        server_app, follow = prepare_mcp(CliRuntime(open_app=lambda: app), False)
        first = _add(server_app, follow, "The staging database listens on 5433")
        assert first["outcome"] == "committed", first
        with Waymarks(home, cwd=str(project)) as terminal:
            newest = terminal.session_new().id
        second = _add(server_app, follow, "Nightly builds run at 02:00 UTC")
        assert second["outcome"] == "committed", second
        assert _texts(home, project, newest) == ["Nightly builds run at 02:00 UTC"]


def test_a_named_session_stays(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        named = app.session_new().id
    with Waymarks(home, cwd=str(project), session=named) as app:
        run = CliRuntime(open_app=lambda: app)
        run.session = named
        server_app, follow = prepare_mcp(run, False)
        with Waymarks(home, cwd=str(project)) as terminal:
            terminal.session_new()
        done = _add(server_app, follow, "Nightly builds run at 02:00 UTC")
        assert done["outcome"] == "committed", done
        assert _texts(home, project, named) == ["Nightly builds run at 02:00 UTC"]
