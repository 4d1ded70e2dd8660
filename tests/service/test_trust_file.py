"""The trust list is read only from a regular file: a FIFO in its place hung every command
that asks which projects are trusted (``evolution status`` among them) for ever. A real
home, the real entry point in a new process (what must not hang is the process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import ServiceError
from waymarks.service.trust import TRUST_FILE

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_fifo_in_the_trust_lists_place_is_refused_not_waited_on(home: Path,
                                                                  project: Path) -> None:
    home.mkdir()
    os.mkfifo(home / TRUST_FILE)
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json",
         "evolution", "status"], cwd=project, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])})
    assert done.returncode == 1, done.stdout + done.stderr
    refused = json.loads(done.stdout)
    assert refused["code"] == "bad_trust_file"
    assert refused["message"] == (f"{home / TRUST_FILE}: unreadable trust list (it is a "
                                  "FIFO, not a regular file; not read); fix or remove it")
    assert (home / TRUST_FILE).is_fifo()  # left as it was


def test_a_trust_list_that_is_a_link_that_loops_is_refused_not_read_as_empty(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    """A trust list replaced by a link that loops (or whose target is gone: a dotfiles
    folder not mounted) was read as no list at all: every trusted project silently
    untrusted, its project pins no longer applied, and ``health`` said OK. It is the
    unreadable trust list it is, named with the fix, as a FIFO there is."""
    app = make_app()
    app.trust(str(project))
    (home / TRUST_FILE).unlink()
    (home / TRUST_FILE).symlink_to(TRUST_FILE)  # a link to itself
    fresh = make_app()
    with pytest.raises(ServiceError) as refused:
        fresh.trusted_projects()
    assert refused.value.code == "bad_trust_file"
    assert "unreadable trust list (Too many levels of symbolic links)" in str(refused.value)
    assert (home / TRUST_FILE).is_symlink()  # left as it was
