"""A damaged ``<home>/team/contributor.json``, through the real CLI: the home's contributor
ID is made once, so a file that is there but holds no ID refuses every team write (naming
the file and the ID the earlier shares used), writes nothing, and ``health`` reports it.
Before, the next share made a new ID in silence: a second own file appeared in the
repository, the first was read as a teammate's, and the damaged file was overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from tests.team.test_team_review import repo  # noqa: F401 (a fixture)

DAMAGE = {
    "cut mid-line": lambda path, me: path.write_text('{"id": "' + me[:10]),
    "not text": lambda path, me: path.write_text('{"id": 5}\n'),
    "a directory": lambda path, me: (path.unlink(), path.mkdir()),
}


def _listing(directory: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_contributor_id_is_refused_and_reported_never_replaced(
        repo: Path, home: Path, damage: str) -> None:  # noqa: F811
    run(home, repo, "team", "init")
    first = run(home, repo, "pin", "--scope", "project", "--", "Run the migrations check")
    run(home, repo, "team", "share", first["id"], "--yes")
    path = home / "team" / "contributor.json"
    me = json.loads(path.read_text())["id"]
    team = repo / ".waymarks" / "team"
    assert (team / f"{me}.jsonl").is_file()
    DAMAGE[damage](path, me)
    damaged = path.read_bytes() if path.is_file() else None
    before = _listing(team)
    second = run(home, repo, "pin", "--scope", "project", "--", "Deploys go to staging")

    refused = run(home, repo, "team", "share", second["id"], "--yes", expect=2)
    assert refused["code"] == "contributor_damaged", refused
    assert str(path) in refused["message"] and me in refused["message"], refused
    assert "Nothing was written" in refused["message"]
    again = run(home, repo, "team", "init", expect=2)  # init makes no ID over it either
    assert again["code"] == "contributor_damaged", again
    assert _listing(team) == before  # no new own file, the old one not appended to
    assert (path.read_bytes() if path.is_file() else None) == damaged  # left as it was
    assert path.is_dir() == (damage == "a directory")
    health = run(home, repo, "health", expect=1)
    assert not health["ok"]
    assert any(p.startswith("team: ") and str(path) in p and me in p
               for p in health["problems"]), health["problems"]

    # restored as the message says: the share goes to the same own file
    if path.is_dir():
        path.rmdir()
    path.write_text(json.dumps({"id": me}) + "\n")
    run(home, repo, "team", "share", second["id"], "--yes")
    assert sorted(_listing(team)) == sorted(before)
    assert _listing(team)[f"{me}.jsonl"] > before[f"{me}.jsonl"]
    assert run(home, repo, "health")["ok"]


def test_a_damaged_id_of_a_home_that_never_shared_says_so(repo: Path, home: Path  # noqa: F811
                                                           ) -> None:
    """No anchors name an earlier ID: the message says a new one can be made, by moving
    the file aside, and does not invent one."""
    run(home, repo, "team", "init")
    path = home / "team" / "contributor.json"
    path.write_text("{damaged")
    pin = run(home, repo, "pin", "--scope", "project", "--", "Run the migrations check")
    refused = run(home, repo, "team", "share", pin["id"], "--yes", expect=2)
    assert refused["code"] == "contributor_damaged"
    assert "never shared" in refused["message"] and "move it aside" in refused["message"]
    assert path.read_text() == "{damaged"
    assert not list((repo / ".waymarks" / "team").glob("*.jsonl"))


def test_a_missing_contributor_id_of_a_home_that_shared_is_refused_and_reported(
        repo: Path, home: Path) -> None:  # noqa: F811
    """The file gone (deleted, a home copied without it) while the home's team anchors
    name the ID it shared under: the next share made a new ID in silence, as a damaged
    file's did, and the earlier shares became a teammate's."""
    run(home, repo, "team", "init")
    first = run(home, repo, "pin", "--scope", "project", "--", "Run the migrations check")
    run(home, repo, "team", "share", first["id"], "--yes")
    path = home / "team" / "contributor.json"
    me = json.loads(path.read_text())["id"]
    path.unlink()
    team = repo / ".waymarks" / "team"
    before = _listing(team)
    second = run(home, repo, "pin", "--scope", "project", "--", "Deploys go to staging")

    refused = run(home, repo, "team", "share", second["id"], "--yes", expect=2)
    assert refused["code"] == "contributor_damaged", refused
    assert str(path) in refused["message"] and "missing" in refused["message"]
    assert me in refused["message"] and "printf" in refused["message"]
    assert run(home, repo, "team", "init", expect=2)["code"] == "contributor_damaged"
    assert _listing(team) == before and not path.exists()
    health = run(home, repo, "health", expect=1)
    assert any(p.startswith("team: ") and me in p for p in health["problems"]), health

    path.write_text(json.dumps({"id": me}) + "\n")  # restored as the message says
    run(home, repo, "team", "share", second["id"], "--yes")
    assert sorted(_listing(team)) == sorted(before)
    assert _listing(team)[f"{me}.jsonl"] > before[f"{me}.jsonl"]


@pytest.mark.parametrize("args", [
    ("unshare", "nosuchitem", "--yes"),
    ("supersede", "nosuchitem", "--yes", "--", "Deploys go to staging"),
    ("share", "nosuchitem", "--yes"),
])
def test_a_refused_team_write_makes_no_contributor_id(repo: Path, home: Path,  # noqa: F811
                                                      args: tuple[str, ...]) -> None:
    """The ID was made before the item was looked up: a refused command left a new
    contributor file behind. It is made just before the first append."""
    from tests.team.test_team_source import Writer

    team = repo / ".waymarks" / "team"
    team.mkdir(parents=True)
    Writer(team, "bob-00000001", "Bob").add("Run the migrations check")
    refused = run(home, repo, "team", *args, expect=2)
    assert refused["code"] == "not_found", refused
    path = home / "team" / "contributor.json"
    assert not path.exists()
    pin = run(home, repo, "pin", "--scope", "project", "--", "Deploys go to staging")
    shared = run(home, repo, "team", "share", pin["id"], "--yes")
    assert shared["contributor"] == json.loads(path.read_text())["id"]
    assert (team / f"{shared['contributor']}.jsonl").is_file()
