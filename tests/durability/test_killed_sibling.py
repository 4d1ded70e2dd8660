"""A sibling session's writer killed after its entry reached the ledger and before its
projection committed: the next write, in another session of the trusted project, decided
without that entry, was reported ``committed``, and lost to it on the next read (its claim
``invalid``, also after a rebuild). Writes fold what sibling sessions appended first now,
so the contradiction is refused with the sibling's ID, as it is when nobody was killed.

The kill is stood in for deterministically: the database is put back as it was before
the sibling's write (what a writer killed before its commit leaves), its entry kept.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks


def _json(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_write_sees_an_entry_whose_writer_died_before_projecting_it(
        home: Path, project: Path, tmp_path: Path) -> None:
    _json(home, project, "trust", ".")
    _json(home, project, "session", "new")
    _json(home, project, "pin", "--", "Pin one.")
    sibling = next((home / "sessions").glob("*/*.jsonl"))
    time.sleep(1.1)  # the next session is the newer one
    _json(home, project, "session", "new")
    _json(home, project, "pins")
    saved = tmp_path / "before.db"
    shutil.copy(home / "waymarks.db", saved)
    first = _json(home, project, "--session", str(sibling), "memory", "add", "--scope",
                  "project", "--key", "queuehost", "--", "The queue host is rabbit1.")
    for leftover in ("waymarks.db-wal", "waymarks.db-shm"):
        (home / leftover).unlink(missing_ok=True)
    shutil.copy(saved, home / "waymarks.db")  # its projection never committed
    second = _json(home, project, "memory", "add", "--scope", "project", "--key",
                   "queuehost", "--", "The queue host is rabbit2.", expect=2)
    assert second["code"] == "conflict" and second["conflicts"] == [first["id"]]
    listed = _json(home, project, "memory")["items"]
    assert [(i["text"], i["status"]) for i in listed] == [("The queue host is rabbit1.",
                                                           "active")]
