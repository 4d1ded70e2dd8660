"""A home moved to another path (``mv``, or ``cp -a`` to a new machine and the old one
removed) kept its active session indexed at the old path until the next write: reads
found the file where it is now, but ``health`` said the active session's ledger was
missing (exit 1, "run `waymarks rebuild-index`") for a home with nothing wrong with it,
and with the old home still there, it inspected that home's file instead of this one's.
A read re-points the active session to where it is read from, as a write did. Real
files, real SQLite, the real CLI."""

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
