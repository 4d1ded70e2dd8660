"""Team writes that were reported as done, or refused only after the person confirmed:
each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from tests.team.test_team_review import _own_file, _shared_pin, repo  # noqa: F401


def _project_pin(home: Path, repo: Path, text: str) -> str:  # noqa: F811
    return str(run(home, repo, "pin", "--scope", "project", "--", text)["id"])


# -- every refusal comes before the question ------------------------------------------------


@pytest.mark.parametrize("yes", [False, True])
def test_an_own_file_ending_mid_line_is_refused_before_the_question(
        repo: Path, home: Path, yes: bool) -> None:  # noqa: F811
    """The own file read ``available`` (a partial last line is left for the next read),
    so the rehearsal passed and the person was asked; only the append, after their yes,
    found the incomplete line."""
    _shared_pin(home, repo)
    own = _own_file(home, repo)
    with own.open("ab") as handle:
        handle.write(b'{"partial')
    before = own.read_bytes()
    pin = _project_pin(home, repo, "Squash commits before merging")
    refused = run(home, repo, "team", "share", pin, *(["--yes"] if yes else []), expect=2)
    assert refused["code"] == "own_file_damaged", refused
    assert "incomplete line" in refused["message"]
    assert own.read_bytes() == before


@pytest.mark.parametrize("yes", [False, True])
def test_a_linked_team_directory_is_refused_before_the_question_and_named(
        repo: Path, home: Path, tmp_path: Path, yes: bool) -> None:  # noqa: F811
    """A ``.waymarks/team`` that is a symbolic link: asked first, then refused as
    ``own_file_damaged`` (the own file is fine: the directory is linked)."""
    team_id = _shared_pin(home, repo)
    directory = repo / ".waymarks" / "team"
    elsewhere = tmp_path / "elsewhere"
    directory.rename(elsewhere)
    directory.symlink_to(elsewhere)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    pin = _project_pin(home, repo, "Squash commits before merging")
    flag = ["--yes"] if yes else []
    for args in (["share", pin], ["unshare", team_id], ["supersede", team_id, "--",
                                                         "Run the checks first"]):
        refused = run(home, repo, "team", *args[:2], *flag, *args[2:], expect=2)
        assert refused["code"] == "linked_team_directory", (args, refused)
        assert "symbolic link" in refused["message"]
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before
