"""What a write says when its ledger line is durable but the projection cannot be updated
(a full disk): docs/storage.md says it is committed with a warning, and how `--json` tells it
apart. The line is the record, so the item is there once the projection catches up, and
a retry is its duplicate. Real files, real SQLite, the real CLI; only the database's
answer to the sync after the append is the failure of a full disk."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.ledger.log import SessionLog
from waymarks.store.projection import Projection


def _run(home: Path, project: Path, *args: str) -> tuple[int, Any]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    return done.returncode, json.loads(done.stdout)


def test_a_write_the_projection_missed_is_committed_with_a_warning(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(home, project, "pin", "--", "Use pnpm not npm")[1]["warning"] is None
    appended = {"pending": False}
    real_append, real_sync = SessionLog.append, Projection.sync

    def append(self: SessionLog, *args: Any, **kwargs: Any) -> Any:
        entry = real_append(self, *args, **kwargs)
        appended["pending"] = True
        return entry

    def sync(self: Projection, *args: Any, **kwargs: Any) -> Any:
        if appended["pending"]:  # the sync right after the append, once
            appended["pending"] = False
            raise sqlite3.OperationalError("database or disk is full")
        return real_sync(self, *args, **kwargs)

    monkeypatch.setattr(SessionLog, "append", append)
    monkeypatch.setattr(Projection, "sync", sync)
    code, written = _run(home, project, "pin", "--", "Never push to main")
    monkeypatch.undo()
    assert code == 0 and written["outcome"] == "committed"
    assert written["warning"] == "projection not updated yet: database or disk is full"
    pins = {i["id"]: i["text"] for i in _run(home, project, "pins")[1]["items"]}
    assert pins[written["id"]] == "Never push to main"
    code, retried = _run(home, project, "pin", "--", "Never push to main")
    assert (code, retried["outcome"], retried["id"]) == (0, "duplicate", written["id"])
