"""A write the file system stops (here a file-size limit: the disk is full for the ledger)
is a ``ServiceError`` with the command line's ``io_error`` code and words, not a raw
``OSError`` (the Python API review); nothing is acknowledged, and the next write, once
there is room, goes through."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import glob, os, resource, signal, sys
from waymarks import Waymarks
from waymarks.service.outcomes import ServiceError

home, project = sys.argv[1], sys.argv[2]
app = Waymarks(home, cwd=project)
app.remember("The database port is 5433.")
app.session_say("x" * 200_000)  # the ledger, not the database, meets the limit first
[ledger] = glob.glob(home + "/sessions/*/*.jsonl")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
unlimited = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(ledger) + 20, unlimited[1]))
for name, write in [("remember", lambda: app.remember("The cache port is 6379.")),
                    ("say", lambda: app.session_say("y" * 100)),
                    ("record", lambda: app.append_record("example-note-v1", {"n": "z" * 99}))]:
    try:
        print(name, "returned", write())
    except ServiceError as exc:
        print(name, "ServiceError", exc.code, exc)
    except OSError as exc:
        print(name, "raw", type(exc).__name__)
resource.setrlimit(resource.RLIMIT_FSIZE, unlimited)
print("after", [view.text for view in app.items("memory")],
      type(app.remember("The cache port is 6379.")).__name__)
"""


def test_a_write_the_disk_cannot_take_is_an_io_error_not_a_raw_oserror(
        tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"),
           "WAYMARKS_SEMANTIC": "off", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "home"),
                           str(project)], env=env, capture_output=True, text=True,
                          check=False, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in ("remember", "say", "record"):
        [said] = [line for line in lines if line.startswith(name + " ")]
        assert said.startswith(f"{name} ServiceError io_error File too large ("), said
        assert "nothing was acknowledged" in said
    assert lines[-1] == "after ['The database port is 5433.'] Committed"
