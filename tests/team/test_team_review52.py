"""Stop 52's team memory review, with real git repositories (each test failed before its
fix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.team.test_team_hostile import run
from tests.team.test_team_review import repo  # noqa: F401 (a fixture)
from tests.team.test_team_source import Writer

#: a teammate's clock far ahead of this machine's (2100-01-01)
AHEAD = 4_102_444_800_000


@pytest.fixture
def team_repo(repo: Path, home: Path) -> Path:  # noqa: F811
    run(home, repo, "team", "init")
    return repo


def _ahead(team_repo: Path, kind: str, text: str) -> str:
    """Bob's item, written by a clock ahead of this one."""
    bob = Writer(team_repo / ".waymarks" / "team", "bob-00000001", "Bob")
    bob.at = AHEAD
    return bob.add(text, kind=kind, key="replicas" if kind == "memory" else None)


def _states(home: Path, team_repo: Path) -> dict[str, str]:
    return {i["id"]: i["status"] for i in run(home, team_repo, "team", "status")["items"]}


def _planned(home: Path, team_repo: Path) -> str:
    plan = run(home, team_repo, "plan", "--prompt", "how many replicas does the api run?")
    return "".join(m["content"] for m in plan["messages"] if m["kind"] == "team")


@pytest.mark.parametrize("kind", ["pin", "memory"])
def test_a_supersede_of_an_item_from_a_clock_ahead_applies(team_repo: Path, home: Path,
                                                           kind: str) -> None:
    """The entry was stamped with this machine's time, before the item it replaces in
    the fold's order: "committed", and the fold ignored it on every clone (the new item
    invalid, the old text still planned, no conflict listed)."""
    bobs = _ahead(team_repo, kind, "The api service runs 3 replicas.")
    done = run(home, team_repo, "team", "supersede", bobs, "--yes", "--",
               "The api service runs 5 replicas.")
    assert done["outcome"] == "committed"
    states = _states(home, team_repo)
    assert states == {bobs: "superseded", done["id"]: "active"}, states
    shown = _planned(home, team_repo)
    assert "5 replicas" in shown and "3 replicas" not in shown
    again = run(home, team_repo, "team", "unshare", done["id"], "--yes")  # after it, too
    assert again["outcome"] == "committed"
    assert _states(home, team_repo)[done["id"]] != "active"


@pytest.mark.parametrize("kind", ["pin", "memory"])
def test_an_unshare_of_an_item_from_a_clock_ahead_withdraws_it(team_repo: Path, home: Path,
                                                               kind: str) -> None:
    bobs = _ahead(team_repo, kind, "The api service runs 3 replicas.")
    assert run(home, team_repo, "team", "unshare", bobs, "--yes")["outcome"] == "committed"
    assert _states(home, team_repo)[bobs] in ("deleted", "expired")
    assert "3 replicas" not in _planned(home, team_repo)
    refused = run(home, team_repo, "team", "unshare", bobs, "--yes", expect=2)
    assert refused["code"] == "inactive"


def test_a_write_the_fold_does_not_apply_is_not_reported_committed(
        team_repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check behind every unshare and supersede: with this machine's time as the
    stamp (as before the fix), the entry is appended, and the answer says it did not
    apply instead of "committed"."""
    from waymarks.service import team, team_write
    from waymarks.service.app import Waymarks

    bobs = _ahead(team_repo, "pin", "The api service runs 3 replicas.")
    monkeypatch.setattr(team_write, "stamp", lambda now, after: now)
    team.forget_process_state()
    with Waymarks(home, cwd=str(team_repo)) as app, \
            pytest.raises(team_write.TeamNotApplied) as caught:
        team_write.unshare(app, bobs)
    assert caught.value.code == "not_applied" and "still active" in str(caught.value)
    assert "team status" in str(caught.value)
    mine = json.loads((home / "team" / "contributor.json").read_text())["id"]
    assert (team_repo / ".waymarks" / "team" / f"{mine}.jsonl").is_file()


@pytest.mark.slow  # real git, three clones, about twenty subprocesses
def test_claims_shared_concurrently_that_contradict_by_signature_are_a_listed_conflict(
        tmp_path: Path) -> None:
    """Alice's "runs 3 replicas" and Bob's "runs 5 replicas" (no key), shared before
    either pulled: the fold applies only the key rule, so after the merge both stayed
    active, both were planned to every teammate's model, and `team status` listed no
    conflict. The later in replay order is held back, the same on every clone, listed
    with the command that settles it, and planned again once the other is unshared."""
    from tests.team.test_git_convergence import git, three_clones

    clones = three_clones(tmp_path)
    alice, bob, carol = clones

    shared = {}
    for clone, count in ((alice, 3), (bob, 5)):
        local = clone.run("memory", "add", "--scope", "project", "--",
                          f"The api service runs {count} replicas.")["id"]
        shared[count] = clone.run("team", "share", local, "--yes")["id"]
        clone.commit("replicas")
    git(alice.path, "push", "-q")
    git(bob.path, "pull", "-q", "--no-rebase")
    git(bob.path, "push", "-q")
    for clone in (alice, carol):
        git(clone.path, "pull", "-q")

    outputs = [c.status_bytes() for c in clones]
    assert outputs[0] == outputs[1] == outputs[2], "clones disagree"
    status = json.loads(outputs[0])
    order = [i["id"] for i in status["items"]]  # replay order
    kept, held = sorted(shared.values(), key=order.index)
    [conflict] = status["conflicts"]
    assert conflict["rule"] == "signature" and conflict["kept"] == kept
    assert conflict["invalid"] == held
    assert conflict["resolve"] == f"waymarks team unshare {held[:12]}"
    assert f"waymarks team unshare {kept[:12]}" in carol.text("team", "status")
    texts = {shared[3]: "3 replicas", shared[5]: "5 replicas"}

    def planned() -> str:
        plan = carol.run("plan", "--prompt", "how many replicas does the api run?")
        return "".join(m["content"] for m in plan["messages"] if m["kind"] == "team")

    shown = planned()
    assert texts[kept] in shown and texts[held] not in shown

    # settled the other way: the kept one is wrong
    owner = alice if kept == shared[3] else bob
    owner.run("team", "unshare", kept[:12], "--yes")
    owner.commit("settle replicas")
    git(owner.path, "push", "-q")
    git(carol.path, "pull", "-q")
    assert carol.run("team", "status")["conflicts"] == []
    shown = planned()
    assert texts[held] in shown and texts[kept] not in shown
