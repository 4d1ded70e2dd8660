"""A session file whose parents form a cycle (a hostile or broken file: entries are
written after their parents) must not make any walk of the branch run forever: in a
reader that read the whole file, in one resumed at its checkpoint (entries after it), or
in the store's entry index (entries before it). A parent that is not earlier in the file
ends the branch there; a resumed process answers what a full read answers.

Each step runs in its own process with a deadline: the code before looped for ever."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.ledger.session_file import SessionFile

TS = "2026-01-01T00:00:00.000Z"

STEP = """
import json, sys
from pathlib import Path
from waymarks.service.app import Waymarks
home, project, action = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
with Waymarks(home, cwd=project) as app:
    if action == "rebuild":
        app.rebuild_index()
    elif action.startswith("pin:"):
        print(type(app.pin(action[4:])).__name__, file=sys.stderr)
    pins = sorted(v.to_json()["text"] for v in app.items("pin"))
    session = app.current_session()
    branch = sorted(session.branch_set()) if session else []
print(json.dumps({"pins": pins, "branch": branch}))
"""


def step(home: Path, project: Path, action: str) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", STEP, str(home), str(project), action],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "WAYMARKS_SEMANTIC": "off"}, check=True)
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def cycle(path: Path, *pairs: tuple[str, str]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for entry_id, parent in pairs:
            handle.write(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                     "timestamp": TS}) + "\n")


@pytest.mark.slow
def test_a_cycle_after_and_before_the_checkpoint_ends_the_branch(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    step(home, project, "pin:Use tabs")
    (path,) = (home / "sessions").rglob("*.jsonl")
    cycle(path, ("aaaa1111", "bbbb2222"), ("bbbb2222", "aaaa1111"))  # after the checkpoint
    after = step(home, project, "list")
    # the cycle is before the checkpoint now: the new pin's parent is bbbb, and whether the
    # first pin is on the branch is asked of the store's entry index
    written = step(home, project, "pin:Second pin")
    assert written == step(home, project, "rebuild")
    cycle(path, ("cccc3333", "cccc3333"))  # its own parent
    alone = step(home, project, "list")
    assert alone == step(home, project, "rebuild")
    assert after["branch"] == ["aaaa1111", "bbbb2222"]  # bbbb's parent is earlier; aaaa's not
    assert "Second pin" in written["pins"]
    assert len(written["branch"]) == 3 and alone["branch"] == ["cccc3333"]
    full = SessionFile.open(path)  # a reader of the whole file agrees
    assert sorted(full.branch_set()) == full.branch_ids() == ["cccc3333"]
