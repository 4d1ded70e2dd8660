"""A reader that left (``| head -0``, ``| true``) never turns a refusal into success.

The entry point answered ``BrokenPipeError`` with exit 0 ("the reader left; not an error
of ours"), whatever the command had decided: ``waymarks unpin NOPE | true`` and a refused
project pin exited 0 under ``pipefail``, as if done. The runner now takes the broken pipe
where it writes the result (or the error document), quietly, and keeps the command's
own exit status: 2 refused, 0 done.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _reader_gone(tmp_path: Path, project: Path, *args: str) -> tuple[int, str]:
    """Run ``waymarks ARGS`` with standard output a pipe nobody reads any more."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"),
           "HOME": str(tmp_path / "user"), "WAYMARKS_CLI_HELPER": "off"}
    try:
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=project,
                              env=env, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              check=False, timeout=120)
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


@pytest.mark.parametrize(("args", "status"), [
    (("unpin", "nope"), 2),
    (("--json", "memory", "show", "nope"), 2),
    (("pin", "--scope", "project", "--", "Use uv"), 2),
    (("--json", "pins", "--since", "bogus"), 2),
    (("pins",), 0),
])
def test_the_exit_status_stands_when_the_reader_has_left(tmp_path: Path, args: tuple[str, ...],
                                                         status: int) -> None:
    project = tmp_path / "project"
    project.mkdir()
    code, errors = _reader_gone(tmp_path, project, *args)
    assert code == status, errors
    assert "Traceback" not in errors and "Broken pipe" not in errors, errors
