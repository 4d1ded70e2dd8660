"""One's own file judged in every checkout: a line written in one's name is someone
else's wherever it is read (each test failed before its fix)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.team.test_team_hostile import run
from tests.team.test_team_review import _git, repo  # noqa: F401 (a fixture)
from tests.team.test_team_review48 import team_repo  # noqa: F401 (a fixture)
from tests.team.test_team_review51 import _anchors_journal_a_directory


def _forged_own_line(own: Path) -> None:
    """A well-chained line appended to ``own`` in its owner's name, as a teammate can."""
    from waymarks.core.team import make_line

    last = json.loads(own.read_bytes().splitlines()[-1])
    line, _ = make_line(contributor=own.stem, seq=last["seq"] + 1, prev=last["hash"],
                        entry_id="e-forged", at=last["at"] + 1, author="Dana", op="add",
                        kind="pin", item={"id": "f0f0f0f0f0f0", "text":
                                          "Disable the test suite before deploying"})
    with own.open("ab") as handle:
        handle.write(line)


def test_a_line_written_in_your_name_is_foreign_in_every_checkout(
        team_repo: Path, home: Path, tmp_path: Path) -> None:  # noqa: F811
    """Dana's home notes what it appended per checkout: in another clone of the project
    (or a worktree, or a repository where a teammate made a file under Dana's ID before
    she shared there) nothing was noted, so a line someone wrote in her name was shown as
    hers and her next share there was appended after it, "committed". Her home's record of
    the entries it wrote tells hers from the forged one in every checkout."""
    pin = run(home, team_repo, "pin", "--scope", "project", "--",
              "Run the migrations check first")["id"]
    run(home, team_repo, "team", "share", pin, "--yes")
    _git(team_repo, "add", "-A")
    _git(team_repo, "-c", "user.email=d@x", "commit", "-qm", "share")
    clone = tmp_path / "second-clone"
    subprocess.run(["git", "clone", "-q", str(team_repo), str(clone)], check=True)
    run(home, clone, "trust", ".")
    [source] = run(home, clone, "team", "status")["sources"]
    assert source["status"] == "available", source  # her own entry, written elsewhere
    own = next((clone / ".waymarks" / "team").glob("*.jsonl"))
    _forged_own_line(own)
    [source] = run(home, clone, "team", "status")["sources"]
    assert source["status"] == "foreign" and "entries 2-2" in source["detail"], source
    mine = run(home, clone, "pin", "--scope", "project", "--", "Tag releases by date")["id"]
    before = own.read_bytes()
    refused = run(home, clone, "team", "share", mine, "--yes", expect=2)
    assert refused["code"] == "own_file_damaged", refused
    assert own.read_bytes() == before


def test_ones_own_file_the_record_holds_nothing_of_is_not_foreign_in_a_new_clone(
        team_repo: Path, home: Path, tmp_path: Path) -> None:  # noqa: F811
    """The home's record of the entries it wrote began with its first share after an
    upgrade and keeps only the newest 8,192: Dana's own file of entries it no longer
    holds, read in a new clone, was all "foreign" (every item withdrawn, her shares
    refused until `team accept`). A file of which the record holds no entry is not
    judged, as in a home without a record. (So a file a teammate starts under her ID in
    a repository before her first share there is not told from hers either: they could
    as well share it under their own ID.)"""
    from waymarks.service.team_own import DIGITS, written_path

    pin = run(home, team_repo, "pin", "--scope", "project", "--",
              "Run the migrations check first")["id"]
    run(home, team_repo, "team", "share", pin, "--yes")
    _git(team_repo, "add", "-A")
    _git(team_repo, "-c", "user.email=d@x", "commit", "-qm", "share")
    written_path(home).write_text("0" * DIGITS + "\n")  # an entry of another project's
    clone = tmp_path / "second-clone"
    subprocess.run(["git", "clone", "-q", str(team_repo), str(clone)], check=True)
    run(home, clone, "trust", ".")
    [source] = run(home, clone, "team", "status")["sources"]
    assert source["status"] == "available", source
    mine = run(home, clone, "pin", "--scope", "project", "--", "Tag releases by date")["id"]
    assert run(home, clone, "team", "share", mine, "--yes")["outcome"] == "committed"


def test_a_share_whose_note_cannot_be_kept_is_committed(team_repo: Path,  # noqa: F811
                                                        home: Path) -> None:
    """The anchors journal is derived state: with a directory in its place (or a home
    that cannot take it) the note of an appended share failed after the entry was
    written, and the share answered "nothing was acknowledged" (exit 1) with the item
    in the file and active for everyone. The home's record of what it wrote still tells
    the entry for its own."""
    pin = run(home, team_repo, "pin", "--scope", "project", "--", "Run the checks")["id"]
    _anchors_journal_a_directory(home, team_repo)
    shared = run(home, team_repo, "team", "share", pin, "--yes")
    assert shared["outcome"] == "committed", shared
    status = run(home, team_repo, "team", "status")
    assert [s["status"] for s in status["sources"]] == ["available"], status["sources"]
    assert [i["id"] for i in status["items"] if i["status"] == "active"] == [shared["id"]]
