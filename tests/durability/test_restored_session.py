"""An older copy of the active session restored over it (or the file cut short) was read
again from its start as if nothing had happened: the pins and memory acknowledged since
vanished from every listing, `health` said OK and `--json` carried no `sessionProblem`.
A sibling session so changed was already held back as `truncated`. The active one now
keeps its last projection, every read says why, `health` names it, writes are refused
with nothing appended, until the file is restored or `rebuild-index` reads it as it is.
Real files, real SQLite, the real CLI."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.service.app import Waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, Any]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    return done.returncode, json.loads(done.stdout)


def _texts(home: Path, project: Path, listing: str) -> list[str]:
    return sorted(i["text"] for i in _run(home, project, listing)[1]["items"])


def _setup(home: Path, project: Path) -> Path:
    _run(home, project, "trust", str(project))
    _run(home, project, "memory", "add", "--scope", "project", "The database port is 5432.")
    _run(home, project, "pin", "--scope", "project", "Use pnpm not npm")
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    return session


@pytest.mark.parametrize("damage", ["older copy", "cut short"])
def test_a_shorter_active_session_keeps_what_was_acknowledged(
        home: Path, project: Path, tmp_path: Path, damage: str) -> None:
    session = _setup(home, project)
    backup = tmp_path / "backup.jsonl"
    shutil.copy(session, backup)
    assert _run(home, project, "pin", "--scope", "project", "Never push to main")[0] == 0
    assert _run(home, project, "memory", "add", "--scope", "project",
                "The linter is ruff.")[0] == 0
    if damage == "older copy":
        shutil.copy(backup, session)
    else:
        session.write_bytes(session.read_bytes()[:-40])
    assert _texts(home, project, "pins") == ["Never push to main", "Use pnpm not npm"]
    code, listed = _run(home, project, "memory")
    assert code == 0 and "The linter is ruff." in [i["text"] for i in listed["items"]]
    assert "shorter than the" in listed["sessionProblem"]
    assert "rebuild-index" in listed["sessionProblem"]
    code, report = _run(home, project, "health")
    assert code == 1 and report["ok"] is False
    assert "shorter than the" in report["activeSessionProblem"]
    before = session.read_bytes()
    code, refused = _run(home, project, "pin", "--scope", "project", "Another pin")
    assert code == 1 and refused["code"] == "session_replaced", refused
    assert "nothing was written" in refused["message"]
    assert session.read_bytes() == before
    # a note is kept in the file, and does not make the file count as read again, not
    # even once the file is longer than what was projected from it
    indexed = _run(home, project, "health")[1]["sources"][0]["checkpointOffset"]
    assert _run(home, project, "session", "say", "hello " * 200)[0] == 0
    assert indexed < len(session.read_bytes())
    assert "Never push to main" in _texts(home, project, "pins")
    code, report = _run(home, project, "health")
    assert code == 1 and "other bytes than were projected" in report["activeSessionProblem"]
    _run(home, project, "rebuild-index")  # the person chose the file as it is now
    assert _run(home, project, "health")[0] == 0
    assert _texts(home, project, "pins") == (  # the cut was in the last line, the memory
        ["Use pnpm not npm"] if damage == "older copy" else
        ["Never push to main", "Use pnpm not npm"])
    assert "The linter is ruff." not in _texts(home, project, "memory")
    assert _run(home, project, "pin", "--scope", "project", "Another pin")[0] == 0


def test_a_long_lived_process_notices_the_restored_copy(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        tmp_path: Path) -> None:
    app = make_app()
    app.pin("Use pnpm not npm")
    session = app.current_session()
    assert session is not None
    backup = tmp_path / "backup.jsonl"
    shutil.copy(session.path, backup)
    app.pin("Never push to main")
    shutil.copy(backup, session.path)
    with app.begin():
        assert sorted(v.text for v in app.items("pin")) == [
            "Never push to main", "Use pnpm not npm"]
    assert app.refresh_problem is not None and "shorter than" in app.refresh_problem
    assert app.health()["activeSessionProblem"] is not None


@pytest.mark.parametrize("rewrite", ["spaced", "doubled"])
def test_a_file_whose_bytes_changed_but_that_holds_every_entry_is_read_again_quietly(
        home: Path, project: Path, rewrite: str) -> None:
    """Other bytes before the checkpoint are no loss when every projected entry is still
    there: Pi 0.73 writes a session's entries again when it opens one (each line twice),
    and a host's buffer re-encodes numbers otherwise than Pi writes them (7.5e-6 for
    0.0000075). Judged by its bytes alone, such a file was "replaced": writes were refused
    until `rebuild-index`, and the next Pi run brought the state back."""
    session = _setup(home, project)
    lines = session.read_bytes().splitlines()
    if rewrite == "spaced":  # the same entries, encoded with spaces
        data = b"".join(json.dumps(json.loads(line)).encode() + b"\n" for line in lines)
    else:  # every line of the file written again after it (the header too)
        data = b"".join(line + b"\n" for line in lines * 2)
    session.write_bytes(data)
    code, listed = _run(home, project, "pins")
    assert code == 0 and listed.get("sessionProblem") is None, listed
    assert [i["text"] for i in listed["items"]] == ["Use pnpm not npm"]
    assert _run(home, project, "pin", "--scope", "project", "Never push to main")[0] == 0
    assert _texts(home, project, "pins") == ["Never push to main", "Use pnpm not npm"]
    assert _texts(home, project, "memory") == ["The database port is 5432."]


def _rewritten_under(home: Path, project: Path, app: Waymarks, path: Path) -> None:
    """Write ``path`` again shorter under ``app``'s reader, pin from another process, then
    from ``app``: every pin is there, on the branch, and `health` is OK."""
    path.write_bytes(path.read_bytes().replace(b"x" * 300, b"y"))
    with Waymarks(home, cwd=str(project)) as other:
        assert other.pin("Never push to main").outcome == "committed"
    assert app.pin("Third pin").outcome == "committed"
    app.close()
    with Waymarks(home, cwd=str(project)) as fresh:
        assert sorted(v.text for v in fresh.items("pin")) == [
            "Never push to main", "Third pin", "Use pnpm not npm"]
        assert fresh.health()["ok"] is True


def test_a_long_lived_process_reads_a_rewritten_file_again_from_its_start(
        home: Path, project: Path) -> None:
    """Read again quietly, the file went on being read from the long-lived reader's old
    byte offset: in a file rewritten shorter that offset fell inside a later line, which
    was skipped as malformed, and another process's committed pin was lost (the helper,
    the MCP server, the Pi bridge and the Python API hold a session for long)."""
    app = Waymarks(home, cwd=str(project))
    app.session_new()
    app.session_say("x" * 300)
    assert app.pin("Use pnpm not npm").outcome == "committed"
    session = app.current_session()
    assert session is not None
    _rewritten_under(home, project, app, session.path)


def test_a_reader_opened_at_the_checkpoint_reads_a_rewritten_file_again(
        home: Path, project: Path) -> None:
    """The same for a long-lived reader that was opened at the projection's checkpoint
    and read nothing since (how a long-lived process opens an existing session): it knew
    no bytes of its own, so nothing told it they had changed."""
    with Waymarks(home, cwd=str(project)) as first:
        first.session_new()
        first.session_say("x" * 300)
        assert first.pin("Use pnpm not npm").outcome == "committed"
        path = first.current_session().path  # type: ignore[union-attr]
    app = Waymarks(home, cwd=str(project))
    assert [v.text for v in app.items("pin")] == ["Use pnpm not npm"]  # opened, read nothing
    _rewritten_under(home, project, app, path)
