"""``waymarks team init`` in a project that is not trusted changes nothing: it wrote
``.waymarks/team`` (README, ``.gitattributes``) and the home's contributor ID, exit 0,
for a ledger that project never reads. It is refused first, ``untrusted`` (exit 2), with
the fix, before git is asked anything."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks
from tests.team.test_team_hostile import repo, run

__all__ = ["repo"]  # the fixture: a git repository, user.name set, not trusted


def _nothing_made(home: Path, project: Path) -> None:
    assert not (project / ".waymarks").exists()
    assert not (home / "team" / "contributor.json").exists()


def test_init_in_an_untrusted_repository_is_refused_and_makes_nothing(
        repo: Path, home: Path) -> None:
    refused = run(home, repo, "team", "init", expect=2)
    assert refused["outcome"] == "rejected" and refused["code"] == "untrusted", refused
    assert "waymarks trust ." in refused["message"]
    _nothing_made(home, repo)
    done = waymarks("--home", str(home), "team", "init", cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Refused (untrusted)" in done.stderr and "waymarks trust ." in done.stderr
    _nothing_made(home, repo)
    run(home, repo, "trust", ".")  # the fix it names works
    made = run(home, repo, "team", "init")
    assert made["created"] == ["README.md", ".gitattributes"], made
    assert (repo / ".waymarks" / "team" / "README.md").is_file()


def test_trust_is_asked_before_git(repo: Path, home: Path,
                                   tmp_path: Path) -> None:
    """No git to run, or no repository: the refusal is still trust, the first fix."""
    refused = run(home, repo, "team", "init", expect=2, env={"PATH": str(repo / "nowhere")})
    assert refused["code"] == "untrusted", refused
    _nothing_made(home, repo)
    plain = tmp_path / "plain"
    plain.mkdir()
    done = waymarks("--home", str(home), "--json", "team", "init", cwd=plain)
    assert done.returncode == 2, done.stdout + done.stderr
    assert json.loads(done.stdout)["code"] == "untrusted"
    _nothing_made(home, plain)
