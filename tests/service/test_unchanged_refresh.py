"""A request's refresh reads nothing of a session file that did not change (issue 15):
its ``stat`` and the projection's change token stand for the last refresh that found
nothing new. An append by another process, a commit by another connection and a file
written just now are read as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from waymarks.ledger.log import SessionLog
from waymarks.service import session_refresh
from waymarks.service.app import Waymarks
from waymarks.service.planning import plan_request

STAGING_PORT = "which port does the staging database use?"


def _home(home: Path, project: Path) -> Path:
    """A home whose session holds the staging database's port; its session file."""
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.remember("The staging database listens on port 5433", scope="session")
        session = app.current_session()
        assert session is not None
        return Path(session.path)


def _reads(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[str]:
    """Each read of ``path`` from now on: its header line, or an open of the file."""
    seen: list[str] = []
    header = SessionLog.read_header_line
    opening = os.open

    def read_header_line(self: SessionLog) -> bytes | None:
        seen.append("header")
        return header(self)

    def counted_open(name: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(name) == str(path):
            seen.append("open")
        return opening(name, *args, **kwargs)

    monkeypatch.setattr(SessionLog, "read_header_line", read_header_line)
    monkeypatch.setattr(os, "open", counted_open)
    return seen


def _answers(app: Waymarks, prompt: str, text: str) -> bool:
    return any(text in m.content for m in plan_request(app, prompt).messages)


def _append_memory(path: Path, claim: str) -> None:
    """Append a claim to the session file from another process, as Pi appends its own
    entries: the database is not told (only the file's size and times change)."""
    last = json.loads(path.read_bytes().splitlines()[-1])
    ms = 1_767_225_600_000
    line = json.dumps({
        "type": "custom", "customType": "ds4-context-memory-v1",
        "data": {"schemaVersion": 1, "mutationId": str(uuid.uuid4()), "createdAt": ms,
                 "operation": "add",
                 "item": {"id": str(uuid.uuid4()), "scope": "session", "createdAt": ms,
                          "claim": claim, "sourceEntryIds": []}},
        "id": uuid.uuid4().hex[:8], "parentId": last["id"],
        "timestamp": "2026-01-01T00:00:00.000Z"}) + "\n"
    subprocess.run([sys.executable, "-c",
                    "import sys; open(sys.argv[1], 'ab').write(sys.argv[2].encode())",
                    str(path), line], check=True, timeout=60)


def test_an_unchanged_session_file_is_not_read_again(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _home(home, project)
    monkeypatch.setattr(session_refresh, "SETTLED_NS", 0,  # (the file written just now)
                        raising=False)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        for _ in range(2):  # (the first plan's own writes, its recall index's, move the
            assert _answers(app, STAGING_PORT, "5433")  # token: the second reads again)
        seen = _reads(monkeypatch, path)
        assert _answers(app, STAGING_PORT, "5433")
        assert seen == []  # before: its header, then an open for the rest, every plan
        # another process appends: the size changed, the file is read, the claim found
        _append_memory(path, "The staging cache listens on port 6380")
        assert _answers(app, "which port does the staging cache use?", "6380")
        assert "header" in seen, seen
        seen.clear()  # (its sync moved the token: the next plan reads, the one after not)
        for _ in range(2):
            assert _answers(app, "which port does the staging cache use?", "6380")
        assert seen.count("header") == 1, seen


def test_another_connections_commit_is_read(home: Path, project: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit of another connection (here: its own session file, the project's scope)
    moves the change token: the refresh reads the session file again."""
    path = _home(home, project)
    monkeypatch.setattr(session_refresh, "SETTLED_NS", 0)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        assert _answers(app, STAGING_PORT, "5433")
        seen = _reads(monkeypatch, path)
        with Waymarks(home, cwd=str(project), session=str(path)) as writer:
            writer.pin("Run the migrations check before every commit", scope="project")
        seen.clear()
        plan = plan_request(app, STAGING_PORT)
        assert any("migrations check" in m.content for m in plan.messages)
        assert "header" in seen, seen


def test_a_file_written_just_now_is_read_each_time(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose times are within :data:`SETTLED_NS` of now may change again with
    the same size and times (one tick of the file system's clock): it is read every
    time, as before."""
    path = _home(home, project)
    monkeypatch.setattr(session_refresh, "SETTLED_NS", 10 ** 18)  # (never settled)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        assert _answers(app, STAGING_PORT, "5433")
        seen = _reads(monkeypatch, path)
        for _ in range(2):
            assert _answers(app, STAGING_PORT, "5433")
        assert seen.count("header") == 2, seen


def test_a_file_replaced_with_another_session_is_noticed(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another inode at the path (a copy restored over it): read again, and the change
    of header is reported as before."""
    path = _home(home, project)
    monkeypatch.setattr(session_refresh, "SETTLED_NS", 0)
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:
        assert _answers(app, STAGING_PORT, "5433")
        assert _answers(app, STAGING_PORT, "5433")
        lines = path.read_bytes().splitlines(keepends=True)
        header = json.loads(lines[0])
        header["id"] = str(uuid.uuid4())
        other = path.with_name("other.jsonl")
        other.write_bytes((json.dumps(header) + "\n").encode() + b"".join(lines[1:]))
        os.replace(other, path)
        assert _answers(app, STAGING_PORT, "5433")  # the last projection, in force
        assert app.refresh_problem is not None and "header changed" in app.refresh_problem


