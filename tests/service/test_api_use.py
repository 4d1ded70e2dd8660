"""How a program may use one Waymarks object: again after close(), from several
threads, and not from inside its own write (the Python API review)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def test_an_object_is_usable_again_after_close_once_it_opened_an_existing_session(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    first = make_app()
    assert isinstance(first.remember("The build runs on the blue runner."), Committed)
    first.close()
    with make_app() as again:  # opens that session at its checkpoint (the entry index)
        assert [v.text for v in again.items("memory")] == ["The build runs on the blue runner."]
    # after the `with` block: reopened on use, not "Cannot operate on a closed database"
    assert len(again.items("memory")) == 1
    assert isinstance(again.remember("The deploy runs on the green runner."), Committed)
    assert again.status()["memory"]
    again.close()
    assert len(again.items("memory")) == 2
    assert again.health()["ok"] is True
    assert not list(home.glob("waymarks.db.damaged-*"))
