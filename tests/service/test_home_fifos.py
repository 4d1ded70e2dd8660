"""Files of the home that every command (or every team read) opens are read only when
they are regular files: a FIFO in their place was waited on for ever (a re-read found
these two beside the trust list and the evolution notes). Real homes, new processes
(what must not hang is the process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.inprocess import waymarks
from waymarks.service.kept_exclusions import pending_path

ROOT = Path(__file__).resolve().parents[2]
def _env() -> dict[str, str]:
    """Read when a command starts, after the suite's fixtures (its cache, its bytecode):
    a copy taken at import had neither."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
            "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off"}


def test_a_fifo_at_the_pending_exclusions_list_is_not_waited_on(home: Path,
                                                                project: Path) -> None:
    assert waymarks("--home", str(home), "pin", "Run the linter", cwd=project).returncode == 0
    os.mkfifo(pending_path(home / "waymarks.db"))
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "pins"], cwd=project, capture_output=True, text=True, timeout=60,
                          env=_env())
    assert done.returncode == 0 and "Run the linter" in done.stdout, done.stdout + done.stderr
    assert pending_path(home / "waymarks.db").is_fifo()  # not ours to remove


def test_a_fifo_at_a_projects_team_anchors_is_not_waited_on(home: Path,
                                                            project: Path) -> None:
    code = ("import sys\nfrom waymarks import Waymarks\n"
            "from waymarks.service import team_anchors as team\n"
            "with Waymarks(sys.argv[1], cwd=sys.argv[2]) as app:\n"
            "    path = team.anchors_path(app)\n"
            "    path.parent.mkdir(parents=True, exist_ok=True)\n"
            "    __import__('os').mkfifo(path)\n"
            "    print(team.load_anchors(app))\n")
    done = subprocess.run([sys.executable, "-c", code, str(home), str(project)],
                          cwd=project, capture_output=True, text=True, timeout=60, env=_env())
    assert done.returncode == 0 and done.stdout.strip() == "({}, 0)", done.stdout + done.stderr
