"""What a careless user met in the everyday store commands, through the real entry point."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, run_main: Any) -> Any:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_CC_HELPER", "off")
    monkeypatch.chdir(project)
    return run_main


def test_status_says_a_file_in_place_of_the_sessions_folder(cli: Any, home: Path) -> None:
    home.mkdir()
    (home / "sessions").write_text("not a folder\n")
    data = cli("status")
    assert data["session"] is None
    assert data["sessionsProblem"].startswith(f"{home / 'sessions'}: not a folder")
    text = cli("status", text=True)
    assert "(none yet)" not in text and "not a folder" in text and "move it aside" in text
    assert (home / "sessions").read_text() == "not a folder\n"


def test_status_names_the_session_in_use_beside_a_file_in_place_of_the_folder(
        cli: Any, home: Path, tmp_path: Path) -> None:
    """A session given by its path (``--session FILE``, kept outside the home's folder)
    is the one every command uses; status said "Session: (none: ...)" over it because the
    project's folder in the home is a file (a re-read of the sessionsProblem change)."""
    cli("pin", "--", "Run the linters")
    [folder] = (home / "sessions").iterdir()
    [ledger] = folder.glob("*.jsonl")
    kept = tmp_path / "kept"
    folder.rename(kept)
    folder.write_text("not a folder\n")
    given = str(kept / ledger.name)
    data = cli("--session", given, "status")
    assert data["session"]["path"] == given and data["pins"]["applies"] == 1
    assert data["sessionsProblem"].startswith(f"{folder}: not a folder")
    text = cli("--session", given, "status", text=True)
    [line] = [line for line in text.splitlines() if line.startswith("Session:")]
    assert data["session"]["id"] in line and "(none" not in line, text
    assert "not a folder" in text and "move it aside" in text, text


def test_health_names_a_fifo_where_an_older_ledger_was(cli: Any, home: Path) -> None:
    cli("pin", "--", "Run the linters")
    [folder] = (home / "sessions").iterdir()
    fifo = folder / "2020-01-01T00-00-00-000Z_deadbeef-0000-4000-8000-000000000000.jsonl"
    os.mkfifo(fifo)
    data = cli("health", expect=1)
    assert data["ok"] is False
    [problem] = [p for p in data["problems"] if p.startswith(str(fifo))]
    assert "a FIFO (named pipe)" in problem and ".aside" in problem
    assert cli("pins")["items"][0]["applies"] is True  # the pick is not stopped by it
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("kind", ["FIFO", "directory", "dangling link"])
def test_healths_fix_for_a_name_that_is_no_file_fits_what_is_there(
        cli: Any, home: Path, tmp_path: Path, kind: str) -> None:
    """The fix health gave a FIFO, a folder or a dangling link under a ledger's name was
    the one for a file with a bad first line: "keep it: its entries are read again once
    its first line is a session header again", of a thing that has no lines (a re-read of
    the change that listed them); a dangling link's fix is its target back."""
    cli("pin", "--", "Run the linters")
    [folder] = (home / "sessions").iterdir()
    odd = folder / "2020-01-01T00-00-00-000Z_deadbeef-0000-4000-8000-000000000000.jsonl"
    if kind == "FIFO":
        os.mkfifo(odd)
    elif kind == "directory":
        odd.mkdir()
    else:
        odd.symlink_to(tmp_path / "gone.jsonl")
    [problem] = [p for p in cli("health", expect=1)["problems"] if p.startswith(str(odd))]
    assert "first line" not in problem and "its entries are read again" not in problem
    assert f"mv {odd} {odd}.aside" in problem and "waymarks rebuild-index" in problem
    assert ("restore the file it stands for" in problem) == (kind == "dangling link")


def test_rebuild_index_lists_each_unreadable_file_on_its_own_line(
        cli: Any, home: Path) -> None:
    cli("pin", "--", "Run the linters")
    [folder] = (home / "sessions").iterdir()
    names = [f"2020-01-0{day}T00-00-00-000Z_deadbeef-0000-4000-8000-00000000000{day}.jsonl"
             for day in (1, 2)]
    for name in names:
        os.mkfifo(folder / name)
    data = cli("rebuild-index")
    assert len(data["unreadable"]) == 2
    text = cli("rebuild-index", text=True)
    listed = text.split("Unreadable:", 1)[1].strip("\n").splitlines()
    assert sorted(listed) == [f"  {folder / name}: a FIFO (named pipe), not a session file"
                              for name in names], text


def test_health_names_a_file_whose_first_line_is_past_what_pickers_read(
        cli: Any, home: Path) -> None:
    cli("pin", "--", "Run the linters")
    [folder] = (home / "sessions").iterdir()
    [ledger] = folder.glob("*.jsonl")
    header, *rest = ledger.read_bytes().splitlines(keepends=True)
    long = json.loads(header) | {"id": "aaaaaaaa-0000-4000-8000-000000000000",
                                 "pad": "x" * 70_000}
    odd = folder / "2020-01-01T00-00-00-000Z_aaaaaaaa-0000-4000-8000-000000000000.jsonl"
    odd.write_bytes(json.dumps(long).encode() + b"\n" + b"".join(rest))
    data = cli("health", expect=1)
    assert {"path": str(odd), "firstLineComplete": True} in data["filesWithoutHeader"]
    assert any(p.startswith(f"{odd}: not a session file") for p in data["problems"])
    rebuilt = cli("rebuild-index")  # what a rebuild says of it, as before
    assert any(u.startswith(f"{odd}: not a session file") for u in rebuilt["unreadable"])


def test_a_session_prefix_naming_a_fifo_says_what_is_there(cli: Any, home: Path) -> None:
    cli("pin", "--", "Run the linters")
    [folder] = (home / "sessions").iterdir()
    fifo = folder / "2020-01-01T00-00-00-000Z_deadbeef-0000-4000-8000-000000000000.jsonl"
    os.mkfifo(fifo)
    refused = cli("--session", "deadbeef", "pins", expect=2)
    assert refused["code"] == "bad_session"
    assert f"{fifo}: a FIFO (named pipe), not a session file" in refused["message"]
    assert "move it aside" in refused["message"]
    assert "a FIFO" not in cli("--session", "feedface", "pins", expect=2)["message"]


@pytest.mark.parametrize("kind", ["FIFO", "directory", "dangling link"])
def test_a_session_path_naming_no_regular_file_says_what_is_there(
        cli: Any, home: Path, tmp_path: Path, kind: str) -> None:
    """``--session PATH`` naming a FIFO (a folder, a link whose target is gone) said "no
    such session file", sending the person looking for a file that is there, as the
    prefix did before it was made to say what it names (a re-read of that change)."""
    cli("pin", "--", "Run the linters")
    named = tmp_path / "named.jsonl"
    if kind == "FIFO":
        os.mkfifo(named)
    elif kind == "directory":
        named.mkdir()
    else:
        named.symlink_to(tmp_path / "gone.jsonl")
    what = {"FIFO": "a FIFO (named pipe)", "directory": "a directory",
            "dangling link": "a symbolic link whose target is missing"}[kind]
    refused = cli("--session", str(named), "pins", expect=2)
    assert refused["code"] == "bad_session"
    assert f"{named}: {what}, not a session file" in refused["message"], refused
    assert "no such session file" not in refused["message"]
    missing = cli("--session", str(tmp_path / "nope.jsonl"), "pins", expect=2)
    assert f"{tmp_path / 'nope.jsonl'}: no such session file" in missing["message"]
    assert os.path.lexists(named) and cli("pins")["items"][0]["applies"] is True
