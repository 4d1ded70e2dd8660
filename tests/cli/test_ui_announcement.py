"""``waymarks ui``'s announcement cannot drive the terminal.

Every command's text goes through ``cli.output`` (escaped), but the inspector prints its
"Waymarks inspector for PROJECT:" line itself, and wrote the project's path raw: a folder
whose name holds an OSC sequence (a subfolder of a cloned repository, say) retitled the
terminal, and one holding OSC 52 would have written the person's clipboard. The path is
escaped now (``core.text.escaped``), as ``status`` and every refusal show it.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

OSC = "\x1b]0;PWNED\x07"


def test_the_inspectors_announcement_escapes_the_projects_path(tmp_path: Path) -> None:
    project = tmp_path / f"p{OSC}\u202e"
    project.mkdir()
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"),
           "HOME": str(tmp_path / "user"), "WAYMARKS_CC_HELPER": "off"}
    server = subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "ui", "--port", "0"],
                              cwd=project, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        assert server.stdout is not None
        ready, _, _ = select.select([server.stdout], [], [], 120)
        assert ready, "the inspector announced nothing"
        first = server.stdout.readline().decode("utf-8", "surrogateescape")
    finally:
        server.terminate()  # (a SIGINT before uvicorn installs its handler is a traceback)
        server.communicate(timeout=60)
    assert first.startswith("Waymarks inspector for "), first
    assert "\x1b" not in first and "\x07" not in first and "\u202e" not in first, repr(first)
    assert "\\u001b]0;PWNED\\u0007\\u202e:" in first, first
