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

from tests.lanes import lanes
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def call(app: Waymarks, arguments: dict[str, Any]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with Client(build_server(app)) as client:
            result = await client.call_tool("memory_recall", arguments)
            answer = dict(json.loads(result.content[0].text))
            # a refusal is an error result that keeps its categorized outcome
            assert result.structured_content == answer
            assert result.is_error is (answer["outcome"] != "ok")
            return answer

    return anyio.run(run)


def test_the_tool_is_read_only(app: Waymarks) -> None:
    async def run() -> Any:
        async with Client(build_server(app)) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(run)}
    assert tools["memory_recall"].annotations.read_only_hint is True
    assert tools["context_persistence"].annotations.destructive_hint is True


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


@pytest.mark.parametrize("query", ["5433", "[5433]", "true"])
def test_a_query_that_reads_as_json_is_still_the_query(app: Waymarks, query: str) -> None:
    """The SDK would parse it into a number, a list or a boolean, and the tool refuse it."""
    app.remember("Port 5433 is the staging database")
    answer = call(app, {"query": query})
    assert answer["outcome"] == "ok" and "category" not in answer


def test_no_session_has_no_confirmed_claims_but_the_learned_ones(
        app: Waymarks, tmp_path: Path) -> None:
    """A review: in a project with no session yet the tool answered "no persistent session
    for this project yet", though learned memory is global and had a match (``waymarks
    recall`` showed it), and that message hid a broken config.toml. Now the configuration
    and the home are read first, then both recalls: no confirmed claims (and a word why),
    the learned match; a bad configuration is named."""
    from tests.evolution.test_aging import learn

    claim = learn(app.home, str(tmp_path / "elsewhere"), {
        "kind": "decision", "content": "Deployments use Kamal, not Capistrano",
        "searchTerms": ["deploy tool", "kamal"]}, "2026-03-01T00:00:00.000Z")
    answer = call(app, {"query": "deploy tool kamal"})
    assert app.current_session() is None
    assert answer["outcome"] == "ok" and answer["claims"] == []
    assert [row["id"] for row in answer["learned"]] == [claim]
    assert "no persistent session" in answer["confirmedUnavailable"]
    (app.home / "config.toml").write_text("bad = [\n")
    broken = call(app, {"query": "deploy tool kamal"})
    assert broken["outcome"] == "unavailable" and "bad_config" in broken["message"]
    assert app.current_session() is None  # nothing was created for the call


@pytest.mark.slow
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


FIXED_WORDING = " ".join([
    '"outcome": "rejected", "category": "invalid-parameters", "message": "query must be text',
    'of 1 to 512 characters" "unavailable" "runtime-unavailable"',
    '"memory is unavailable"'])


@lanes(quick=4, long=150)
def test_random_arguments_get_answers_not_crashes_and_write_nothing(
        app: Waymarks, examples: int) -> None:
    @settings(max_examples=examples, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(arguments=st.dictionaries(st.sampled_from(["query", "q", "limit", "id", "content"])
                                     | st.text(max_size=8), json_values, max_size=4))
    def check(arguments: dict[str, Any]) -> None:
        if app.current_session() is None:
            app.remember("The SQLite database listens on port 5433")
        before = app.current_session().path.read_bytes()  # type: ignore[union-attr]
        answer = call(app, arguments)
        assert answer["outcome"] in {"ok", "rejected", "unavailable"}
        if answer["outcome"] != "ok":
            assert answer["category"] in {"invalid-parameters", "runtime-unavailable"}
            for value in arguments.values():
                # the tool's fixed wording may contain a short input by chance ("reje")
                if isinstance(value, str) and len(value) > 3 and value not in FIXED_WORDING:
                    assert value not in json.dumps(answer)
        assert app.current_session().path.read_bytes() == before  # type: ignore[union-attr]
    check()


@pytest.mark.slow
def test_http_needs_the_bearer_token(home: Path, project: Path) -> None:
    import urllib.error
    import urllib.request

    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    from tests.mcp_server.test_http_transport import server

    token = "test-token-0123456789abcdef"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[mcp]\ntoken = "{token}"\n')
    (home / "config.toml").chmod(0o600)  # the token's file must be private
    with Waymarks(home, cwd=str(project)) as app:
        claim = app.remember("Deploys go to staging first")
    assert isinstance(claim, Committed)
    # the server of test_http_transport, waited for until it listens: this test waited 10 s,
    # and `waymarks mcp --http` took 7-11 s to answer at a load of 10 on 2 cores
    with server(home, project) as (port, _stderr):
        url = f"http://127.0.0.1:{port}/mcp"
        for headers in ({}, {"Authorization": "Bearer wrong-token-value"}):
            request = urllib.request.Request(url, data=b"{}", headers=headers, method="POST")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=120)  # (a bound for a hang only)
            assert refused.value.code == 401

        async def run() -> dict[str, Any]:
            client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with client, streamable_http_client(url, http_client=client) as streams, \
                    ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                result = await session.call_tool("memory_recall", {"query": "deploys go where?"})
                return dict(json.loads(result.content[0].text))

        answer = anyio.run(run)
        assert [c["id"] for c in answer["claims"]] == [claim.id]


