"""A password's state or quality after "the password is", in a word no adjective's suffix
tells (``core/secret_deny.py``, ``PROSE_WORDS``): "The password is stale." and "The
password is obsolete." went out redacted, and ``waymarks memory add`` refused them as a
credential (exit 2). A password stated in a plain word still goes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.privacy.digests import stated_tests

test_a_plain_word_password_is_redacted, test_a_state_word_stays = stated_tests([
    ("The admin password is opensesame.", "opensesame"),
    ("the kiosk password is marmalade", "marmalade"),
], [
    "The password is stale.",
    "The password is obsolete.",
    "the wifi password is dead, ask for a new one",
    "The password was fake.",
    "the old password is void now",
    "The password is alphanumeric.",
    "The password is lowercase only.",
    "The service password is legacy and will be removed.",
])


@pytest.mark.parametrize("text", ["The password is stale.", "The password is obsolete."])
def test_memory_add_keeps_it(tmp_path: Path, text: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "WAYMARKS_HOME": str(tmp_path / "home"),
           "WAYMARKS_SEMANTIC": "off"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=project,
                              env=env, capture_output=True, text=True, check=False)

    assert cli("trust", ".").returncode == 0
    done = cli("memory", "add", "--scope", "project", "--", text)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "credential" not in done.stdout + done.stderr
