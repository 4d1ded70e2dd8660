"""A copy of a session named with ``--session /elsewhere/copy.jsonl`` took over the
session's place in the projection (its sources row is kept by session ID): the copy's
path and its ``foreign-location`` status replaced the original's, so every project item
of that session was held back for the whole project (`pins` said "No pin items", `health`
OK) until `rebuild-index`, which skips such a copy. One session has one ledger: the copy
is refused as a bad argument (exit 2) and nothing is read or written. Real files, real
SQLite, the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.inprocess import waymarks as run_waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, Any]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    return done.returncode, json.loads(done.stdout)


def _setup(home: Path, project: Path) -> Path:
    _run(home, project, "trust", str(project))
    _run(home, project, "memory", "add", "--scope", "project", "The database port is 5432.")
    _run(home, project, "pin", "--scope", "project", "Use pnpm not npm")
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    _run(home, project, "session", "new")
    return session


def test_a_copy_of_an_indexed_session_is_refused(home: Path, project: Path,
                                                 tmp_path: Path) -> None:
    session = _setup(home, project)
    copy = tmp_path / "shared" / "shared.jsonl"
    copy.parent.mkdir()
    shutil.copy(session, copy)
    original = session.read_bytes()
    for command in (("pin", "shared session pin"), ("pins",)):
        code, refused = _run(home, project, "--session", str(copy), *command)
        assert code == 2 and refused["code"] == "bad_session", refused
        assert str(session) in refused["message"] and "copy" in refused["message"]
    assert copy.read_bytes() == session.read_bytes() == original
    pins = [i["text"] for i in _run(home, project, "pins")[1]["items"]]
    assert pins == ["Use pnpm not npm"]
    sources = _run(home, project, "memory", "sources")[1]
    [listed] = [s for s in sources["sources"] if not s["active"]]
    assert (listed["path"], listed["status"], listed["heldBack"]) == (
        str(session), "available", 0)
    assert _run(home, project, "health")[0] == 0
    assert _run(home, project, "--session", str(session), "pins")[0] == 0  # the original


def test_a_session_whose_indexed_file_is_gone_is_opened_where_it_is(
        home: Path, project: Path, tmp_path: Path) -> None:
    session = _setup(home, project)
    moved = tmp_path / "moved.jsonl"
    shutil.move(session, moved)
    code, listed = _run(home, project, "--session", str(moved), "pins")
    assert code == 0 and "items" in listed, listed
