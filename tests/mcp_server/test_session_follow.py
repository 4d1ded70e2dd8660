"""``waymarks mcp`` lives as long as its client, across the person's commands: a session
started meanwhile (``waymarks session new``) is the one its tools act on, as a command run
then would, unless ``--session`` named one (or ``--claude-code`` follows the hooks')."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
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


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("meanwhile", ["session new", "a message"])
def test_a_yes_confirms_only_the_write_it_was_asked_about(
        home: Path, project: Path, mode: str, meanwhile: str) -> None:
    """A review: on protocol 2026-07-28 (``auto``) the SDK runs the resolver again with
    the answer and applies it to any question of the same text. The question named
    neither the session nor the message the write would carry, so a yes given while the
    person started another session (or typed a message) wrote into that session, which
    was never shown; on 2025-11-25 the same call was refused. Now the question names
    both: a yes applies only to the write it described (the changed one is asked
    again, or refused), never to another."""
    asked: list[str] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        if len(asked) == 1:  # while the first question is open
            with Waymarks(home, cwd=str(project)) as terminal:
                if meanwhile == "session new":
                    terminal.session_new()
                else:
                    terminal.session_say("Actually, keep it for later")
        return ElicitResult(action="accept", content={"confirm": True})

    with Waymarks(home, cwd=str(project)) as app:
        first = app.session_new().id
        app.session_say("Remember where staging listens")
        server_app, follow = prepare_mcp(CliRuntime(open_app=lambda: app), False)

        async def run() -> dict[str, Any]:
            async with Client(build_server(server_app, follow=follow),
                              elicitation_callback=person, mode=mode
                              ) as client:  # type: ignore[arg-type]
                done = await client.call_tool("context_persistence", {
                    "action": "memory_add", "content": "The staging database listens on 5433"})
                return dict(done.structured_content or {})

        outcome = anyio.run(run)
    with Waymarks(home, cwd=str(project)) as terminal:
        sessions = [s.id for s in terminal.session_list()]
    landed = [s for s in sessions if _texts(home, project, s)]
    if outcome["outcome"] != "committed":
        assert outcome["errorCode"] == "changed-since-confirmation", outcome
        assert landed == [] and len(asked) == 1
        return
    # committed: the last question the person said yes to described the write made
    [session] = landed
    assert len(asked) == 2 and asked[0] != asked[1], asked
    assert f"ledger of session {session})" in asked[-1]
    assert (session == first) is (meanwhile == "a message")


def _call(app: Waymarks, follow: Any, tool: str, arguments: dict[str, Any]
          ) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with Client(build_server(app, follow=follow), elicitation_callback=_yes
                          ) as client:  # type: ignore[arg-type]
            done = await client.call_tool(tool, arguments)
            return dict(done.structured_content or {})

    return anyio.run(run)


def test_a_session_file_deleted_while_the_server_runs_is_followed_by_a_new_one(
        home: Path, project: Path) -> None:
    """A review: with the only session's file deleted, every tool stayed unavailable
    (``memory_add`` runtime-unavailable, ``memory_recall`` an I/O error) until a command
    made a session: with none left, the server kept the deleted one. Now it lets it go,
    as a command started then would: a read answers as with no session yet, and the next
    write makes a session, the one the next command acts on."""
    with Waymarks(home, cwd=str(project)) as app:
        server_app, follow = prepare_mcp(CliRuntime(open_app=lambda: app), False)
        first = _add(server_app, follow, "The staging database listens on 5433")
        assert first["outcome"] == "committed", first
        [gone] = [Path(s.path) for s in app.session_list()]
        gone.unlink()
        recalled = _call(server_app, follow, "memory_recall", {"query": "staging port"})
        assert recalled["outcome"] == "ok", recalled
        second = _add(server_app, follow, "Nightly builds run at 02:00 UTC")
        assert second["outcome"] == "committed", second
    with Waymarks(home, cwd=str(project)) as terminal:
        [made] = terminal.session_list()
        assert Path(made.path) != gone
        assert _texts(home, project, made.id) == ["Nightly builds run at 02:00 UTC"]
