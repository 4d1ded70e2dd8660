"""A write cut off just before its newline (a full disk stops there, and the person is told
the write failed) was decided again on retry against a projection that skipped that
unterminated line; the append then ended the line, so it counted too: the retried claim
or pin was stored twice, both active after a rebuild, and `health` said OK. A write now
ends such a line and decides again: the retry is the duplicate of the item the line
holds (its ID), and a claim conflicting with it is refused before anything is appended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, Any]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    return done.returncode, json.loads(done.stdout)


def _cut_newline(home: Path) -> Path:
    """The session file with its last newline gone and that line never projected, as a
    write stopped by a full disk leaves them (the append failed before the projection
    read the line: here the database is deleted, so the next command rebuilds it from
    the file, which leaves the unterminated line unread)."""
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    data = session.read_bytes()
    assert data.endswith(b"\n")
    session.write_bytes(data[:-1])
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)
    return session


@pytest.mark.parametrize("kind", ["memory", "pin"])
def test_a_retry_after_a_cut_newline_is_the_duplicate(home: Path, project: Path,
                                                      kind: str) -> None:
    _run(home, project, "trust", str(project))
    _run(home, project, "memory", "add", "--scope", "project", "The database port is 5432.")
    if kind == "memory":
        add = ("memory", "add", "--scope", "project", "The cache TTL is 30 seconds.")
        listing = ("memory",)
    else:
        add = ("pin", "--scope", "project", "Use pnpm not npm")
        listing = ("pins",)
    code, first = _run(home, project, *add)
    assert code == 0 and first["outcome"] == "committed"
    session = _cut_newline(home)
    code, retried = _run(home, project, *add)
    assert code == 0 and (retried["outcome"], retried["id"]) == ("duplicate", first["id"])
    assert session.read_bytes().endswith(b"\n")  # the line was ended, no entry added
    texts = [i["text"] for i in _run(home, project, *listing)[1]["items"]]
    assert texts.count(add[-1]) == 1, texts
    _run(home, project, "rebuild-index")
    texts = [i["text"] for i in _run(home, project, *listing)[1]["items"]]
    assert texts.count(add[-1]) == 1, texts
    assert _run(home, project, "health")[0] == 0


def test_a_conflict_with_a_cut_line_is_refused_before_appending(home: Path,
                                                                project: Path) -> None:
    _run(home, project, "trust", str(project))
    code, first = _run(home, project, "memory", "add", "--scope", "project",
                       "The cache TTL is 30 seconds.")
    assert code == 0
    session = _cut_newline(home)
    entries = session.read_bytes().count(b"\n") + 1
    code, refused = _run(home, project, "memory", "add", "--scope", "project",
                         "The cache TTL is 60 seconds.")
    assert refused["outcome"] == "rejected" and refused["code"] == "conflict", refused
    assert refused["conflicts"] == [first["id"]]
    assert session.read_bytes().count(b"\n") == entries  # ended, nothing appended


def test_a_redone_prompt_after_a_cut_newline_is_not_said_twice(home: Path, project: Path
                                                                 ) -> None:
    """The same for a hook's prompt redone by the hook's own process (a stalled Claude
    Code helper's append stopped by a full disk just before its newline): the check for
    the prompt already recorded read complete lines only, missed the cut line, and the
    append then ended it: the prompt was in the ledger twice."""
    from waymarks.service.app import Waymarks

    with Waymarks(home, cwd=project) as app:
        app.session_new()
        start = app._now_ms()
        app.session_say("first prompt")
        session = app.current_session()
        assert session is not None
        path, leaf = session.path, session.leaf_id
    line = {"type": "message", "id": "aaaaaaaa", "parentId": leaf,
            "timestamp": "2026-12-05T12:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "run the tests"}],
                        "timestamp": start + 5}}
    with path.open("ab") as handle:
        handle.write(json.dumps(line).encode())  # the helper's line, without its newline
    with Waymarks(home, cwd=project) as app:
        said = app.session_say("run the tests", unless_since_ms=start)
    assert said == "aaaaaaaa"
    lines = [json.loads(raw) for raw in path.read_bytes().splitlines()]
    texts = [entry["message"]["content"][0]["text"] for entry in lines
             if entry.get("type") == "message"]
    assert texts == ["first prompt", "run the tests"]
    assert path.read_bytes().endswith(b"\n")
