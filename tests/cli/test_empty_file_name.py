"""``import "$F"`` or ``pin --file "$F"`` with ``F`` unset said ``: cannot read it (No such
file or directory)`` (``usage``), a message that names no file and no fix. An empty or
blank name (that names no file) is refused as such, as an empty ID or ``trust ''`` is:
exit 2, ``invalid_argument``, one JSON document under ``--json``, nothing created."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


@pytest.mark.parametrize("args", [("import", ""), ("import", " "), ("pin", "--file", ""),
                                  ("import", "--dry-run", ""), ("context", "import ''")])
def test_an_empty_file_name_is_refused_as_such(home: Path, project: Path,
                                               args: tuple[str, ...]) -> None:
    env = {"WAYMARKS_HOME": str(home), "HOME": str(home.parent / "user")}
    done = waymarks("--json", *args, env=env, cwd=project)
    refused = json.loads(done.stdout)
    assert (done.returncode, refused["code"]) == (2, "invalid_argument"), refused
    assert refused["message"].startswith("the file name is "), refused
    assert "give the file to read" in refused["message"]
    assert not home.exists()  # nothing made
    plain = waymarks(*args, env=env, cwd=project)
    assert plain.returncode == 2 and plain.stderr.startswith("Refused (invalid_argument): "
                                                             "the file name is "), plain


def test_a_file_named_blank_is_still_read(home: Path, project: Path) -> None:
    (project / " ").write_text("Run the tests first.\n", encoding="utf-8")
    done = waymarks("--json", "pin", "--file", " ", env={"WAYMARKS_HOME": str(home)},
                    cwd=project)
    assert json.loads(done.stdout)["outcome"] == "committed", done.stdout
