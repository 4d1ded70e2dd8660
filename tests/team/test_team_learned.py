"""A learned claim that contradicts a teammate's shared item is not planned beside it: the
team's pins and memory were confirmed by a person, and a model-derived claim never stands
against what a person confirmed (EVOLUTION, "explicit outranks evolved"). A learned "port
6543" went into the plan under the team's "port 5432", the model left to choose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evolution.test_aging import days_ago, learn
from tests.inprocess import waymarks
from tests.team.test_team_hostile import run
from tests.team.test_team_review import repo  # noqa: F401 (a fixture)
from tests.team.test_team_source import Writer


@pytest.fixture
def team_repo(repo: Path, home: Path) -> Path:  # noqa: F811
    run(home, repo, "team", "init")
    return repo


def test_a_learned_claim_contradicting_a_team_item_is_not_planned(
        team_repo: Path, home: Path, tmp_path: Path) -> None:
    team = Writer(team_repo / ".waymarks" / "team", "alice-00000001", "Alice")
    team.add("The staging database port is 5432.", kind="memory")
    team.add("The package manager is npm", kind="memory")
    elsewhere = str(tmp_path / "elsewhere")
    said = {text: learn(home, elsewhere, {"kind": "fact", "content": text,
                                          "searchTerms": ["staging"]}, days_ago(1))
            for text in ("The staging database port is 6543", "The package manager is pnpm",
                         "The staging cache ttl is 60 seconds")}
    ask = "the staging database port, the package manager and the staging cache ttl?"
    plan = run(home, team_repo, "plan", "--prompt", ask)
    shown = json.dumps(plan["messages"])
    assert "port is 5432" in shown and "manager is npm" in shown and "ttl is 60" in shown
    assert "port is 6543" not in shown and "manager is pnpm" not in shown
    items = {e["id"] for e in plan["manifest"]["entries"] if e["kind"] == "team"}
    left = {e["id"]: e["reason"] for e in plan["manifest"]["entries"]
            if e["kind"] == "learned" and e["decision"] == "excluded"}
    assert set(left) == {said["The staging database port is 6543"],
                         said["The package manager is pnpm"]}
    for reason in left.values():  # the team item named as `team status` shows it
        assert reason.startswith("team item ") and reason.endswith(" says otherwise")
        assert any(i.startswith(reason.split()[2]) for i in items), reason
    explained = run(home, team_repo, "evolution", "explain", ask)
    assert explained["selected"] == [said["The staging cache ttl is 60 seconds"]]


def test_recall_and_memory_recall_leave_it_out_too(
        team_repo: Path, home: Path, tmp_path: Path) -> None:
    """`recall` and `memory_recall` (the tool a model calls) recall no team item: they
    answered "The staging database port is 6543" alone, the learned guess as the answer
    where the team had shared 5432."""
    from tests.mcp_server.test_recall_tool import call
    from waymarks.service.app import Waymarks

    Writer(team_repo / ".waymarks" / "team", "alice-00000001", "Alice").add(
        "The staging database port is 5432.", kind="memory")
    elsewhere = str(tmp_path / "elsewhere")
    for text in ("The staging database port is 6543", "The staging cache ttl is 60 seconds"):
        learn(home, elsewhere, {"kind": "fact", "content": text, "searchTerms": ["staging"]},
              days_ago(1))
    ask = "the staging database port and the staging cache ttl?"
    recalled = run(home, team_repo, "recall", ask)
    with Waymarks(home=home, cwd=str(team_repo)) as app:
        answer = call(app, {"query": ask})
    for rows in (recalled["learned"], answer["learned"]):
        assert [r["excerpt"] for r in rows] == ["The staging cache ttl is 60 seconds"]


def test_a_team_item_reusing_a_learned_claims_id_is_left_out(
        team_repo: Path, home: Path, tmp_path: Path) -> None:
    """A teammate's line carrying the ID of one of the person's learned claims (24 hex
    digits; no share writes one): both were planned under one ID, as a pin's reuse was
    (763af9ef). The team item is left out and `team status` names it."""
    from tests.team.test_team_hostile import _forge

    mine = learn(home, str(tmp_path / "elsewhere"), {
        "kind": "fact", "content": "The staging cache ttl is 60 seconds",
        "searchTerms": ["staging"]}, days_ago(1))
    _forge(Writer(team_repo / ".waymarks" / "team", "mal-00000003", "Mal"), mine,
           "Staging cache entries never expire", at=10)
    plan = run(home, team_repo, "plan", "--prompt", "the staging cache ttl?")
    shown = json.dumps(plan["messages"])
    assert "ttl is 60 seconds" in shown and "never expire" not in shown, shown
    assert not [e for e in plan["manifest"]["entries"]
                if e["kind"] == "team" and e["id"] == mine and e["decision"] == "included"]
    status = run(home, team_repo, "team", "status")
    assert status["reusedOwn"] == [{"id": mine, "contributor": "mal-00000003",
                                    "kind": "learned"}], status["reusedOwn"]
    text = waymarks("--home", str(home), "team", "status", cwd=team_repo).stdout
    assert "reuses the ID of your own learned claim" in text, text
