"""Review 57 (the MCP server): what ``learned_memory_edit`` names reaches the model
through the destination's egress and the person's dialog escaped, as every other tool's
does; a stdio client that stops reading ends the server quietly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evolution.test_aging import learn
from tests.evolution.test_legacy_import import _memory, _write
from tests.mcp_server.test_learned_memory_tool import call
from tests.mcp_server.test_remember_tool import Person
from tests.mcp_server.test_remember_tool import remember as remember_tool
from waymarks.core.evolution.model import claim_id
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution
from waymarks.service.evolution_edits import import_legacy

#: a folder named like a GitHub token: a project's path is a label, redacted as the
#: recall digest's origins and the path `notes promote` names are
TOKEN = "ghp_" + "a1B2" * 9
CLAIM = "Releases are cut from main on Fridays"
LEARNED = "Deployments use Kamal, not Capistrano"


@pytest.mark.slow
def test_adopting_a_legacy_claim_names_the_project_through_the_egress(
        tmp_path: Path) -> None:
    """The result of ``adopt`` (and its refusals) named the project's path as it is: a
    credential in it reached the model unredacted, where list, show and the recall
    digest label every origin through the destination's egress."""
    project = tmp_path / TOKEN / "app"
    project.mkdir(parents=True)
    _write(tmp_path / "legacy", [_memory("m1", "decision", CLAIM),
                                 _memory("m2", "decision", LEARNED)], [])
    app = Waymarks(tmp_path / "home", cwd=str(project))
    try:
        with Evolution(app.home) as evo:
            assert import_legacy(evo, tmp_path / "legacy").ok
        # the project already learned what m2 says: adopting m2 there is refused
        learn(app.home, str(project.resolve()), {"kind": "decision", "content": LEARNED,
                                                 "searchTerms": ["kamal"]},
              "2026-03-01T00:00:00.000Z")
        legacy = claim_id("legacy", "decision", CLAIM)
        person = Person()
        done = call(app, "learned_memory_edit", {"action": "adopt", "id": legacy}, person,
                    mode="legacy")
        assert done["outcome"] == "done" and person.asked, done
        assert done["id"] == claim_id(str(project.resolve()), "decision", CLAIM)
        assert TOKEN not in json.dumps(done) and "[REDACTED" in done["origin"], done
        # a refusal names the project too (before anyone is asked)
        nobody = Person()
        refused = call(app, "learned_memory_edit", {
            "action": "adopt", "id": claim_id("legacy", "decision", LEARNED)}, nobody,
            mode="legacy")
        assert refused["code"] == "duplicate" and nobody.asked == [], refused
        assert TOKEN not in json.dumps(refused) and "[REDACTED" in refused["message"]
    finally:
        app.close()


@pytest.mark.slow
def test_the_adopt_question_shows_the_folder_escaped(tmp_path: Path) -> None:
    """The question named the working directory raw: a folder whose name holds a bidi
    override or a line break read as another folder in the dialog, where every other part
    of a learned-memory question (IDs, an event's actor, the claim) is shown escaped."""
    project = tmp_path / "src\u202etxt.exe" / "line\nbreak"
    project.mkdir(parents=True)
    _write(tmp_path / "legacy", [_memory("m1", "decision", CLAIM)], [])
    app = Waymarks(tmp_path / "home", cwd=str(project))
    try:
        with Evolution(app.home) as evo:
            assert import_legacy(evo, tmp_path / "legacy").ok
        person = Person("decline")
        declined = call(app, "learned_memory_edit", {
            "action": "adopt", "id": claim_id("legacy", "decision", CLAIM)}, person,
            mode="legacy")
        assert declined["outcome"] == "cancelled" and len(person.asked) == 1
        [question] = person.asked
        assert "\u202e" not in question and "line\nbreak" not in question, question
        assert "\\u202e" in question and "line\\nbreak" in question
    finally:
        app.close()


@pytest.mark.slow  # a real server in a subprocess
def test_a_client_that_stops_reading_ends_the_server_without_a_traceback(
        home: Path, project: Path) -> None:
    """A client that went away (killed, crashed) with calls in flight: the answer met a
    closed pipe, and the server ended with the SDK's exception group (BrokenPipeError)
    as a traceback on standard error and exit 1. Nobody is left to answer: it ends as at
    the end of its input, quietly, exit 0."""
    import os
    import subprocess
    import sys
    import tempfile

    from tests.mcp_server.test_stdio_screen import _call, _initialize

    with tempfile.TemporaryFile() as errors:
        server = subprocess.Popen(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "mcp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, cwd=project,
            env={**os.environ, "WAYMARKS_HOME": str(home)})
        assert server.stdin is not None and server.stdout is not None
        try:
            server.stdin.write("".join(line + "\n" for line in _initialize()).encode())
            server.stdin.flush()
            assert json.loads(server.stdout.readline())["id"] == 1  # serving
            server.stdout.close()  # the client stops reading; its input stays open
            server.stdin.write((_call(2, "where do deploys go?") + "\n").encode())
            server.stdin.flush()
            status = server.wait(timeout=120)  # a bound, not a timing: the pipe ends it
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
            server.stdin.close()
        errors.seek(0)
        said = errors.read().decode(errors="replace")
    assert "Traceback" not in said and "BrokenPipeError" not in said, said
    assert status == 0, said


def test_remember_does_not_claim_to_be_idempotent(app: Waymarks) -> None:
    """``remember`` advertised ``idempotentHint: true``, which tells a client that a
    repeated call has no further effect (a retry after a lost answer is safe); it makes
    no such promise (an entry changed by hand in between makes the retry another entry,
    ``-2``), though the same entry saved twice is now the first one, a ``duplicate``."""
    import anyio
    from mcp import Client

    from waymarks.mcp.server import build_server

    async def tools() -> dict[str, object]:
        async with Client(build_server(app), mode="legacy") as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    remember = anyio.run(tools)["remember"]
    assert remember.annotations.idempotent_hint is False  # type: ignore[attr-defined]
    saved = [remember_tool(app, {"text": "Prefers tabs over spaces"}, Person(),
                           mode="legacy").structured_content for _ in range(2)]
    assert [s["slug"] for s in saved] == ["prefers-tabs-over-spaces"] * 2  # type: ignore[index]
    assert "duplicate" not in saved[0] and saved[1]["duplicate"] is True  # type: ignore[index]
