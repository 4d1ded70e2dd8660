"""``memory show`` shows a claim's CR, U+2028 and NEL as the escapes every view shows.

Its text was split with ``str.splitlines()``, which breaks lines at CR, U+2028, U+2029,
NEL (U+0085) and the file, group and record separators too: each of those characters
disappeared into a line break, so a stored ``\\r`` (which ``pins``, ``memory`` and
``--json`` show) read in ``memory show`` as a new line of the claim. Only ``\\n`` breaks
the text's lines now; every other character goes through ``cell`` (escaped).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import Ran, waymarks

STORED = "first\rsecond\u2028third\x85fourth\x1eend\nnext line"


def _cli(tmp_path: Path, project: Path, *args: str) -> Ran:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(tmp_path / "home"),
                                "HOME": str(tmp_path / "user")}, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_memory_show_breaks_lines_at_newlines_only(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    added = json.loads(_cli(tmp_path, project, "--json", "memory", "add", "--", STORED).stdout)
    shown = json.loads(_cli(tmp_path, project, "--json", "memory", "show", added["id"]).stdout)
    assert shown["item"]["text"] == STORED  # JSON: the stored text exactly
    text = _cli(tmp_path, project, "memory", "show", added["id"]).stdout
    body = text.split("Text:\n", 1)[1].splitlines()
    assert body == ["  first\\rsecond\\u2028third\\u0085fourth\\u001eend", "  next line"], text
