"""A write decides against what every session of the project appended before its turn.

It folded the project's other session files before it took its locks (once), and decided
under them against the projection: an entry another session's writer appended in between,
and never projected (killed after its append, before its projection committed), was not
seen. So a plain text was added beside the same text written marked local-only there (both
active, the plain copy planned for remote providers), and a claim contradicting one
appended there was reported committed, to be refused by the replay once that entry was read.
The fold before the locks (test_killed_sibling) covers a writer killed before this write
started; the look in the turn covers one killed in between.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.service.test_cross_session import PiSession, sibling_dir
from tests.service.test_cross_session_review import T0, today_app
from waymarks.service import write_path
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

MARKED = "[ds4:local-only]Deploys go through the bastion host.[/ds4:local-only]"


def _racing(monkeypatch: pytest.MonkeyPatch, append: Callable[[], Any]) -> None:
    """The other writer appends right after this write's first pass over the siblings."""
    original = write_path.refresh_sources
    pending = [append]

    def refresh(app: Waymarks, active: Any) -> Any:
        report = original(app, active)
        while pending:
            pending.pop()()
        return report

    monkeypatch.setattr(write_path, "refresh_sources", refresh)


def test_a_write_sees_what_a_sibling_appended_after_its_first_pass(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    today = today_app(make_app, project)
    sibling = PiSession(sibling_dir(home, project), project, T0)
    sibling.say("deploys")
    today.items("memory")  # the sibling is an indexed source
    ids: list[str] = []
    _racing(monkeypatch, lambda: ids.append(sibling.memory(MARKED)))
    answer = today.remember("Deploys go through the bastion host.", scope="project")
    assert answer.outcome == "duplicate" and answer.id == ids[0], answer
    active = [v for v in today.items("memory") if v.status == "active"]
    assert [v.text for v in active] == [MARKED]
    monkeypatch.undo()
    _racing(monkeypatch, lambda: sibling.memory("The database port is 5432.", key="db-port"))
    refused = today.remember("The database port is 5433.", scope="project", key="db-port")
    assert refused.outcome == "rejected" and refused.code == "conflict", refused
    today.rebuild_index()
    assert sorted(v.text for v in today.items("memory") if v.status == "active") == [
        "The database port is 5432.", MARKED]


def test_a_write_with_nothing_new_in_the_siblings_folds_them_once(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    today = today_app(make_app, project)
    PiSession(sibling_dir(home, project), project, T0).say("hello")
    today.items("memory")
    passes: list[int] = []
    _racing(monkeypatch, lambda: None)
    counted = write_path.refresh_sources
    monkeypatch.setattr(write_path, "refresh_sources",
                        lambda app, active: passes.append(1) or counted(app, active))
    assert isinstance(today.remember("Deploys are on Fridays.", scope="project"), Committed)
    assert passes == [1]
