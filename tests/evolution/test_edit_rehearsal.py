"""A rehearsing ``Waymarks`` (``app.rehearsing``: the web inspector's ``/confirm``) rehearses
the learned-memory edits its commands make too (``Evolution.dry_run``), through the one
entry point :func:`waymarks.service.evolution.evolution_for`: every check runs, the answer
is the real run's, and neither ledger gains a byte. The same command lines, not rehearsed,
do change the claim (so the comparison could fail)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_learned_and_projects import _learn
from waymarks.commands.base import invoke
from waymarks.commands.results import Runtime
from waymarks.commands.table import build
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution, evolution_for, ledger_path


def _run(app: Waymarks, *line: str) -> tuple[dict[str, object], int]:
    result = invoke(build(), list(line), Runtime(open_app=lambda: app, json=True))
    return result.data, result.exit_code


def test_the_entry_point_follows_the_apps_rehearsal(app: Waymarks, project: Path) -> None:
    _learn(app.home, str(project))
    for rehearsing in (True, False):
        app.rehearsing = rehearsing
        with evolution_for(app) as evo:
            assert evo.home == app.home and evo.dry_run is rehearsing


@pytest.mark.parametrize("line", [("learn", "forget", "{id}"),
                                  ("evolution", "forget", "{id}"),
                                  ("evolution", "correct", "{id}", "--", "We deploy with Kamal 2."),
                                  ("evolution", "feedback", "{id}", "incorrect")])
def test_a_rehearsed_edit_answers_and_appends_nothing(
        app: Waymarks, project: Path, line: tuple[str, ...]) -> None:
    learned = _learn(app.home, str(project))
    line = tuple(part.format(id=learned) for part in line)
    before = ledger_path(app.home).read_bytes()
    app.rehearsing = True
    data, code = _run(app, *line)
    assert code == 0 and data.get("event") is None, data
    assert ledger_path(app.home).read_bytes() == before
    with Evolution(app.home) as evo:
        evo.sync()
        row = evo.store.view.claim(learned)
        assert row is not None and row.state == "provisional" and row.accuracy is None
    app.rehearsing = False
    data, code = _run(app, *line)
    assert code == 0 and isinstance(data.get("event"), int), data
    assert ledger_path(app.home).read_bytes() != before
