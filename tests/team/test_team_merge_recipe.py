"""docs/team.md's recipe for one's own team file conflicting in a merge (each test failed
before its fix)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.documentation import documentation
from tests.team.test_team_hostile import run
from tests.team.test_team_review import _own_file, repo  # noqa: F401
from waymarks.service import team


def _git(repo: Path, *args: str, check: bool = True) -> str:  # noqa: F811
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=d@x", *args],
                          check=check, capture_output=True, text=True).stdout


def _active(home: Path, repo: Path) -> set[str]:  # noqa: F811
    team.forget_process_state()
    return {i["id"] for i in run(home, repo, "team", "status")["items"]
            if i["status"] == "active"}


def test_keeping_ones_side_of_a_conflict_redoes_the_other_sides_unshares(
        repo: Path, home: Path) -> None:  # noqa: F811
    """The recipe said to keep one's side and share again what the other branch shared:
    an item the other branch unshared came back for everyone. README now says to redo
    its unshares and supersedes too, listed with ``git show``; done so, the item stays
    withdrawn."""
    recipe = " ".join(documentation().split())
    start = recipe.index("If the merge conflicts: keep your side")
    said = recipe[start:start + 1200]
    assert "git show feat-x:.waymarks/team/<file>" in said, said
    assert "waymarks team unshare" in said and "waymarks team supersede" in said, said

    run(home, repo, "team", "init")
    ids = []
    for text in ("Tag releases by date", "Squash before merging"):
        pin = run(home, repo, "pin", "--scope", "project", "--", text)["id"]
        ids.append(run(home, repo, "team", "share", pin, "--yes")["id"])
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "two shares")
    _git(repo, "branch", "-M", "main")
    own = _own_file(home, repo)
    relative = str(own.relative_to(repo))
    _git(repo, "checkout", "-qb", "feat-x")
    run(home, repo, "team", "unshare", ids[0], "--yes")
    _git(repo, "commit", "-qam", "unshare")
    _git(repo, "checkout", "-q", "main")
    run(home, repo, "team", "accept", own.stem)
    pin = run(home, repo, "pin", "--scope", "project", "--", "Run the linter")["id"]
    run(home, repo, "team", "share", pin, "--yes")
    _git(repo, "commit", "-qam", "another share")
    _git(repo, "merge", "-q", "feat-x", check=False)
    assert "UU" in _git(repo, "status", "--porcelain", "--", relative)  # conflicted
    _git(repo, "checkout", "--ours", "--", relative)
    _git(repo, "add", relative)
    _git(repo, "commit", "-qm", "merge feat-x")
    assert ids[0] in _active(home, repo)  # what keeping one side alone does

    ours = set(own.read_text().splitlines())
    theirs = [json.loads(line) for line in _git(repo, "show", f"feat-x:{relative}")
              .splitlines() if line not in ours]
    assert [e["op"] for e in theirs] == ["status"], theirs
    for entry in theirs:
        assert re.fullmatch(r"[0-9a-f]+", entry["targetId"])
        run(home, repo, "team", "unshare", entry["targetId"], "--yes")
    assert ids[0] not in _active(home, repo) and ids[1] in _active(home, repo)
