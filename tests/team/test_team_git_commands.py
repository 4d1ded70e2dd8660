"""The git commands Waymarks runs in a repository (blame for a team item's commit, the
index read for unmerged files, install's "git tracks this file") run no command the
repository's own ``.git/config`` names: ``core.fsmonitor`` (run by git to read the index)
and a diff driver's ``textconv`` (run by ``git blame`` by default, the driver chosen by a
``.gitattributes`` line). Install's check had the first switched off (22ce802e); every
plan's blame and the team views' index reads ran both."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from waymarks.service import team_git


def _hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    repo, ran = tmp_path / "repo", tmp_path / "ran"
    repo.mkdir()
    ran.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.name", "Dana")
    git("config", "user.email", "dana@example.com")
    (repo / "team.jsonl").write_text('{"kind": "claim"}\n')
    (repo / ".gitattributes").write_text("* diff=hostile\n")
    git("add", "-A")
    git("commit", "-qm", "team")
    git("config", "diff.hostile.textconv", f"sh -c 'touch {ran}/textconv; cat \"$0\"'")
    git("config", "core.fsmonitor", f"sh -c 'touch {ran}/fsmonitor'")
    return repo, ran


def test_no_command_a_repositorys_git_config_names_runs(tmp_path: Path) -> None:
    repo, ran = _hostile_repo(tmp_path)
    path = repo / "team.jsonl"
    stat = path.stat()
    commits = team_git.line_commits(path, stat.st_size, stat.st_mtime_ns)
    assert commits, "blame gave no answer"  # (it ran, and answered)
    assert team_git.unmerged(repo) == []
    assert team_git.tracked(repo, "team.jsonl")
    assert team_git.ignored_by(repo, "team.jsonl") is None
    assert team_git.trouble(repo) is None
    assert sorted(p.name for p in ran.iterdir()) == []


def test_a_repository_named_by_the_environment_is_not_the_one_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent started from a git hook (or a shell in `git rebase -x`) inherits
    ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE`` naming that other repository:
    every call here names its own, by its working directory, and followed them instead (a
    project shared its team items as the other repository's user, blamed the other's
    files, and a folder outside any repository passed for one)."""
    mine, _ran = _hostile_repo(tmp_path)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for args in (["init", "-q"], ["config", "user.name", "Eve"],
                 ["config", "user.email", "eve@example.com"]):
        subprocess.run(["git", *args], cwd=theirs, check=True, capture_output=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("GIT_DIR", str(theirs / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(theirs))
    monkeypatch.setenv("GIT_INDEX_FILE", str(theirs / ".git" / "index"))
    assert team_git.user_name(mine) == "Dana"
    assert team_git.tracked(mine, "team.jsonl")
    path = mine / "team.jsonl"
    stat = path.stat()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=mine, capture_output=True,
                          text=True, check=True, env={"PATH": os.environ["PATH"]}).stdout
    commits = team_git.line_commits(path, stat.st_size, stat.st_mtime_ns)
    assert commits and all(head.startswith(c) for c in commits.values()), commits
    assert not team_git.is_repository(outside)
