"""`waymarks pin list` (for `waymarks pins`) pinned the word "list", exit 0, nothing said."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _waymarks(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WAYMARKS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("word", ["list", "LS", "show"])
def test_a_listing_word_as_the_whole_pin_is_refused_and_nothing_is_pinned(
        tmp_path: Path, word: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    refused = _waymarks(home, project, "pin", word)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "use `pins`" in refused.stderr and repr(word) in refused.stderr
    listed = _waymarks(home, project, "--json", "pins")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["items"] == []


def test_a_sentence_with_a_listing_word_is_pinned(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    done = _waymarks(home, project, "--json", "pin", "list", "the", "changes", "first")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "committed"
