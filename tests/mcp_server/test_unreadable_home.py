"""A home the server cannot read when a call comes (a session name that is no file, a
database lock it may not open): following the newest session before the call fails, and
every tool answers ``unavailable``/``runtime-unavailable`` (naming the error's code where
the tool names one), through the MCP SDK's real client, nothing written, nothing asked.
Before, following ran outside every tool's error handling: each answered "Error executing
tool" with a traceback on the server's standard error."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, ElicitResult

from waymarks.cli.launchers import prepare_mcp
from waymarks.cli.runner import CliRuntime
from waymarks.ledger.discovery import session_dir
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks

#: every tool, reads and writes (the writes would be confirmed: nobody may be asked)
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_recall", {"query": "staging port"}),
    ("recall_memory", {"query": "staging port"}),
    ("personal_memory_entry", {"slug": "prefers-small-prs"}),
    ("remember", {"text": "I prefer small pull requests"}),
    ("capture_note", {"text": "Staging moved to 5433", "type": "decision"}),
    ("learned_memory", {"action": "list"}),
    ("learned_memory_edit", {"action": "forget", "id": "0123456789abcdef01234567"}),
    ("context_persistence", {"action": "memory_list"}),
    ("context_persistence", {"action": "memory_add", "content": "Staging uses 5433"}),
]


def test_a_session_that_cannot_be_followed_is_unavailable_for_every_tool(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    app = make_app()
    app.session_say("Let us talk about the staging database")
    server_app, follow = prepare_mcp(CliRuntime(open_app=lambda: app), False)
    # newer than every session, named like one: it may hold the newest session
    (session_dir(home, str(project)) / "2999-01-01T00-00-00-000Z_x.jsonl").mkdir()
    code = "bad_session"
    sessions = sorted(p.name for p in session_dir(home, str(project)).iterdir())
    sizes = {p: p.stat().st_size for p in session_dir(home, str(project)).glob("*.jsonl")
             if p.is_file()}
    asked: list[str] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"confirm": True})

    async def run() -> tuple[list[tuple[str, dict[str, Any]]], MCPError]:
        results = []
        async with Client(build_server(server_app, follow=follow),
                          elicitation_callback=person) as client:
            for name, arguments in CALLS:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, result.content)
                assert result.structured_content is not None, (name, result.content)
                text = result.content[0].text  # type: ignore[union-attr]
                if name == "context_persistence":  # its metadata line, then a rendering
                    text = text.split("\n")[0]
                assert json.loads(text) == result.structured_content, name
                results.append((name, dict(result.structured_content)))
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("promote_notes", {})
        return results, caught.value

    results, prompt = anyio.run(run)
    for name, got in results:
        if name == "context_persistence":
            assert got["outcome"] == "unavailable", got
            assert got["errorCode"] == "runtime-unavailable", got
        else:
            assert got == {"outcome": "unavailable", "category": "runtime-unavailable",
                           "message": f"memory is unavailable ({code})"}, (name, got)
    assert asked == []
    assert prompt.error.code == INTERNAL_ERROR
    assert code in prompt.error.message and "arguments" not in prompt.error.message
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert "Traceback" not in logged and "Error executing tool" not in logged
    # nothing written: no session made, none grown
    assert sorted(p.name for p in session_dir(home, str(project)).iterdir()) == sessions
    assert {p: p.stat().st_size for p in sizes} == sizes


#: the server without root's permission to ignore file modes (as a person's is)
_UNPRIVILEGED = ["--bounding-set", "-dac_override,-dac_read_search,-fowner",
                 "--inh-caps", "-dac_override,-dac_read_search,-fowner"]


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_an_unreadable_database_lock_is_unavailable_from_the_real_server(
        home: Path, project: Path, tmp_path: Path) -> None:
    """``waymarks mcp`` over stdio, a process of its own, not root: the database lock it
    must take to open the session it follows made unreadable (mode 000) before the first
    call."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is None:
        pytest.skip("root ignores file modes, and setpriv is not installed")
    with Waymarks(home, cwd=str(project)) as app:
        app.session_say("Let us talk about the staging database")
    server = [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "mcp"]
    if os.geteuid() == 0:
        server = [str(setpriv), *_UNPRIVILEGED, *server]
    env = {**os.environ, "HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(home)}
    params = StdioServerParameters(command=server[0], args=server[1:], cwd=str(project),
                                   env=env)
    lock = home / "waymarks.db.lock"
    asked: list[str] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="decline")

    async def run() -> list[tuple[str, dict[str, Any]]]:
        results = []
        with (tmp_path / "stderr").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(
                    read, write, elicitation_callback=person) as client:
                await client.initialize()
                lock.chmod(0)
                try:
                    for name, arguments in CALLS:
                        result = await client.call_tool(name, arguments)
                        results.append((name, dict(result.structured_content or {})))
                finally:
                    lock.chmod(0o600)
        return results

    results = anyio.run(run)
    assert asked == []
    for name, got in results:
        if name == "context_persistence":
            assert (got["outcome"], got["errorCode"]) == ("unavailable",
                                                          "runtime-unavailable"), got
        else:
            assert got == {"outcome": "unavailable", "category": "runtime-unavailable",
                           "message": "memory is unavailable (io_error)"}, (name, got)
    stderr = (tmp_path / "stderr").read_text()
    assert "Traceback" not in stderr and "Error executing tool" not in stderr, stderr
