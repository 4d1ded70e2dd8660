"""Views of unchanged items are kept between requests (``ViewMemo``), but never across
what the view depends on: the session looking, the project's trust, the branch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.views import ViewMemo, item_view


def _applies(app: Waymarks) -> dict[str, bool]:
    return {v.text: v.applies for v in app.items("pin")}


def test_a_trust_change_is_seen_although_the_items_did_not_change(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    app = make_app()
    app.trust(str(project))
    assert isinstance(app.pin("Project rule", scope="project"), Committed)
    assert isinstance(app.pin("Session rule"), Committed)
    assert _applies(app) == _applies(app) == {"Project rule": True, "Session rule": True}
    app.untrust(str(project))
    assert _applies(app) == {"Project rule": False, "Session rule": True}
    app.trust(str(project))
    assert _applies(app) == {"Project rule": True, "Session rule": True}


def test_views_are_kept_per_session_and_reused_for_the_same_state(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app()
    assert isinstance(app.pin("Session rule"), Committed)
    session = app.current_session()
    assert session is not None
    (state,) = app.projection.visible_items("pin", session.session_id, app.cwd)
    memo = ViewMemo()
    mine = memo.views([state], session.session_id, frozenset(), app.cwd, False)
    assert mine[0].applies and memo.views(
        [state], session.session_id, frozenset(), app.cwd, False)[0] is mine[0]
    other = memo.views([state], "another-session", frozenset(), app.cwd, False)
    assert not other[0].applies  # another session's pin is not in effect here
    assert other[0] == item_view(state, "another-session", frozenset(), app.cwd, False)


def test_a_plan_reuses_unchanged_pins_and_sees_changed_ones(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    from waymarks.service.planning import plan_request

    app = make_app(keep_recall_index=True)
    app.trust(str(project))
    assert isinstance(app.pin("Session rule"), Committed)
    assert isinstance(app.pin("Project rule", scope="project"), Committed)
    first = app.pin_inputs.inputs(app.items("pin"))
    again = app.pin_inputs.inputs(app.items("pin"))
    assert [p.block.content for p in first] == ["Session rule", "Project rule"]
    assert all(a is b for a, b in zip(first, again, strict=True))
    app.untrust(str(project))  # the project's pin no longer applies: left out
    assert [p.block.content for p in app.pin_inputs.inputs(app.items("pin"))] == [
        "Session rule"]
    assert isinstance(app.pin("Second rule"), Committed)
    for _ in range(2):  # the second plan reuses the pins' inputs
        plan = plan_request(app, "anything at all")
        pins = plan.messages[0]
        assert pins.kind == "pins" and "Second rule" in pins.content
        assert "Session rule" in pins.content and "Project rule" not in pins.content
        stored = app.projection.last_manifest()
        assert stored is not None and stored.pop("madeAt")  # (when it was made)
        assert stored == plan.manifest_json()
        assert stored is not None and stored["entries"][0]["kind"] == "pin"


class _CountedGets(dict):  # type: ignore[type-arg]
    """A memo's per-item dict, counting the items looked up in it."""

    gets = 0

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        type(self).gets += 1
        return super().get(key, default)


def test_a_listing_of_the_same_states_is_kept_whole(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    """Every plan lists the same pins: the second listing of the same states (same
    objects, same order, seen the same way) gets the same views without a look at each
    state, and so do the pins' inputs; a changed pin, another session or another trust
    is looked at again."""
    app = make_app(keep_recall_index=True)
    app.trust(str(project))
    for n in range(12):
        assert isinstance(app.pin(f"Rule {n}", scope="project" if n % 3 else "session"),
                          Committed)
    session = app.current_session()
    assert session is not None
    sid = session.session_id
    states = app.projection.visible_items("pin", sid, app.cwd)
    memo = ViewMemo()
    first = memo.views(states, sid, frozenset(), app.cwd, True)
    memo._kept = _CountedGets(memo._kept)
    _CountedGets.gets = 0
    again = memo.views(list(states), sid, frozenset(), app.cwd, True)
    assert _CountedGets.gets == 0  # (12 before: a lookup a state)
    assert all(a is b for a, b in zip(first, again, strict=True)) and again is not first
    untrusted = memo.views(states, sid, frozenset(), app.cwd, False)
    assert [v.applies for v in untrusted] == [n % 3 == 0 for n in range(12)]
    assert [v.applies for v in memo.views(states, "another", frozenset(), app.cwd, True)] \
        == [n % 3 != 0 for n in range(12)]
    changed = [*states[:-1], states[0]]  # another state in the last place
    assert memo.views(changed, sid, frozenset(), app.cwd, True)[-1] == first[0] != first[-1]
    # the pins' inputs: the same views again, the same inputs without a look at each
    pins = app.pin_inputs.inputs(first)
    app.pin_inputs._kept = _CountedGets(app.pin_inputs._kept)
    _CountedGets.gets = 0
    assert all(a is b for a, b in zip(pins, app.pin_inputs.inputs(list(first)), strict=True))
    assert _CountedGets.gets == 0  # (12 before)
    assert len(app.pin_inputs.inputs(untrusted)) == 4  # another listing: looked at again


def test_a_listing_with_a_branch_pin_is_never_kept_whole(
        make_app: Callable[..., Waymarks]) -> None:
    """A pin scoped to a branch depends on the branch: a listing holding one is looked at
    item by item every time."""
    app = make_app()
    for n in range(9):
        assert isinstance(app.pin(f"Rule {n}", scope="branch" if n == 4 else "session"),
                          Committed)
    session = app.current_session()
    assert session is not None
    sid = session.session_id
    states = app.projection.visible_items("pin", sid, app.cwd)
    memo = ViewMemo()
    memo.views(states, sid, session.branch_set(), app.cwd, False)
    assert not memo._listings
    on_branch = memo.views(states, sid, session.branch_set(), app.cwd, False)
    off_branch = memo.views(states, sid, frozenset(), app.cwd, False)
    assert on_branch[4].applies and not off_branch[4].applies
