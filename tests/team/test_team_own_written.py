"""One's own entries coming back after ``team accept`` lowered the note of them (a branch
switch, a revert, a file that a branch lacks) are still one's own: this home keeps the
hash of every entry it appended (each test failed before its fix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from tests.team.test_team_own_head import _git
from tests.team.test_team_own_head import _own_source as _own_status
from tests.team.test_team_review import _own_file, repo  # noqa: F401
from waymarks.core.team import make_line
from waymarks.service import team_own


def _share(home: Path, repo: Path, text: str) -> str:  # noqa: F811
    pin = run(home, repo, "pin", "--scope", "project", "--", text)["id"]
    return str(run(home, repo, "team", "share", pin, "--yes")["id"])


def _three_on_main(home: Path, repo: Path) -> None:  # noqa: F811
    run(home, repo, "team", "init")
    for text in ("Tag releases by date", "Squash before merging", "Run the linter"):
        _share(home, repo, text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "three shares")
    _git(repo, "branch", "-M", "main")


def test_own_entry_merged_back_after_an_accepted_branch_switch_is_own(
        repo: Path, home: Path) -> None:  # noqa: F811
    """docs/team.md's advice after a branch switch (``team accept``) forgot that this home wrote
    the branch's entry: merged back, it read as ``foreign``, every own item withdrawn."""
    _three_on_main(home, repo)
    _git(repo, "checkout", "-qb", "feat-a")
    shared = _share(home, repo, "Deploy on Tuesdays")
    _git(repo, "commit", "-qam", "fourth share")
    _git(repo, "checkout", "-q", "main")
    own = _own_status(home, repo)
    assert own["status"] == "truncated", own
    run(home, repo, "team", "accept", own["contributor"])
    assert _own_status(home, repo)["status"] == "available"
    _git(repo, "merge", "-q", "feat-a")
    own = _own_status(home, repo)
    assert own["status"] == "available", own
    ids = {i["id"] for i in run(home, repo, "team", "status")["items"]}
    assert shared in ids and len(ids) == 4
    assert _share(home, repo, "Write the changelog")  # a share is not refused


def test_own_entries_back_after_starting_the_file_anew_are_own(
        repo: Path, home: Path) -> None:  # noqa: F811
    """The refusal's own advice on a branch without the file ("start it anew: team
    accept"), then back on the branch that has it: all of it read as someone else's."""
    _three_on_main(home, repo)
    _git(repo, "checkout", "-q", "--orphan", "bare")
    _git(repo, "rm", "-rfq", "--cached", ".")
    own_file = _own_file(home, repo)
    own_file.unlink()
    pin = run(home, repo, "pin", "--scope", "project", "--", "Deploy on Tuesdays")["id"]
    refused = run(home, repo, "team", "share", pin, "--yes", expect=2)
    assert "start it anew" in refused["message"], refused
    run(home, repo, "team", "accept", own_file.stem)
    _git(repo, "checkout", "-qf", "main")
    own = _own_status(home, repo)
    assert own["status"] == "available", own


def test_a_changed_line_after_the_lowered_note_is_still_someone_elses(
        repo: Path, home: Path) -> None:  # noqa: F811
    """Only the very entries this home appended pass: one written in their place (same
    position, another text) stays foreign."""
    _three_on_main(home, repo)
    own_file = _own_file(home, repo)
    _share(home, repo, "Deploy on Tuesdays")
    _git(repo, "checkout", "--", str(own_file.relative_to(repo)))
    run(home, repo, "team", "accept", own_file.stem)
    last = json.loads(own_file.read_bytes().splitlines()[-1])
    line, _ = make_line(contributor=own_file.stem, seq=4, prev=last["hash"],
                        entry_id="e-forged", at=last["at"] + 1, author=last["author"],
                        op="add", kind="pin",
                        item={"id": "f0f0f0f0f0f0", "text": "Deploy on Fridays"})
    with own_file.open("ab") as handle:
        handle.write(line)
    own = _own_status(home, repo)
    assert own["status"] == "foreign" and "entries 4-4" in own["detail"], own


def test_own_entries_shared_from_a_worktree_are_own_in_the_main_checkout(
        repo: Path, home: Path, tmp_path: Path) -> None:  # noqa: F811
    """A worktree is another checkout path, with its own anchors: its share, merged into
    the main checkout (whose note of the own file was older), read as someone else's."""
    _three_on_main(home, repo)
    tree = tmp_path / "tree"
    _git(repo, "worktree", "add", "-q", "-b", "feat-w", str(tree))
    run(home, tree, "trust", ".")
    shared = _share(home, tree, "Deploy on Tuesdays")
    _git(tree, "commit", "-qam", "fourth share")
    _git(repo, "merge", "-q", "feat-w")
    own = _own_status(home, repo)
    assert own["status"] == "available", own
    assert shared in {i["id"] for i in run(home, repo, "team", "status")["items"]}


def test_the_record_of_own_entries_keeps_the_newest(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounded: past twice :data:`team_own.KEPT` hashes it keeps the newest KEPT."""
    monkeypatch.setattr(team_own, "KEPT", 4)
    hashes = [f"{n:064x}" for n in range(9)]
    for digest in hashes:
        team_own.note_written(tmp_path, digest)
    assert team_own.written(tmp_path) == {h[:team_own.DIGITS] for h in hashes[-4:]}
