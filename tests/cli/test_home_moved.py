"""A home moved to another path (``mv``, or ``cp -a`` to a new machine and the old one
removed) kept its active session indexed at the old path until the next write: reads
found the file where it is now, but ``health`` said the active session's ledger was
missing (exit 1, "run `waymarks rebuild-index`") for a home with nothing wrong with it,
and with the old home still there, it inspected that home's file instead of this one's.
A read re-points the active session to where it is read from, as a write did. Real
files, real SQLite, the real CLI."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, Any]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    return done.returncode, json.loads(done.stdout)


def _home_with_a_session(home: Path, project: Path) -> None:
    _run(home, project, "trust", str(project))
    _run(home, project, "memory", "add", "--scope", "project", "The database port is 5432.")
    _run(home, project, "session", "new")
    _run(home, project, "pin", "--scope", "project", "Use pnpm not npm")


def test_a_moved_home_reads_its_active_session_where_it_is_now(
        home: Path, project: Path, tmp_path: Path) -> None:
    _home_with_a_session(home, project)
    moved = tmp_path / "elsewhere" / "home"
    shutil.copytree(home, moved, symlinks=True)
    shutil.rmtree(home)
    code, pins = _run(moved, project, "pins")
    assert code == 0 and [p["text"] for p in pins["items"]] == ["Use pnpm not npm"]
    code, report = _run(moved, project, "health")
    assert code == 0 and report["problems"] == [], report
    assert all(Path(s["path"]).is_relative_to(moved) and s["exists"]
               for s in report["sources"]), report["sources"]
    assert not home.exists()  # nothing was made at the old path


def test_a_copied_home_reports_on_its_own_active_ledger(
        home: Path, project: Path, tmp_path: Path) -> None:
    _home_with_a_session(home, project)
    copy = tmp_path / "copy"
    shutil.copytree(home, copy, symlinks=True)
    _run(home, project, "memory", "add", "The cache size is 64 MB.")  # the original moves on
    code, report = _run(copy, project, "health")
    assert code == 0, report
    [active] = [s for s in report["sources"] if s["sessionId"] == _active(copy, project)]
    assert Path(active["path"]).is_relative_to(copy) and active["unreadBytes"] == 0, active


def _active(home: Path, project: Path) -> str:
    return str(_run(home, project, "session", "show")[1]["session"]["id"])


def test_a_copied_homes_earlier_session_is_its_own(home: Path, project: Path,
                                                   tmp_path: Path) -> None:
    """In a copy of a home (`cp -a`, the original kept), `--session ID` of an earlier
    session was refused as "a copy of that session", advising `--session` with the
    ORIGINAL home's file: the copy's own ledger could not be used, and the advice wrote
    into another home. A session found in this home's folders is this home's."""
    _run(home, project, "trust", str(project))
    first = _run(home, project, "memory", "add", "The staging cluster is blue.")[1]
    earlier = _active(home, project)
    _run(home, project, "session", "new")
    _run(home, project, "pin", "Use pnpm not npm")
    copy = tmp_path / "copy"
    shutil.copytree(home, copy, symlinks=True)
    originals = {p: p.read_bytes() for p in (home / "sessions").rglob("*.jsonl")}
    code, listed = _run(copy, project, "--session", earlier[:8], "memory")
    assert code == 0 and [i["id"] for i in listed["items"]] == [first["id"]], listed
    code, added = _run(copy, project, "--session", earlier[:8], "memory", "add",
                       "The prod cluster is green.")
    assert code == 0 and added["outcome"] == "committed", added
    assert {p: p.read_bytes() for p in (home / "sessions").rglob("*.jsonl")} == originals
    [ledger] = [p for p in (copy / "sessions").rglob("*.jsonl") if earlier in p.name]
    assert "The prod cluster is green." in ledger.read_text()


def test_a_copied_home_indexes_its_own_earlier_sessions(home: Path, project: Path,
                                                        tmp_path: Path) -> None:
    """The copy's other sessions stayed indexed from the original home while it was
    there ("a copy is not a second source"): `health` reported that home's files (their
    unread bytes, written there after the copy) and the copy never read its own."""
    _run(home, project, "trust", str(project))
    _run(home, project, "memory", "add", "--scope", "project", "The staging cluster is blue.")
    earlier = _active(home, project)
    _run(home, project, "session", "new")
    _run(home, project, "pin", "Use pnpm not npm")
    copy = tmp_path / "copy"
    shutil.copytree(home, copy, symlinks=True)
    _run(home, project, "--session", earlier[:8], "memory", "add", "--scope", "project",
         "The prod cluster is green.")  # the original home moves on
    code, report = _run(copy, project, "health")
    assert code == 0, report
    assert all(Path(s["path"]).is_relative_to(copy) and s["unreadBytes"] == 0
               for s in report["sources"]), report["sources"]
    listed = [i["text"] for i in _run(copy, project, "memory")[1]["items"]]
    assert listed == ["The staging cluster is blue."]


def _indexed_paths(home: Path) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(home / "waymarks.db")) as db:
        return {str(sid): str(path) for sid, path in db.execute(
            "SELECT session_id, path FROM sources")}


def test_a_home_reached_by_a_second_path_does_not_take_its_sessions_over(
        home: Path, project: Path, tmp_path: Path) -> None:
    """The same home at two paths (a bind mount: a container's path and the host's),
    not a copy: a read through the second path took every earlier session over from the
    first (the file there is the same file), reading each again in full, and a read
    through the first took them back: a re-index of every earlier session whenever the
    path changed. The indexed file is the same file, so it is kept."""
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no private mount namespace for a bind mount here")
    _home_with_a_session(home, project)
    earlier = {sid: path for sid, path in _indexed_paths(home).items()
               if sid != _active(home, project)}
    assert earlier and all(Path(p).is_relative_to(home) for p in earlier.values())
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    read = subprocess.run(
        ["unshare", "-rm", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"',
         "sh", str(home), str(mounted), sys.executable, "-m", "waymarks.cli.main",
         "--home", str(mounted), "--cwd", str(project), "--json", "pins"],
        cwd=project, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": ":".join(sys.path), "WAYMARKS_CLI_HELPER": "off",
             "WAYMARKS_SEMANTIC": "off"})
    assert read.returncode == 0, read.stderr
    assert [p["text"] for p in json.loads(read.stdout)["items"]] == ["Use pnpm not npm"]
    now = _indexed_paths(home)
    assert {sid: now[sid] for sid in earlier} == earlier


def test_a_copied_homes_rebuild_does_not_call_the_originals_files_unreadable(
        home: Path, project: Path, tmp_path: Path) -> None:
    """`rebuild-index` in a `cp -a` copy of a home, its database still naming the
    original's files, listed each of them under "Unreadable" ("same session ID as <the
    copy's file>; skipped"): the person was told a file of the home they copied from was
    damaged. The copy's rebuild reads its own files, and names the original's apart,
    as the home it was copied from, which keeps them."""
    _home_with_a_session(home, project)
    copy = tmp_path / "copy"
    shutil.copytree(home, copy, symlinks=True)
    code, report = _run(copy, project, "rebuild-index")
    assert code == 0 and report["unreadable"] == [], report
    assert report["mutations"] == 2 and report["sources"] == 2, report
    assert report["copiedFrom"] and all(Path(p).is_relative_to(home)
                                        for p in report["copiedFrom"]), report
    again = tmp_path / "again"  # (the copy's rebuilt database names its own files only)
    shutil.copytree(home, again, symlinks=True)
    done = run_waymarks("--home", str(again), "--cwd", str(project), "rebuild-index",
                        cwd=project)
    assert "Unreadable" not in done.stdout and "copied from" in done.stdout, done.stdout
    assert _run(copy, project, "rebuild-index")[1]["copiedFrom"] == []
