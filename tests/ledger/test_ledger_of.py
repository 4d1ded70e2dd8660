"""Finding a session's ledger by its ID: in the project's own session directory first, then
in any project's (one session, one ledger, whichever directory holds it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from waymarks.ledger.discovery import ledger_of, session_dir

SID = "0f8e2a6c-1111-4222-8333-944455556666"


def _ledger(home: Path, cwd: str, sid: str = SID) -> Path:
    path = session_dir(home, cwd) / f"2026-01-01T00-00-00-000Z_{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")
    return path


def test_the_own_directory_is_enough_when_it_holds_the_ledger(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    for n in range(40):  # a person's other projects, each with a session of its own
        _ledger(home, f"/work/other-{n}", f"0f8e2a6c-1111-4222-8333-{n:012d}")
    mine = _ledger(home, "/work/mine")
    listed: list[str] = []
    scandir = os.scandir

    def counting(path):  # type: ignore[no-untyped-def]
        listed.append(str(path))  # (a glob lists a folder with it too)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    assert ledger_of(home, SID, "/work/mine") == mine
    # one directory listed, not every project's
    assert listed == [str(session_dir(home, "/work/mine"))]
    assert ledger_of(home, SID) == mine  # without a project: found across all of them


def test_a_ledger_in_another_project_directory_is_still_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    elsewhere = _ledger(home, "/work/started-here")
    assert ledger_of(home, SID, "/work/moved-there") == elsewhere
    assert ledger_of(home, "0f8e2a6c-1111-4222-8333-000000000000", "/work/x") is None
    assert ledger_of(tmp_path / "no-home", SID, "/work/x") is None


def test_a_ledger_is_found_by_its_names_end_as_the_glob_finds_it(tmp_path: Path) -> None:
    """``ledger_of`` reads a folder's names instead of compiling the glob's expression
    (every hook without its helper compiled one); it finds what the glob found: dot
    names and a folder named like a ledger too, never a name that only holds the ID,
    sorted; an ID with a glob's own characters still goes through the glob."""
    from waymarks.ledger.discovery import _named, ledger_of, session_dir

    sid = "0f8fad5b-d9cb-469f-a165-70867728950e"
    folder = session_dir(tmp_path, "/work/project")
    folder.mkdir(parents=True)
    for name in (f"b_{sid}.jsonl", f".a_{sid}.jsonl", f"_{sid}.jsonl", f"c_{sid}.jsonl.bak",
                 f"x{sid}.jsonl", f"d_{sid.upper()}.jsonl"):
        (folder / name).write_text("")
    (folder / f"dir_{sid}.jsonl").mkdir()
    assert _named(folder, sid) == sorted(folder.glob(f"*_{sid}.jsonl"))
    assert [p.name for p in _named(folder, sid)] == [
        f".a_{sid}.jsonl", f"_{sid}.jsonl", f"b_{sid}.jsonl", f"dir_{sid}.jsonl"]
    assert ledger_of(tmp_path, sid, "/work/project") == folder / f".a_{sid}.jsonl"
    assert _named(tmp_path / "none", sid) == []
    (folder / "a_x[y].jsonl").write_text("")
    assert _named(folder, "x[y]") == sorted(folder.glob("*_x[y].jsonl")) == []
