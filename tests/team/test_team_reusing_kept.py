"""Which team items reuse an ID of the person's own, kept between plans of one process (the
hook helper, the MCP server) while neither the team's fold nor the projection changed:
every plan asked the projection about all team IDs (70 ms CPU at 20k team items)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.evolution.test_aging import days_ago, learn
from tests.team.test_team_hostile import _forge, run
from tests.team.test_team_review import repo  # noqa: F401 (a fixture)
from tests.team.test_team_source import Writer
from waymarks.core.evolution.model import claim_id
from waymarks.service import team_views
from waymarks.service.app import Waymarks

CLAIM = {"kind": "fact", "content": "The staging cache ttl is 60 seconds",
         "searchTerms": ["staging"]}


def _asked(app: Waymarks) -> list[int]:
    """How many times the projection is asked for the classifications of IDs."""
    asked = [0]
    projection = app.projection
    ask = projection.classifications

    def counting(ids):  # type: ignore[no-untyped-def]
        asked[0] += 1
        return ask(ids)

    projection.classifications = counting  # type: ignore[method-assign]
    return asked


def test_plans_of_one_process_ask_once_and_see_a_learned_claim_that_arrives(
        repo: Path, home: Path, tmp_path: Path,  # noqa: F811 (the fixture)
        make_app: Callable[..., Waymarks]) -> None:
    """Three plans with nothing changed ask the projection once; a learned claim of the
    ID a teammate's line carries, learned by another connection meanwhile, leaves that
    team item out of the next plan (the kept answer is not used past a change)."""
    origin = str(tmp_path / "elsewhere")
    reused = claim_id(origin, "fact", str(CLAIM["content"]))
    (repo / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(repo / ".waymarks" / "team", "mal-00000003", "Mal")
    writer.add("Deploys go through the staging gate", kind="memory")
    _forge(writer, reused, "Staging cache entries never expire", at=10)
    app = make_app()
    asked = _asked(app)
    for _ in range(3):
        ids = [b.id for b in team_views.team_blocks(app)]
        assert reused in ids and len(ids) == 2, ids
    assert asked[0] == 1

    learn(home, origin, CLAIM, days_ago(1))  # (its own connection to the projection)
    ids = [b.id for b in team_views.team_blocks(app)]
    assert reused not in ids and len(ids) == 1, ids
    assert run(home, repo, "team", "status")["reusedOwn"] == [
        {"id": reused, "contributor": "mal-00000003", "kind": "learned"}]
    assert team_views.reused_own_json(app, team_views.refresh(app)) == [
        {"id": reused, "contributor": "mal-00000003", "kind": "learned"}]


def test_which_own_claims_bear_on_team_items_is_found_once_while_nothing_changes(
        repo: Path, home: Path,  # noqa: F811 (the fixture)
        make_app: Callable[..., Waymarks]) -> None:
    """Plans in one process asked the store which own claims may bear on every team item
    and worked it out again (170 ms CPU a plan at 20k team items): now once, until the
    store changes; a claim of the person's written since is weighed at once."""
    (repo / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(repo / ".waymarks" / "team", "ann-00000001", "Ann")
    said = writer.add("The gateway listens on port 9090.", kind="memory")
    writer.add("Deploys go out on Tuesdays.", kind="memory")
    app = make_app()
    app.remember("The worker drains queue q1.", scope="project")
    projection = app.projection
    present = projection.memory_present
    asked = [0]

    def counting(*args):  # type: ignore[no-untyped-def]
        asked[0] += 1
        return present(*args)

    projection.memory_present = counting  # type: ignore[method-assign]
    for _ in range(3):
        blocks = team_views.team_blocks(app)
        assert [b.overridden_by for b in blocks] == [None, None]
    assert asked[0] == 1
    mine = app.remember("The gateway listens on port 8080.", scope="project")
    blocks = team_views.team_blocks(app)
    assert (blocks[0].id, blocks[0].overridden_by) == (said, getattr(mine, "id", ""))


def test_a_pull_asks_about_the_items_it_brought_alone(
        repo: Path, home: Path,  # noqa: F811 (the fixture)
        make_app: Callable[..., Waymarks]) -> None:
    """A warm process's plan after a pull asked the projection about every active team
    ID again (and the store about every team text): now about the items the pull changed,
    the earlier answers kept. A pulled line reusing the ID of the person's pin is still
    left out, and one the person's claim contradicts still overridden."""
    (repo / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(repo / ".waymarks" / "team", "ann-00000001", "Ann")
    first = [writer.add(f"Service {n} listens on port {1000 + n}.", kind="memory")
             for n in range(40)]
    app = make_app()
    pin = getattr(app.pin("Run the migrations check before deploys", scope="project"), "id", "")
    mine = getattr(app.remember("The gateway listens on port 8080.", scope="project"), "id", "")
    projection = app.projection
    sizes: list[int] = []
    classifications = projection.classifications

    def counting(ids):  # type: ignore[no-untyped-def]
        sizes.append(len(ids))
        return classifications(ids)

    projection.classifications = counting  # type: ignore[method-assign]
    assert [b.id for b in team_views.team_blocks(app)] == first
    assert sizes and sizes[0] >= 40
    sizes.clear()
    _forge(writer, pin, "Deploys skip the review step", at=10**9)
    said = writer.add("The gateway listens on port 9090.", kind="memory")
    blocks = team_views.team_blocks(app)
    assert [b.id for b in blocks] == [*first, said], blocks
    assert (blocks[-1].id, blocks[-1].overridden_by) == (said, mine)
    assert sizes and max(sizes) <= 4, sizes  # (the two new IDs, in either case)
