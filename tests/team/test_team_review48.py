"""Team memory defects a review reproduced (each test failed before its fix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from tests.team.test_team_review import (
    _bobs_clone,
    _commit_all,
    _pull_bob,
    repo,  # noqa: F401 (a fixture)
)


@pytest.fixture
def team_repo(repo: Path, home: Path) -> Path:  # noqa: F811
    """Dana's trusted repository, its team ledger made."""
    run(home, repo, "team", "init")
    return repo


def _team_lines(team_repo: Path) -> list[dict]:  # type: ignore[type-arg]
    lines = []
    for path in sorted((team_repo / ".waymarks" / "team").glob("*.jsonl")):
        lines += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return lines


def test_sharing_writes_the_level_the_homes_default_gives(team_repo: Path, home: Path) -> None:
    """An item stored without a level has the home's ``defaultClassification``: the share
    check counted it at that level, but the line written carried none, so a teammate on
    default settings planned it for remote providers (an export wrote the level)."""
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "internal"\n')
    claim = run(home, team_repo, "memory", "add", "--scope", "project", "--",
                "Billing runs on host billing-int-7.")["id"]
    shared = run(home, team_repo, "team", "share", claim, "--yes")
    run(home, team_repo, "team", "supersede", shared["id"], "--yes", "--",
        "Billing runs on host billing-int-8.")
    items = [line["item"] for line in _team_lines(team_repo) if "item" in line]
    assert [i.get("classification") for i in items] == ["internal", "internal"], items


def test_a_team_claim_contradicting_the_persons_own_is_left_out(team_repo: Path,
                                                                home: Path) -> None:
    """Bob's own claim under a key and a teammate's stale claim under the same key were
    both planned, the team's first (priority 940 against 90), with no word of it. The
    person's own claim stands; the team's is left out, and the manifest says why."""
    from tests.team.test_team_source import Writer

    mine = run(home, team_repo, "memory", "add", "--scope", "project", "--key", "db.port", "--",
               "The database port is 5434.")["id"]
    Writer(team_repo / ".waymarks" / "team", "carol-00000003", "Carol").add(
        "The database port is 5433.", kind="memory", key="db.port")
    Writer(team_repo / ".waymarks" / "team", "dave-00000004", "Dave").add(
        "The billing host is billing-7.", kind="memory")
    plan = run(home, team_repo, "plan", "--prompt", "database port and billing host")
    shown = json.dumps(plan["messages"])
    assert "port is 5434" in shown and "port is 5433" not in shown and "billing-7" in shown
    [left] = [e for e in plan["manifest"]["entries"] if e["kind"] == "team"
              and e["decision"] == "excluded"]
    assert left["reason"] == f"your own claim {mine[:8]} says otherwise"


def test_the_team_budget_keeps_the_claims_the_request_is_about(team_repo: Path,
                                                               home: Path) -> None:
    """Team claims filled the 1,500-token team budget in replay order: with 61 shared
    claims, the one the request named (the 61st) was left out ("team token budget
    reached") while a dozen older ones went in."""
    from tests.team.test_team_source import Writer

    writer = Writer(team_repo / ".waymarks" / "team", "erin-00000005", "Erin")
    for n in range(60):
        writer.add(f"The service number {n} runs its nightly batch job on worker pool {n}.",
                   kind="memory")
    writer.add("The production Postgres password rotation runbook is "
               "docs/runbooks/pg-rotate.md.", kind="memory")
    writer.add("Run the migrations check before merging.")  # a team pin: always first
    plan = run(home, team_repo, "plan", "--prompt",
               "Where is the Postgres password rotation runbook?")
    team = "".join(m["content"] for m in plan["messages"] if m["kind"] == "team")
    assert "pg-rotate.md" in team and "migrations check" in team
    assert team.index("migrations check") < team.index("pg-rotate.md")
    excluded = [e for e in plan["manifest"]["entries"] if e["kind"] == "team"
                and e["decision"] == "excluded"]
    assert excluded and all("team token budget" in e["reason"] for e in excluded)


def test_a_supersede_that_lost_a_race_is_an_open_conflict(team_repo: Path, home: Path,
                                                          tmp_path: Path) -> None:
    """Two teammates superseded one item before either pulled: every clone kept the
    earlier one and made the later ``invalid`` ("already superseded"), but `team status`
    listed no conflict, so nobody was told to settle it."""
    claim = run(home, team_repo, "memory", "add", "--scope", "project", "--key", "db.port", "--",
                "The database port is 5433.")["id"]
    shared = run(home, team_repo, "team", "share", claim, "--yes")["id"]
    _commit_all(team_repo, "c@x", "share")
    other, other_home = _bobs_clone(team_repo, tmp_path)
    run(other_home, other, "team", "supersede", shared, "--yes", "--",
        "The database port is 5434.")
    _commit_all(other, "b@x", "bob")
    run(home, team_repo, "team", "supersede", shared, "--yes", "--", "The database port is 5435.")
    _commit_all(team_repo, "c@x", "carol")
    _pull_bob(team_repo, "c@x", other)
    status = run(home, team_repo, "team", "status")
    [conflict] = status["conflicts"]
    assert {conflict["keptAuthor"], conflict["invalidAuthor"]} == {"Dana", "Bob"}
    assert conflict["resolve"].startswith(f"waymarks team supersede {conflict['kept'][:12]}")
