"""A plan's team items are weighed against the person's own items that may say or
contradict them, read per team item: every own claim in effect was read and signed on
each plan of a project with a team ledger (6 s CPU a prompt at 60k claims)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.service.test_item_refs import listings  # noqa: F401 (a fixture)
from tests.team.test_team_source import Writer
from waymarks.service import own_claims, team, team_views
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def test_team_blocks_read_only_the_own_claims_they_bear_on(
        make_app: Callable[..., Waymarks], project: Path,
        listings: list[str]) -> None:  # noqa: F811
    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    app = make_app()
    app.trust(str(project))
    port = app.remember("The gateway listens on port 8080.", scope="project")
    same = app.remember("Deploys go out on Tuesdays.", scope="project")
    others = [app.remember(f"The worker {n} drains queue q{n}.", scope="project")
              for n in range(5)]
    assert all(isinstance(w, Committed) for w in [port, same, *others])
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    (project / ".waymarks" / "team").mkdir(parents=True)
    said_otherwise = writer.add("The gateway listens on port 9090.", kind="memory")
    writer.add("Deploys go out on Tuesdays.", kind="memory")  # the person's own copy
    unrelated = writer.add("The cache keeps 500 entries.", kind="memory")
    listings.clear()
    blocks = team_views.team_blocks(app)
    assert [(b.id, b.overridden_by) for b in blocks] == [
        (said_otherwise, port.id if isinstance(port, Committed) else ""), (unrelated, None)]
    assert "memory" not in listings


def test_team_blocks_refresh_the_projection_once_a_request(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One snapshot a request (issue 15): the own claims each team item may bear on were
    read after a refresh of the session and the project's other sessions per team item
    (1.8 s of a 3.2 s plan at 1,000 team items, the blocks called outside a request)."""
    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    app.remember("The gateway listens on port 8080.", scope="project")
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    (project / ".waymarks" / "team").mkdir(parents=True)
    written = [writer.add(f"The worker {n} drains queue q{n}.", kind="memory")
               for n in range(6)]
    said_otherwise = writer.add("The gateway listens on port 9090.", kind="memory")
    refreshes: list[object] = []
    original = Waymarks._refresh_now

    def counting(self: Waymarks) -> object:
        refreshes.append(self)
        return original(self)

    monkeypatch.setattr(Waymarks, "_refresh_now", counting)
    blocks = team_views.team_blocks(app)
    assert [b.id for b in blocks] == [*written, said_otherwise]
    assert blocks[-1].overridden_by is not None and len(refreshes) == 1


