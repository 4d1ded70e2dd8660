"""waymarks.db, its -wal, -shm and the writer's waymarks.db.lock that are not regular files
(a directory, a FIFO, a symbolic link) are refused through the real CLI with the file
named, what it is, and how to move it aside; nothing changes and nothing hangs.

Before: a directory at waymarks.db was "cannot be opened for writing ... check that the
files are yours and writable", a FIFO at waymarks.db "an I/O error ... check the disk",
a dangling link at waymarks.db made SQLite create the file it names (outside the home),
and a FIFO at -wal was removed by SQLite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks
from waymarks.ledger.discovery import session_dir

NAMES = ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm", "waymarks.db.lock")


def _cli(home: Path, project: Path, *args: str, fresh: bool = False
         ) -> subprocess.CompletedProcess[str] | Ran:
    """The CLI in this process, or with ``fresh`` in a new one (bounded: a FIFO opened
    blocking would hang the test otherwise)."""
    where = ("--home", str(home), "--cwd", str(project))
    if not fresh:
        return waymarks(*where, *args)
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *where, *args],
                          capture_output=True, text=True, check=False, timeout=60)


def _snapshot(home: Path) -> dict[str, tuple[int, bytes | str | None]]:
    found: dict[str, tuple[int, bytes | str | None]] = {}
    for path in sorted(home.rglob("*")):
        st = os.lstat(path)
        content: bytes | str | None = None
        if path.is_symlink():
            content = os.readlink(path)
        elif path.is_file() and not path.name.startswith("waymarks.db"):
            content = path.read_bytes()
        found[str(path.relative_to(home))] = (st.st_mode, content)
    return found


def _replace(target: Path, kind: str, outside: Path) -> str:
    """Put a ``kind`` (directory, fifo, a symbolic link to ``outside``) at ``target``;
    what the refusal calls it."""
    target.unlink(missing_ok=True)
    if kind == "directory":
        target.mkdir()
        return "a directory"
    if kind == "fifo":
        os.mkfifo(target)
        return "a FIFO"
    target.symlink_to(outside)
    return "a symbolic link"


@pytest.mark.parametrize("kind", [  # a FIFO runs each command in a new process: slow
    "directory", pytest.param("fifo", marks=pytest.mark.slow), "symlink"])
@pytest.mark.parametrize("name", NAMES)
def test_a_database_file_that_is_not_regular_is_refused_with_its_fix(
        tmp_path: Path, kind: str, name: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    assert _cli(home, project, "pin", "Run the tests first").returncode == 0
    for leftover in ("waymarks.db-wal", "waymarks.db-shm"):
        (home / leftover).unlink(missing_ok=True)
    target = home / name
    outside = tmp_path / "elsewhere.db"
    what = _replace(target, kind, outside)  # dangling: SQLite created the file it names
    before = _snapshot(home)
    database = (home / "waymarks.db").read_bytes() if name != "waymarks.db" else None
    for args in (("pins",), ("pin", "Another pin"), ("health",)):
        done = _cli(home, project, *args, fresh=kind == "fifo")
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        message = " ".join(done.stderr.split())
        assert f"{target} is {what}" in message, message
        assert f"mv {target} {target}.aside" in message, message
        assert "Nothing was changed" in message
        assert "Traceback" not in done.stderr
    assert _snapshot(home) == before
    assert not outside.exists()
    if database is not None:
        assert (home / "waymarks.db").read_bytes() == database
    # the fix in the message works
    target.rename(f"{target}.aside")
    done = _cli(home, project, "pins")
    assert done.returncode == 0 and "Run the tests first" in done.stdout, done.stderr


@pytest.mark.parametrize("kind", ["directory", "fifo", "dangling", "symlink"])
@pytest.mark.parametrize("name", ["evolution.db", "evolution.db-wal"])
def test_a_learning_queue_file_that_is_not_regular_is_refused_the_same_way(
        tmp_path: Path, kind: str, name: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``evolution.db`` (the learning queue) and its companions get the projection's
    treatment. Before: a directory there was "cannot be opened for writing", a FIFO an
    I/O error "check the disk", a dangling link an error `evolution` commands met and
    `health` called OK, and a FIFO at -wal was removed by SQLite."""
    from waymarks.cli.main import main

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["--json", "evolve"]) == 0  # the queue exists, with its -wal gone
    (home / "evolution.db-wal").unlink(missing_ok=True)
    (home / "evolution.db-shm").unlink(missing_ok=True)
    target = home / name
    outside = tmp_path / "elsewhere.db"
    if kind == "symlink":  # a link to a file (followed), besides a dangling one
        outside.write_bytes(b"")
    what = _replace(target, kind, outside)
    capsys.readouterr()
    before = _snapshot(home)
    advice = f"mv {target} {target}.aside"
    for args in (["evolution", "status"], ["evolve"]):
        assert main(["--json", *args]) == 1, args
        message = json.loads(capsys.readouterr().out.splitlines()[-1])["message"]
        assert f"{target} is {what}" in message and advice in message, message
        assert "learning queue" in message and "Nothing was changed" in message
    assert main(["--json", "health"]) == 1
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["ok"] is False
    assert any(f"{target} is {what}" in p and advice in p for p in report["problems"])
    assert _snapshot(home) == before
    target.rename(f"{target}.aside")  # the fix in the message works
    assert main(["--json", "evolve"]) == 0


@pytest.mark.parametrize("where", ["sessions", "project folder"])
def test_a_file_where_the_sessions_folder_belongs_is_named_with_the_fix(
        home: Path, project: Path, where: str) -> None:
    """A file at ``<home>/sessions`` (or at the project's folder in it): every write
    failed with "File exists (<path>); nothing was acknowledged", no fix given, and
    health said OK."""
    assert _cli(home, project, "--json", "memory").returncode == 0  # the home exists
    folders = sorted((home / "sessions").glob("*")) if (home / "sessions").is_dir() else []
    assert not folders
    blocker = home / "sessions"
    if where == "project folder":
        blocker.mkdir(exist_ok=True)
        blocker = session_dir(home, str(project.resolve()))
    blocker.write_text("in the way\n")
    done = _cli(home, project, "--json", "pin", "--", "Keep the build green")
    refused = json.loads(done.stdout)
    assert done.returncode == 1 and refused["code"] == "io_error", refused
    message = refused["message"]
    assert f"({blocker})" in message and "File exists" not in message, refused
    assert "a file is in the way of a folder on that path" in message.lower(), refused
    report = _cli(home, project, "--json", "health")
    assert report.returncode == 1, report.stdout
    assert [p for p in json.loads(report.stdout)["problems"]
            if p.startswith(f"{blocker}: not a folder") and "move it aside" in p]
    assert blocker.read_text() == "in the way\n"
    blocker.unlink()
    assert _cli(home, project, "--json", "pin", "--", "Keep the build green").returncode == 0
    assert json.loads(_cli(home, project, "--json", "health").stdout)["ok"]
