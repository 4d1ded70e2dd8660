"""A hook run as root (``sudo -E claude``, a root shell keeping the person's ``HOME``) on a
home that belongs to another user wrote its session file, database, lock files and log
there as root, mode 0600: that user's own hooks could then open none of them, every
prompt after. It changes nothing there now, and says why with the way out."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import isolated_python
from tests.hosts.test_cc_helper_stalled import ENTRY, _payload
from tests.hosts.test_cc_review_hooks import _environ

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chown)")
NOBODY = 65534


@pytest.mark.parametrize("made", [True, False], ids=["home", "home-not-made-yet"])
def test_a_root_hook_on_another_users_home_changes_nothing_there(
        tmp_path: Path, project: Path, made: bool) -> None:
    theirs = tmp_path / "alice"
    theirs.mkdir()
    home = theirs / "waymarks"
    if made:
        home.mkdir()
    for path in (theirs, home):
        if path.exists():
            os.chown(path, NOBODY, NOBODY)
    sid = str(uuid.uuid4())
    for event in ("SessionStart", "UserPromptSubmit"):
        done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(home),
                               "hook", "claude-code", event],
                              input=json.dumps(_payload(sid, project, event)), text=True,
                              capture_output=True, timeout=120,
                              env=_environ(subagent=False, WAYMARKS_CC_HELPER="on"))
        assert done.returncode == 1, done.stderr  # (never 2: that blocks the prompt)
        assert f"user {NOBODY}'s" in done.stderr and "as root" in done.stderr
        assert done.stdout == ""
    assert [p for p in theirs.rglob("*")] == ([home] if made else [])


def test_a_root_hook_on_roots_own_home_still_works(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "root-home"
    sid = str(uuid.uuid4())
    done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(home),
                           "hook", "claude-code", "SessionStart"],
                          input=json.dumps(_payload(sid, project, "SessionStart")), text=True,
                          capture_output=True, timeout=120,
                          env=_environ(subagent=False, WAYMARKS_CC_HELPER="off"))
    assert done.returncode == 0, done.stderr
    assert list(home.glob("sessions/*/*.jsonl"))  # (its session file, as before)
