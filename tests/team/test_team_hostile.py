"""A hostile teammate or repository against team memory, through the real CLI: every
refusal is a clear ``--json`` error that changes nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.team.test_team_source import Writer
from waymarks.service import team


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


@pytest.fixture
def repo(project: Path) -> Path:
    team.forget_process_state()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "Dana")
    return project


def run(home: Path, project: Path, *args: str, expect: int = 0,
        env: dict[str, str] | None = None) -> dict:
    done = waymarks("--home", str(home), "--json", *args, cwd=project, env=env)
    assert done.returncode == expect, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def test_excluding_in_an_untrusted_project_says_it_is_untrusted(repo: Path, home: Path
                                                                ) -> None:
    """The contributor's file is there; the refusal must name the real reason (trust),
    not claim the contributor does not exist."""
    (repo / ".waymarks" / "team").mkdir(parents=True)
    Writer(repo / ".waymarks" / "team", "bob-00000001", "Bob").add("Use tabs")
    for verb in ("exclude", "include", "accept"):
        refused = run(home, repo, "team", verb, "bob-00000001", expect=2)
        assert refused["code"] == "untrusted", refused
        assert "waymarks trust ." in refused["message"]
    assert not list(home.glob("team/*.anchors.jsonl"))


def test_init_without_git_says_git_is_missing(repo: Path, home: Path) -> None:
    """A repository that is one, on a machine whose git cannot be run: "run `git init`"
    would be the wrong fix."""
    run(home, repo, "trust", ".")
    refused = run(home, repo, "team", "init", expect=2, env={"PATH": str(repo / "nowhere")})
    assert refused["code"] == "git_missing", refused
    assert "git init" not in refused["message"] and "PATH" in refused["message"]
    assert not (repo / ".waymarks").exists()
