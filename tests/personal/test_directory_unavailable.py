"""A personal directory that cannot be used (a file where it should be, a link to
nothing: a drive not mounted) is the environment's problem, not the request's: ``personal
save``, ``forget`` and ``index`` refused it with exit 2, ``invalid_argument`` (docs/cli.md:
2 is a refused request, 1 an environment problem), and ``personal show SLUG`` said "no
personal entry" while every entry was out of reach. Each says what is wrong and its fix
now, exit 1, ``"outcome": "error"``, code ``unavailable`` (what the ``remember`` tool
answers), and nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


def _run(home: Path, project: Path, *args: str) -> tuple[int, dict]:
    done = waymarks("--json", *args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("broken", ["file", "dangling-link"])
def test_an_unusable_personal_directory_is_an_environment_error(home: Path, project: Path,
                                                                tmp_path: Path,
                                                                broken: str) -> None:
    memory = home / "memory"
    home.mkdir(exist_ok=True)
    if broken == "file":
        memory.write_text("not a folder\n")
        said = "is not a directory"
    else:
        memory.symlink_to(tmp_path / "unmounted-drive" / "memory")
        said = "a link to nothing"
    for args in (("personal", "save", "--", "I use vim."), ("personal", "forget", "vim"),
                 ("personal", "index"), ("personal", "show", "vim")):
        status, shown = _run(home, project, *args)
        assert (status, shown["outcome"], shown["code"]) == (1, "error", "unavailable"), (
            args, shown)
        assert said in shown["message"] and "[personal] directory" in shown["message"], (
            args, shown)
    assert memory.is_symlink() or memory.read_text() == "not a folder\n"
    assert not (tmp_path / "unmounted-drive").exists()
    listed = waymarks("personal", "show", "vim", env={"WAYMARKS_HOME": str(home)},
                      cwd=project)
    assert listed.returncode == 1 and listed.stdout == "" and said in listed.stderr
