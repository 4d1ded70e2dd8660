"""Legacy ``adopt`` (EVOLUTION item 74) through the real CLI: a claim imported without an
origin (``legacy``) is labelled with the directory the command runs in. Its ID hashes its
origin, so it gets a new ID there with its evidence dates, basis and pin kept; the legacy
one is superseded by it; content it was corrected away from is suppressed in the new
origin too; ``undo`` takes the adoption back; a claim with an origin, a forgotten one, or
one already in that directory is refused with nothing changed; and a rebuilt projection
folds the same state."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.evolution.test_legacy_import import _action, _cli, _memory, _write
from waymarks.core.evolution.model import claim_id
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution, ledger_path
from waymarks.service.evolution_edits import import_legacy

LEGACY = [
    _memory("m1", "fact", "The staging port is 8080"),  # no scope: legacy
    _memory("m2", "decision", "Releases are cut from main on Fridays"),
    _memory("m3", "fact", "The billing service runs on Postgres 16", "/w/elsewhere"),
]
ACTIONS = [_action("m1", "correct", content="The staging port is 8443"),
           _action("m2", "pin")]


def _imported(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _write(tmp_path / "legacy", LEGACY, ACTIONS)
    assert _cli(home, project, "evolution", "import", str(tmp_path / "legacy"))["claims"] == 3
    return home, project


@pytest.mark.slow
def test_adopt_moves_a_legacy_claim_keeping_its_dates_and_undo_restores(
        tmp_path: Path) -> None:
    home, project = _imported(tmp_path)
    origin = str(project.resolve())
    old = claim_id("legacy", "decision", "Releases are cut from main on Fridays")
    before = _cli(home, project, "evolution", "show", old)
    done = _cli(home, project, "evolution", "adopt", old)
    new = claim_id(origin, "decision", "Releases are cut from main on Fridays")
    assert done["outcome"] == "done" and done["id"] == new and done["origin"] == origin
    adopted = _cli(home, project, "evolution", "show", new)
    assert adopted["origin"] == origin and adopted["state"] == "provisional"
    for same in ("evidence", "confirmedAt", "pinned", "kind", "content"):
        assert adopted[same] == before[same], same  # evidence dates, authority, pin kept
    assert adopted["pinned"] is True
    assert _cli(home, project, "evolution", "show", old)["state"] == "superseded"
    listed = _cli(home, project, "evolution", "list", "here")
    assert [c["id"] for c in listed["claims"]] == [new]
    # a rebuilt projection folds the same state
    (home / "waymarks.db").unlink()
    assert _cli(home, project, "evolution", "show", new)["origin"] == origin
    assert _cli(home, project, "evolution", "undo", str(done["event"]))["undone"] == \
        done["event"]
    assert _cli(home, project, "evolution", "show", old)["state"] == "provisional"
    assert _cli(home, project, "evolution", "show", new)["state"] == "forgotten"  # tombstone
    assert [c["state"] for c in _cli(home, project, "evolution", "list", "here")["claims"]
            ] == ["forgotten"]


@pytest.mark.slow
def test_a_corrected_claim_carries_its_old_content_suppressed(tmp_path: Path) -> None:
    home, project = _imported(tmp_path)
    origin = str(project.resolve())
    corrected = claim_id("legacy", "fact", "The staging port is 8443")
    assert _cli(home, project, "evolution", "adopt", corrected)["outcome"] == "done"
    with Evolution(home) as evo:
        evo.sync()
        from waymarks.core.evolution.rows import suppression_key

        # the text it was corrected away from is never learned back in the project
        assert evo.store.view.suppressed(suppression_key(origin, "The staging port is 8080"))
        assert not evo.store.view.suppressed(suppression_key(origin,
                                                             "The staging port is 8443"))


@pytest.mark.slow
def test_adopt_refuses_with_nothing_changed(tmp_path: Path) -> None:
    home, project = _imported(tmp_path)
    size = ledger_path(home).stat().st_size
    scoped = claim_id("/w/elsewhere", "fact", "The billing service runs on Postgres 16")
    refused = _cli(home, project, "evolution", "adopt", scoped, expect=2)
    assert refused["code"] == "bad_input"
    forgotten = claim_id("legacy", "fact", "The staging port is 8080")  # superseded
    assert _cli(home, project, "evolution", "adopt", forgotten, expect=2)["code"] == \
        "not_active"
    assert _cli(home, project, "evolution", "adopt", "ab" * 12, expect=2)["code"] == \
        "not_found"
    assert ledger_path(home).stat().st_size == size  # nothing appended
    adopted = claim_id("legacy", "decision", "Releases are cut from main on Fridays")
    assert _cli(home, project, "evolution", "adopt", adopted)["outcome"] == "done"
    again = _cli(home, project, "evolution", "adopt", adopted, expect=2)
    assert again["code"] == "not_active"  # the legacy one is superseded now


def test_adopt_over_mcp_asks_the_person_first(app: Waymarks, tmp_path: Path) -> None:
    """The MCP edit tool: adopt is asked (a no changes nothing), then applied into the
    app's directory with the same event the CLI makes."""
    from tests.mcp_server.test_learned_memory_tool import call
    from tests.mcp_server.test_remember_tool import Person

    _write(tmp_path / "legacy", LEGACY, ACTIONS)
    with Evolution(app.home) as evo:
        assert import_legacy(evo, tmp_path / "legacy").ok
    old = claim_id("legacy", "decision", "Releases are cut from main on Fridays")
    no = Person("decline")
    assert call(app, "learned_memory_edit", {"action": "adopt", "id": old}, no)[
        "outcome"] != "done"
    assert "Adopt legacy learned claim" in no.asked[0]
    with Evolution(app.home) as evo:
        evo.sync()
        assert evo.store.view.claim(old).state == "provisional"  # type: ignore[union-attr]
    done = call(app, "learned_memory_edit", {"action": "adopt", "id": old}, Person())
    origin = os.path.realpath(app.cwd)
    assert done["outcome"] == "done" and done["origin"] == origin
    assert done["id"] == claim_id(origin, "decision", "Releases are cut from main on Fridays")


def test_a_refused_adoption_over_mcp_is_refused_before_asking(app: Waymarks,
                                                             tmp_path: Path) -> None:
    """Adopting a claim that is already adopted (no longer a live legacy claim) is refused
    with its code, and the person is never asked a question whose yes would fail."""
    from tests.mcp_server.test_learned_memory_tool import call
    from tests.mcp_server.test_remember_tool import Person

    _write(tmp_path / "legacy", LEGACY, ACTIONS)
    with Evolution(app.home) as evo:
        assert import_legacy(evo, tmp_path / "legacy").ok
    old = claim_id("legacy", "decision", "Releases are cut from main on Fridays")
    assert call(app, "learned_memory_edit", {"action": "adopt", "id": old},
                Person())["outcome"] == "done"
    person = Person()
    again = call(app, "learned_memory_edit", {"action": "adopt", "id": old}, person)
    assert again["outcome"] != "done" and again["code"] == "not_active", again
    assert person.asked == []
