"""Pins created in the same millisecond are planned in the order they were created (their
IDs are random: ordering by them injected two such pins in reverse), and a full rebuild
plans them as the incremental projection did."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from tests.conftest import StepClock
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.planning import plan_request


class FallingIds:
    """IDs that sort before the ones handed out earlier (random IDs may)."""

    def __init__(self, prefix: int) -> None:
        self.counter = itertools.count(0xFFFF, -1)
        self.prefix = prefix

    def entry_id(self) -> str:
        return f"{self.prefix:02x}{next(self.counter):06x}"

    def uuid(self) -> str:
        return f"{self.prefix:08x}-0000-4000-8000-{next(self.counter):012x}"


def _id(outcome: object) -> str:
    assert isinstance(outcome, Committed)
    return outcome.id


def _planned_pins(app: Waymarks) -> list[str]:
    plan = plan_request(app, "what should I run before committing?")
    return [e.id for e in plan.manifest if e.kind == "pin" and e.decision == "included"]


def _same_millisecond() -> StepClock:
    return StepClock(step=timedelta(0))


def test_same_millisecond_pins_keep_creation_order(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app(clock=_same_millisecond(), ids=FallingIds(1))
    first = _id(app.pin("Run the unit tests before every commit."))
    second = _id(app.pin("Then run the linter."))
    ids = [first, second]
    assert ids != sorted(ids)  # the IDs alone would put the second first
    assert _planned_pins(app) == ids
    app.rebuild_index()
    assert _planned_pins(app) == ids


def test_two_sessions_same_millisecond_plan_as_after_a_rebuild(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    first = make_app(clock=_same_millisecond(), ids=FallingIds(1))
    first.trust(str(project))
    first.session_new()
    second = make_app(clock=_same_millisecond(), ids=FallingIds(2))
    second.session_new()
    made = [_id(second.pin("Run the unit tests before every commit.", scope="project")),
            _id(first.pin("Then run the linter.", scope="project")),
            _id(second.pin("Keep commits small.", scope="project"))]
    incremental = _planned_pins(first)
    assert sorted(incremental) == sorted(made)
    # each session's pins in the order it created them (the sessions in ledger order)
    assert [i for i in incremental if i in (made[0], made[2])] == [made[0], made[2]]
    first.rebuild_index()
    assert _planned_pins(first) == incremental
    assert _planned_pins(second) == incremental
