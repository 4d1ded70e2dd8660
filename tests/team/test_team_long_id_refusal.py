"""Unsharing or replacing a teammate's item whose ID is near the team ledger's line limit
makes a line the readers would refuse: that refusal (``too_long``) must come before the
person is asked to confirm, as every other refusal of the write does. It came after: the
person confirmed, then was told no."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from waymarks.core.team import genesis, make_line
from waymarks.ledger.team import MAX_LINE_BYTES
from waymarks.service import team

TEAMMATE = "bob-00000001"
PREFIX = "longid-"


@pytest.fixture(params=["own ID", "no ID yet"])
def repo(project: Path, home: Path, request: pytest.FixtureRequest) -> Path:
    """A trusted repository with a team ledger: made here (this home has its contributor
    ID), or by the teammate (this home makes one on its first write)."""
    team.forget_process_state()
    subprocess.run(["git", "-C", str(project), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(project), "config", "user.name", "Dana"], check=True)
    run(home, project, "trust", ".")
    if request.param == "own ID":
        run(home, project, "team", "init")
    else:
        (project / ".waymarks" / "team").mkdir(parents=True)
    return project


def _line(item_id: str) -> bytes:
    return make_line(contributor=TEAMMATE, seq=1, prev=genesis(TEAMMATE), entry_id="e1",
                     at=1_000, author="Bob", op="add", kind="pin",
                     item={"id": item_id, "text": "Use tabs"})[0]


def _teammate_pin_near_the_limit(repo: Path) -> Path:
    """Bob's pin whose ID leaves his line 40 bytes short of the limit (it reads fine)."""
    short = _line(PREFIX)
    item_id = PREFIX + "x" * (MAX_LINE_BYTES - 40 - (len(short) - 1))
    line = _line(item_id)
    assert len(line) - 1 == MAX_LINE_BYTES - 40
    path = repo / ".waymarks" / "team" / f"{TEAMMATE}.jsonl"
    path.write_bytes(line)
    return path


@pytest.mark.parametrize("args", [
    ["unshare", PREFIX, "--", "superseded by the style guide in docs/style.md"],
    ["supersede", PREFIX, "--", "Use four spaces, never tabs, in every Python file"],
])
def test_a_line_too_long_is_refused_before_the_question(repo: Path, home: Path,
                                                        args: list[str]) -> None:
    theirs = _teammate_pin_near_the_limit(repo)
    assert [i["status"] for i in run(home, repo, "team", "status")["items"]] == ["active"]
    team_dir = repo / ".waymarks" / "team"
    before = sorted(p.name for p in team_dir.iterdir())
    was_made = (home / "team" / "contributor.json").exists()
    # without --yes and with no terminal to ask at: the refusal, not "confirm with --yes"
    refused = run(home, repo, "team", *args, expect=2)
    assert refused["code"] == "too_long", refused
    confirmed = run(home, repo, "team", args[0], "--yes", *args[1:], expect=2)
    assert confirmed["code"] == "too_long", confirmed
    assert sorted(p.name for p in team_dir.iterdir()) == before  # no own file made
    assert (home / "team" / "contributor.json").exists() == was_made  # nor an ID for one
    assert len(theirs.read_bytes()) - 1 == MAX_LINE_BYTES - 40


def test_a_line_that_fits_is_still_asked_about(repo: Path, home: Path) -> None:
    """The dry run measures the line the write would make, no more: a teammate's short
    ID is asked about as before."""
    path = repo / ".waymarks" / "team" / f"{TEAMMATE}.jsonl"
    path.write_bytes(_line(PREFIX + "short"))
    asked = run(home, repo, "team", "unshare", PREFIX, expect=2)
    assert asked["code"] == "confirmation_required", asked
    assert run(home, repo, "team", "unshare", PREFIX, "--yes")["outcome"] == "committed"
