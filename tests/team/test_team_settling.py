"""Settling what `team status` lists: the command it names must settle it (each test
failed before its fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from tests.team.test_team_review import (
    _bobs_clone,
    _commit_all,
    _pull_bob,
    repo,  # noqa: F401 (a fixture)
)
from tests.team.test_team_source import Writer

#: a time far past this machine's clock: a teammate's clock that runs ahead
AHEAD_MS = 4_000_000_000_000


@pytest.fixture
def team_repo(repo: Path, home: Path) -> Path:  # noqa: F811
    run(home, repo, "team", "init")
    return repo


def _shared_claim(home: Path, project: Path, text: str) -> str:
    claim = run(home, project, "memory", "add", "--scope", "project", "--key", "db.port", "--",
                text)["id"]
    return str(run(home, project, "team", "share", claim, "--yes")["id"])


def _settle(home: Path, project: Path, text: str) -> dict:  # type: ignore[type-arg]
    """Run the command `team status` names for its one conflict; the status after it."""
    [conflict] = run(home, project, "team", "status")["conflicts"]
    verb, ref = conflict["resolve"].split()[2:4]
    assert verb == "supersede", conflict
    done = run(home, project, "team", "supersede", ref, "--yes", "--", text)
    assert done["outcome"] == "committed", done
    return run(home, project, "team", "status")


def test_a_supersede_that_lost_a_race_is_settled_by_the_command_status_names(
        team_repo: Path, home: Path, tmp_path: Path) -> None:
    """Bob and Dana replaced one item before either pulled; `team status` said to settle
    it with `team supersede KEPT -- TEXT`. Doing so listed the same conflict against the
    new text, and so on for ever: a lost race could never be settled."""
    shared = _shared_claim(home, team_repo, "The database port is 5433.")
    _commit_all(team_repo, "d@x", "share")
    other, other_home = _bobs_clone(team_repo, tmp_path)
    run(other_home, other, "team", "supersede", shared, "--yes", "--",
        "The database port is 5434.")
    _commit_all(other, "b@x", "bob")
    run(home, team_repo, "team", "supersede", shared, "--yes", "--",
        "The database port is 5435.")
    _commit_all(team_repo, "d@x", "dana")
    _pull_bob(team_repo, "d@x", other)
    after = _settle(home, team_repo, "The database port is 5436.")
    assert after["conflicts"] == [], after["conflicts"]
    active = [i["text"] for i in after["items"] if i["status"] == "active"]
    assert active == ["The database port is 5436."], after["items"]


def test_a_conflict_with_a_claim_from_a_clock_ahead_is_settled(team_repo: Path,
                                                               home: Path) -> None:
    """Bob's clock runs ahead: his claim under the key Dana's holds is invalid, dated
    after now. Dana's replacement of the kept claim, stamped with her time, sorted before
    Bob's claim, which then conflicted with her new text: "committed", and the conflict
    `team status` named stood (against the new claim)."""
    _shared_claim(home, team_repo, "The database port is 5433.")
    bob = Writer(team_repo / ".waymarks" / "team", "bob-00000002", "Bob")
    bob.at = AHEAD_MS
    bob.add("The database port is 5434.", kind="memory", key="db.port")
    after = _settle(home, team_repo, "The database port is 5435.")
    assert after["conflicts"] == [], after["conflicts"]
    plan = run(home, team_repo, "plan", "--prompt", "database port")
    team_text = "".join(m["content"] for m in plan["messages"] if m["kind"] == "team")
    assert "port is 5434" not in team_text


@pytest.mark.parametrize("settle", ["unshare", "keep"])
def test_an_unshare_that_lost_a_race_to_a_supersede_is_listed_and_settled(
        team_repo: Path, home: Path, tmp_path: Path, settle: str) -> None:
    """Bob replaced Dana's pin, and Dana unshared it, before either pulled: her unshare
    sorted after his replacement, found the pin already replaced and was ignored on every
    clone. The replacement was planned for everyone, and `team status` said nothing of
    the withdrawal Dana had been told was committed."""
    pin = run(home, team_repo, "pin", "--scope", "project", "--",
              "Run the migrations check first")["id"]
    shared = run(home, team_repo, "team", "share", pin, "--yes")["id"]
    _commit_all(team_repo, "d@x", "share")
    other, other_home = _bobs_clone(team_repo, tmp_path)
    replaced = run(other_home, other, "team", "supersede", shared, "--yes", "--",
                   "Run the migrations check and the linters first")["id"]
    _commit_all(other, "b@x", "bob")
    run(home, team_repo, "team", "unshare", shared, "--yes", "no longer needed")
    _commit_all(team_repo, "d@x", "dana")
    _pull_bob(team_repo, "d@x", other)
    [conflict] = run(home, team_repo, "team", "status")["conflicts"]
    assert conflict["rule"] == "withdrawal" and conflict["kept"] == replaced, conflict
    assert conflict["invalid"] == shared and conflict["invalidAuthor"] == "Dana", conflict
    assert conflict["resolve"] == f"waymarks team unshare {replaced[:12]}"
    if settle == "unshare":
        run(home, team_repo, "team", "unshare", replaced, "--yes")
    else:  # the replacement is right: its own text says so, and is appended
        kept = run(home, team_repo, "team", "supersede", replaced, "--yes", "--",
                   "Run the migrations check and the linters first")
        assert kept["outcome"] == "committed", kept
    assert run(home, team_repo, "team", "status")["conflicts"] == []
    plan = run(home, team_repo, "plan", "--prompt", "what runs first?")
    team_text = "".join(m["content"] for m in plan["messages"] if m["kind"] == "team")
    assert ("linters" in team_text) == (settle == "keep")
