"""One request, one snapshot (issue 15): a Claude Code prompt, an MCP recall and a tool
read refresh the session and index the project's other sessions once."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from waymarks.hosts import claude_code
from waymarks.ledger.log import SessionLog
from waymarks.service import session_refresh
from waymarks.service.app import Waymarks
from waymarks.tool.persistence import ContextPersistence
from waymarks.tool.recall import memory_recall

SESSION = "6f1c2b9e-8d1a-4c39-9d5e-0a1b2c3d4e5f"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts of the expensive steps of a read, by name."""
    counts: Counter[str] = Counter()

    def counting(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return original(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(Waymarks, "_refresh_now", counting("refresh", Waymarks._refresh_now))
    monkeypatch.setattr(session_refresh, "refresh_sources",
                        counting("sources", session_refresh.refresh_sources))
    monkeypatch.setattr(SessionLog, "refresh", counting("ledger_reads", SessionLog.refresh))
    monkeypatch.setattr(SessionLog, "read_header_line",
                        counting("header_reads", SessionLog.read_header_line))
    monkeypatch.setattr(os, "scandir", counting("scandir", os.scandir))
    yield counts


def prepared_home(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.remember("The staging database listens on port 5433", scope="project")
        app.pin("Run the migrations check before every commit", scope="project")
    for n in range(3):  # sibling sessions of the project: discovery has work to do
        with Waymarks(home, cwd=str(project)) as sibling:
            sibling.session_new()
            sibling.remember(f"Service {n} is owned by team {n}", scope="project")
    (project / "docs" / "engineering").mkdir(parents=True)
    (project / "docs" / "engineering" / "db.md").write_text("# Database\nPort 5433.\n")


STAGING_PORT = "which port does the staging database use?"


def traced_plan(app: Waymarks) -> tuple[Any, list[str]]:
    """A plan of the staging port (its answer checked) and the statements it ran."""
    from waymarks.service.planning import plan_request

    statements: list[str] = []
    app.projection.db.set_trace_callback(statements.append)
    try:
        plan = plan_request(app, STAGING_PORT)
    finally:
        app.projection.db.set_trace_callback(None)
    assert any("5433" in m.content for m in plan.messages)
    return plan, statements


def counted_plan(app: Waymarks, monkeypatch: pytest.MonkeyPatch, owner: object,
                 name: str) -> list[Any]:
    """The first argument of each call of ``owner.name`` during a warm plan (one made
    before it) of the staging port, whose answer is checked."""
    from waymarks.service.planning import plan_request

    plan_request(app, STAGING_PORT)
    calls: list[Any] = []
    original = getattr(owner, name)

    def counting(first: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(first)
        return original(first, *args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    plan = plan_request(app, STAGING_PORT)
    monkeypatch.undo()
    assert any("5433" in m.content for m in plan.messages)
    return calls


def an_append_is_read(home: Path, project: Path, app: Waymarks) -> None:
    """Another process appends a claim; ``app``'s next plan reads it."""
    from waymarks.service.planning import plan_request

    with Waymarks(home, cwd=str(project)) as writer:
        writer.remember("The staging cache listens on port 6380", scope="project")
    plan = plan_request(app, "which port does the staging cache use?")
    assert any("6380" in m.content for m in plan.messages)


def test_a_claude_code_prompt_refreshes_once(home: Path, project: Path,
                                             counted: Counter[str]) -> None:
    prepared_home(home, project)
    payload = {"session_id": SESSION, "cwd": str(project), "prompt": "which port?"}
    with Waymarks(home, cwd=str(project)) as app:  # a warm helper's app
        claude_code.handle("UserPromptSubmit", payload, home, app)  # first: binds, creates
        counted.clear()
        answer = claude_code.handle("UserPromptSubmit", {**payload, "prompt": "db port?"},
                                    home, app)
    assert answer is not None and "5433" in str(answer)
    assert counted["refresh"] == 1 and counted["sources"] == 1
    # the ledger is read for the request, then under the write's lock and after its append
    assert counted["ledger_reads"] <= 3
    assert counted["scandir"] <= 3  # once each: session directory, docs, personal memory
    assert counted["header_reads"] <= 2


def test_mcp_recall_and_a_tool_read_refresh_once(home: Path, project: Path,
                                                 counted: Counter[str]) -> None:
    prepared_home(home, project)
    with Waymarks(home, cwd=str(project)) as app:
        app.current_session()
        counted.clear()
        assert memory_recall(app, "which port does the staging database use?")["claims"]
        assert (counted["refresh"], counted["sources"]) == (1, 1)
        counted.clear()
        found = ContextPersistence(app).call({"action": "memory_find", "query": "port"}, None)
        assert found.outcome == "ok"
        assert (counted["refresh"], counted["sources"]) == (1, 1)


def test_a_learned_memory_listing_refreshes_once(home: Path, project: Path,
                                                 counted: Counter[str]) -> None:
    """`learned_memory` weighs each learned claim listed against the person's own claims
    it may bear on: each of those reads refreshed the session and the project's other
    sessions again (a page of 20 learned claims: 7 refreshes, one a claim that bears)."""
    from tests.recall.test_learned_global import learn
    from waymarks.mcp.tools.learned_memory import read

    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        for n in range(4):
            app.remember(f"The svc{n}x service listens on port {n + 100}.", scope="project")
    for n in range(4):
        learn(home, project, f"Remember: svc{n}x is on {7000 + n}",
              f"The svc{n}x service listens on port {7000 + n}", [f"svc{n}x", "service"])
    with Waymarks(home, cwd=str(project)) as app:
        app.current_session()
        counted.clear()
        listed = read(app, {"action": "list", "scope": "all"})
    # each contradicts the person's claim of its service: withheld, as before
    assert (listed["outcome"], listed["claims"], len(listed["withheld"])) == ("ok", [], 4)
    assert (counted["refresh"], counted["sources"]) == (1, 1)


def test_a_recall_with_learned_claims_refreshes_once(home: Path, project: Path,
                                                    counted: Counter[str]) -> None:
    """`waymarks recall` weighs each learned claim it finds against the person's own
    claims it may bear on: each of those reads refreshed the session and the project's
    other sessions again, after the recall's own refresh."""
    from tests.recall.test_learned_global import learn
    from waymarks.commands.recalling import recall_result

    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        for n in range(4):
            app.remember(f"The svc{n}x service listens on port {n + 100}.", scope="project")
    for n in range(4):
        learn(home, project, f"Remember: svc{n}x is on {7000 + n}",
              f"The svc{n}x service runs {n + 2} replicas", [f"svc{n}x", "replicas"])
    with Waymarks(home, cwd=str(project)) as app:
        app.current_session()
        counted.clear()
        found = recall_result(app, ["svc0x", "svc1x", "svc2x", "replicas"], [], None, False)
    assert "replicas" in found.text, found.text
    assert (counted["refresh"], counted["sources"]) == (1, 1)


def test_a_plan_looks_at_its_session_file_once(home: Path, project: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Each read inside a plan asked for the current session, and each such ask looked at
    the session's file again (a ``Path``, an ``lstat`` and a ``stat``: four times a plan,
    a steady part of every plan's cost at 1k memories): the request's refresh looked
    already, and what it found stands for the whole request."""
    from waymarks.service import sessions_api
    from waymarks.service.planning import plan_request

    prepared_home(home, project)
    looked: list[object] = []
    original = sessions_api.still_there

    def counting(session: Any, looked_up: bool) -> bool:
        looked.append(session)
        return original(session, looked_up)

    monkeypatch.setattr(sessions_api, "still_there", counting)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        app.current_session()
        looked.clear()
        plan = plan_request(app, "which port does the staging database use?")
        assert any("5433" in m.content for m in plan.messages)
        assert len(looked) == 1
        # a request after it looks again: a file deleted between two requests is noticed
        session = app.current_session()
        assert session is not None and len(looked) == 2
        Path(session.path).unlink()
        plan_request(app, "which port does the staging database use?")
        assert app.current_session() is not session


def test_a_plan_reads_its_session_files_checkpoint_once(home: Path, project: Path) -> None:
    """A plan's refresh asked the projection for the active session's checkpoint twice
    (whether the file is the one indexed, then whether the projection is behind it): one
    statement a plan for nothing, the answer the same. The one read serves both checks."""
    from waymarks.service.planning import plan_request

    prepared_home(home, project)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        plan_request(app, STAGING_PORT)
        _plan, statements = traced_plan(app)
    checkpoints = [s for s in statements if "FROM sources WHERE session_id" in s
                   and "byte_offset" in s]
    assert len(checkpoints) == 1, checkpoints


def test_a_plan_opens_its_session_file_once(home: Path, project: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan's refresh opened the session file for each read of it: its header (was it
    replaced?), the bytes before the checkpoint (rewritten?) twice, and what follows: four
    opens a plan. One open serves them; a file replaced between two plans is still noticed
    by the next one (test_session_identity), and an append is still read."""
    import builtins

    from waymarks.service.planning import plan_request

    prepared_home(home, project)
    opened: list[str] = []

    def counting(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(path: Any, *args: Any, **kwargs: Any) -> Any:
            opened.append(str(path))
            return original(path, *args, **kwargs)
        return wrapper

    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        plan_request(app, "which port does the staging database use?")
        session = app.current_session()
        assert session is not None
        monkeypatch.setattr(builtins, "open", counting("open", builtins.open))
        monkeypatch.setattr(os, "open", counting("os.open", os.open))
        plan = plan_request(app, "which port does the staging database use?")
        assert any("5433" in m.content for m in plan.messages)
        assert opened.count(str(session.path)) == 1, opened
        monkeypatch.undo()
        an_append_is_read(home, project, app)


def test_a_plan_stats_its_database_once_to_refresh(home: Path, project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A request's refresh asked of the database file which file it is (another process
    may have set it aside and rebuilt it) and then, with a second ``stat``, whether it was
    cut to nothing: one ``stat`` answers both. The plan's other one is the writer's turn
    for its manifest (is the file still the one this connection opened?). A file cut to
    nothing between two plans is still repaired (test_truncated_database)."""
    prepared_home(home, project)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        stats = [os.fspath(p) for p in counted_plan(app, monkeypatch, os, "stat")]
        assert stats.count(str(app.db_path)) == 2, stats


def test_a_plan_hashes_the_bytes_before_its_checkpoint_once(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan's refresh read and hashed the 4 KB before the session's checkpoint twice:
    is the file still what was indexed (session_checks), then were this reader's bytes
    written again under it (SessionLog.rewritten_under). One request's reads share one
    open of the file, and its hash of those bytes too; a file rewritten between two plans
    is still noticed by the next (test_ledger_attacks, test_restored_session), and an
    append is still read."""
    from waymarks.ledger import log

    prepared_home(home, project)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        hashed = counted_plan(app, monkeypatch, log, "_digest")
        assert len(hashed) == 1, [len(data) for data in hashed]
        an_append_is_read(home, project, app)


def test_a_plan_asks_once_whether_another_connection_wrote(home: Path,
                                                          project: Path) -> None:
    """Each read that keeps rows between requests (the pins' listing, items by ID, the
    recall index's cache and its records) asked SQLite whether another connection had
    committed (``PRAGMA data_version``): four statements a plan. A request asks once; its
    own writes still count as they are made, and another process's write is seen by the
    next request."""
    from waymarks.service.planning import plan_request

    prepared_home(home, project)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        plan_request(app, STAGING_PORT)
        _plan, statements = traced_plan(app)
        assert statements.count("PRAGMA data_version") == 1, statements
        with app.begin():  # a write inside a request is read by the same request
            before = {v.text for v in app.items("pin")}
            app.pin("Tag every release", scope="project")
            assert {v.text for v in app.items("pin")} == before | {"Tag every release"}
        with Waymarks(home, cwd=str(project)) as writer:  # another process writes
            writer.pin("Sign every tag", scope="project")
        plan = plan_request(app, STAGING_PORT)
        assert any("Sign every tag" in m.content for m in plan.messages)