def test_http_refuses_to_start_without_a_token(home: Path, project: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from waymarks.cli.main import main

    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["--json", "mcp", "--http"]) == 2
    assert "bearer token" in json.loads(capsys.readouterr().out)["message"]


def test_http_without_a_token_names_the_file_that_must_hold_it(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal said "in config.toml", whichever: a person who put the token in the
    trusted project's `.waymarks/config.toml` (which may not set ``[mcp]``) was told to
    put it where it already was, and one on a default home was not told where it is."""
    from waymarks.cli.main import main

    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["trust", str(project)]) == 0
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text(
        '[mcp]\ntoken = "abcdefghijklmnopqrstuvwxyz012345"\n')
    capsys.readouterr()
    assert main(["--json", "mcp", "--http"]) == 2
    message = json.loads(capsys.readouterr().out)["message"]
    assert str(home / "config.toml") in message
    assert "project" in message and "may not" in message


def test_a_newer_session_file_cut_short_is_named_as_the_command_line_names_it(
        app: Waymarks) -> None:
    """A newer session file of the project cut short (another tool's crash, a bad sync) is
    passed over for the session before it, and every command names it (``passedOver``);
    the tool answered from the older session without a word, so a model took "nothing
    recalled" for what the project remembers."""
    from waymarks.ledger.discovery import canonical_project_path, session_dir

    assert isinstance(app.remember("The deploy day is Tuesday."), Committed)
    [ledger] = session_dir(app.home, canonical_project_path(app.cwd)).glob("*.jsonl")
    cut = ledger.parent / ("9" + ledger.name[1:])  # sorts after it: the newer one
    cut.write_bytes(ledger.read_bytes()[:40])
    with Waymarks(app.home, cwd=str(app.cwd)) as server:  # a server started now
        answer = call(server, {"query": "which day do we deploy?"})
    assert answer["outcome"] == "ok" and answer["passedOver"]["files"] == [cut.name]
    assert "what is shown comes from an older session" in answer["passedOver"]["message"]
    assert str(app.home) not in json.dumps(answer)  # its name, not the home's path
    assert "Tuesday" in answer["digest"]
    cut.unlink()
    with Waymarks(app.home, cwd=str(app.cwd)) as server:
        assert "passedOver" not in call(server, {"query": "which day do we deploy?"})


def test_the_real_server_names_a_newer_session_file_cut_short_without_its_path(
        tmp_path: Path) -> None:
    """`waymarks mcp` (its stdio server, a real process and client) follows the project's
    newest session before each call, and that follow kept no word of a newer file cut
    short: memory_recall answered from the older session without `passedOver`. It is
    named now, by its file name: the answer holds no path (the home's path holds the
    person's user name; a session folder's name, the project's path)."""
    import subprocess

    home, shop = tmp_path / "home-alice", tmp_path / "shop"
    shop.mkdir()
    subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "memory",
                    "add", "The deploy day is Tuesday."], cwd=shop, check=True,
                   capture_output=True, timeout=120)
    [ledger] = (home / "sessions").rglob("*.jsonl")
    cut = ledger.parent / ("9" + ledger.name[1:])  # sorts after it: the newer one
    cut.write_bytes(ledger.read_bytes()[:40])
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "waymarks.cli.main", "--home", str(home), "mcp"], cwd=str(shop),
        env=dict(os.environ))

    async def run() -> str:
        with (tmp_path / "stderr").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                result = await client.call_tool("memory_recall",
                                                {"query": "which day do we deploy?"})
                return str(result.content[0].text)

    text = anyio.run(run)
    answer = json.loads(text)
    assert "Tuesday" in answer["digest"]
    assert answer["passedOver"]["files"] == [cut.name]
    assert answer["passedOver"]["message"].startswith(cut.name + ": newer than")
    assert str(tmp_path) not in text