def test_team_blocks_read_the_store_as_often_at_any_number_of_team_items(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    """The own claims a team item may bear on are found for all team items at once: a
    plan asked the store four statements per team item (80k a plan, about 2 s CPU, at
    20k team items), almost all for claims nobody here wrote."""
    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    app = make_app()
    app.trust(str(project))
    port = app.remember("The gateway listens on port 8080.", scope="project")
    app.remember("Deploys go out on Tuesdays.", scope="project")
    assert isinstance(port, Committed)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    (project / ".waymarks" / "team").mkdir(parents=True)
    said_otherwise = writer.add("The gateway listens on port 9090.", kind="memory")
    writer.add("Deploys go out on Tuesdays.", kind="memory")  # the person's own copy
    statements: list[str] = []

    def counted() -> list[tuple[str, str | None]]:
        # each round as a plan right after a pull asks: the answers kept between plans of
        # which items reuse an own ID (asked once per fold) and of which own claims may
        # bear on them (once per fold and store) are test_team_reusing_kept's
        team_views._REUSING.clear()
        own_claims._FOUND.clear()
        return _blocks_counting(app, statements)

    counted()  # (the first read catches the claims' subject rows up)
    few = [*counted()]
    at_few = len(statements)
    more = [writer.add(f"The worker {n} drains queue q{n}.", kind="memory") for n in range(40)]
    many = counted()
    assert few == [(said_otherwise, port.id)]
    assert many == [(said_otherwise, port.id), *((i, None) for i in more)]
    assert len(statements) == at_few, "\n".join(statements)


def test_team_items_one_claim_bears_on_are_looked_up_together(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    """A claim of the person's whose subject is a part of every team item's ("the
    service port" of "service number N … port") made the plan look each team item up
    alone: 160k statements and 9 s CPU a plan at 20k team items."""
    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    app = make_app()
    app.trust(str(project))
    app.remember("The service port is 80.", scope="project")
    five = app.remember("The service number 5 listens on port 8080.", scope="project")
    assert isinstance(five, Committed)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    (project / ".waymarks" / "team").mkdir(parents=True)
    statements: list[str] = []

    def counted() -> list[tuple[str, str | None]]:
        team.forget_process_state()
        return _blocks_counting(app, statements)

    written = [writer.add(f"The service number {n} listens on port {10000 + n}.",
                          kind="memory") for n in range(4, 7)]
    counted()  # (the first read catches the claims' subject rows up)
    assert counted() == [(written[0], None), (written[1], five.id), (written[2], None)]
    at_few = len(statements)
    written += [writer.add(f"The service number {n} listens on port {10000 + n}.",
                           kind="memory") for n in range(7, 40)]
    many = counted()
    assert [i for i, by in many if by] == [written[1]] and len(many) == len(written)
    assert len(statements) == at_few, "\n".join(statements)


def test_only_parts_of_terms_some_claim_holds_are_worked_out(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim whose whole subject is a part of a team item's holds every term of that
    part: the parts of a team item sharing fewer terms than a part has with every claim
    here are not worked out (a third of weighing 20k team items beside no claim)."""
    from waymarks.core import contradiction

    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    app = make_app()
    app.trust(str(project))
    gateway = app.remember("The gateway listens on port 8080.", scope="project")
    assert isinstance(gateway, Committed)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    (project / ".waymarks" / "team").mkdir(parents=True)
    written = [writer.add(f"The service number {n} listens on port {10000 + n}.",
                          kind="memory") for n in range(5)]
    said_otherwise = writer.add("The gateway listens on port 9090.", kind="memory")
    asked: list[frozenset[str]] = []
    original = contradiction.parts

    def counting(subject: frozenset[str]) -> list[str]:
        asked.append(subject)
        return original(subject)

    monkeypatch.setattr(contradiction, "parts", counting)
    blocks = [(b.id, b.overridden_by) for b in team_views.team_blocks(app)]
    assert blocks == [*((i, None) for i in written), (said_otherwise, gateway.id)]
    assert all("gateway" in subject for subject in asked), asked


def _blocks_counting(app: Waymarks, statements: list[str]) -> list[tuple[str, str | None]]:
    """The team blocks (ID, overriding claim), ``statements`` the SQL they ran."""
    statements.clear()
    app.projection.db.set_trace_callback(statements.append)  # type: ignore[attr-defined]
    try:
        return [(b.id, b.overridden_by) for b in team_views.team_blocks(app)]
    finally:
        app.projection.db.set_trace_callback(None)  # type: ignore[attr-defined]


def test_team_claims_bearing_on_no_own_claim_are_not_signed_again(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: each team claim built an index of the own claims it might
    contradict, every plan, even when none may (18,000 empty indexes, about 0.1 s of a
    plan at 20k team claims). None is built for a claim no own claim bears on."""
    from waymarks.service import own_claims

    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    app.remember("The gateway listens on port 8080.", scope="project")
    (project / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    said_otherwise = writer.add("The gateway listens on port 9090.", kind="memory")
    for n in range(20):
        writer.add(f"The worker {n} drains queue q{n}.", kind="memory")
    built: list[int] = []
    original = own_claims.OwnSignatures.__init__

    def counted(self: own_claims.OwnSignatures, views: object) -> None:
        built.append(1)
        original(self, views)  # type: ignore[arg-type]

    monkeypatch.setattr(own_claims.OwnSignatures, "__init__", counted)
    blocks = team_views.team_blocks(app)
    assert [b.id for b in blocks if b.overridden_by] == [said_otherwise]
    assert len(blocks) == 21 and len(built) <= 1, len(built)


def test_what_own_claims_are_asked_is_worked_out_once_per_fold(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: every plan of a warm process went through every team item to
    build what the person's own claims are asked (each text's subject keys, its norm, the
    keys), 0.15 s of a plan at 20k team items, the fold unchanged. It is built once per
    state of the fold, and the plan's answer is the same."""
    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    mine = app.remember("The gateway listens on port 8080.", scope="project")
    (project / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    said_otherwise = writer.add("The gateway listens on port 9090.", kind="memory")
    writer.add("The worker drains queue q1.", kind="memory")
    built: list[int] = []
    original = team_views.Asked
    monkeypatch.setattr(team_views, "Asked",
                        lambda *a: built.append(1) or original(*a))  # type: ignore[func-returns-value]
    first = team_views.team_blocks(app)
    assert [(b.id, b.overridden_by) for b in first if b.overridden_by] == [
        (said_otherwise, getattr(mine, "id", None))]
    assert all(team_views.team_blocks(app) == first for _ in range(3))
    assert len(built) == 1, built
    writer.add("The cache keeps 500 entries.", kind="memory")
    # grown by the new claim (Asked.grown), no longer built again whole from every item
    assert len(team_views.team_blocks(app)) == len(first) + 1 and len(built) == 1
    fold = team.refresh(app).fold
    assert "The cache keeps 500 entries." in team_views._ASKED[fold][1].texts
    writer.add("The gateway does not listen on port 8080.", kind="memory")
    found = team_views.team_blocks(app)
    assert [b.overridden_by for b in found][-1] == getattr(mine, "id", None), found


def test_a_shared_items_id_is_named_in_the_manifest_without_a_credential_scan(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: a team item's ID in the manifest was scanned for credentials
    and markers on every plan (its ID is whatever a teammate's line says), one scan per
    team item left out too: 20k of them a plan. An ID of the shape a share writes (32
    hex digits, an ID Waymarks makes) holds neither, as a pin's UUID does not, and is
    named as it is; any other is scanned as before."""
    from waymarks.core import secrets
    from waymarks.service.planning import plan_request

    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    (project / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    shared = []
    for n in range(5):
        writer.add(f"The worker {n} drains queue q{n}.", kind="memory")
        shared.append(f"{n:032x}")
    # the IDs a share writes: rewrite the lines' items with 32 hex digits
    from tests.team.test_team_hostile import _forge
    hand = Writer(project / ".waymarks" / "team", "bob-00000002", "Bob")
    for n, item_id in enumerate(shared):
        _forge(hand, item_id, f"The cache {n} keeps 500 entries.", at=100 + n)
    scanned: list[str] = []
    original = secrets.find_secrets
    monkeypatch.setattr(secrets, "find_secrets",
                        lambda text, *a, **k: scanned.append(text) or original(text, *a, **k))
    plan = plan_request(app, "which queue does worker 3 drain?")
    named = {e.id for e in plan.manifest if e.kind == "team"}
    assert set(shared) <= named and "ann-00000001-1" in named
    assert not set(shared) & set(scanned), [i for i in shared if i in scanned]
    assert "ann-00000001-1" in scanned  # (a hand-made one still is)
