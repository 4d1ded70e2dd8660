"""A session file deleted (or replaced by a directory) while a Waymarks object holds it:
the object looks for its session again as a new command would, instead of raising a raw
``FileNotFoundError`` on every call for good (the Python API review)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.ledger.session_file import SessionFile
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, ServiceError


def _only_ledger(home: Path) -> Path:
    [path] = sorted((home / "sessions").rglob("*.jsonl"))
    return path


def test_an_object_following_the_newest_session_lets_a_deleted_one_go(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    app = make_app()
    assert isinstance(app.remember("The database port is 5433."), Committed)
    gone = _only_ledger(home)
    gone.unlink()  # the person cleans up old sessions
    assert app.items("memory") == []  # as a new command: no session yet, none of its items
    report = app.health()  # what happened is reported, not raised
    assert any("missing" in problem for problem in report["problems"]), report
    cache = app.remember("The cache port is 6379.")
    assert isinstance(cache, Committed)  # a new session made, as a command's write makes
    assert [view.text for view in app.items("memory")] == ["The cache port is 6379."]
    assert _only_ledger(home) != gone
    app.close()
    assert [view.text for view in app.items("memory")] == ["The cache port is 6379."]
    with make_app() as fresh:  # a new object (a command) sees the same
        assert [view.text for view in fresh.items("memory")] == ["The cache port is 6379."]


def test_a_deleted_session_is_let_go_after_close_too(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    app = make_app()
    assert isinstance(app.remember("The database port is 5433."), Committed)
    app.close()
    _only_ledger(home).unlink()
    assert app.items("memory") == []
    assert isinstance(app.remember("The cache port is 6379."), Committed)


def test_a_directory_in_place_of_the_session_file_is_the_commands_error(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    app = make_app()
    assert isinstance(app.remember("The database port is 5433."), Committed)
    ledger = _only_ledger(home)
    ledger.unlink()
    ledger.mkdir()
    for call in (lambda: app.items("memory"), lambda: app.remember("The cache port is 6379.")):
        with pytest.raises(ServiceError) as refused:  # was IsADirectoryError
            call()
        assert refused.value.code == "bad_session"
        assert "a directory" in str(refused.value)
    ledger.rmdir()
    assert isinstance(app.remember("The cache port is 6379."), Committed)


def test_a_named_session_that_is_deleted_is_refused_as_bad_session(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    maker = make_app()
    assert isinstance(maker.remember("The database port is 5433."), Committed)
    session = maker.current_session()
    assert session is not None
    named = make_app(session=session.session_id)
    handed = make_app(session=SessionFile.open(Path(session.path)))
    assert len(named.items("memory")) == len(handed.items("memory")) == 1
    _only_ledger(home).unlink()
    calls: list[Callable[[Waymarks], object]] = [
        lambda app: app.items("memory"), lambda app: app.remember("The cache is 6379.")]
    for app in (named, handed):
        for call in calls:
            with pytest.raises(ServiceError) as refused:  # was FileNotFoundError
                call(app)
            assert refused.value.code == "bad_session"
    with pytest.raises(ServiceError) as refused:  # as `--session` naming none, for health
        named.health()
    assert refused.value.code == "bad_session"
    report = handed.health()  # a session held that cannot be read is what health reports
    assert any("handed over is gone" in problem for problem in report["problems"]), report
    assert not list((home / "sessions").rglob("*.jsonl"))  # nothing was written


def test_the_tool_of_an_object_whose_session_was_deleted_writes_again(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    from waymarks.tool.persistence import ContextPersistence

    class Yes:
        def confirm(self, request: object) -> str:
            return "accepted"

    tool = ContextPersistence(make_app())
    first = tool.call({"action": "memory_add", "content": "The database port is 5433."}, Yes())
    assert first.details["outcome"] == "committed"
    _only_ledger(home).unlink()
    again = tool.call({"action": "memory_add", "content": "The cache port is 6379."}, Yes())
    assert again.details["outcome"] == "committed", again.details  # was runtime-unavailable


def test_a_home_deleted_under_an_open_object_is_refused_until_it_is_put_back(
        make_app: Callable[..., Waymarks], home: Path, tmp_path: Path) -> None:
    """The next call raised a raw ``FileNotFoundError`` (the writer's lock file), the one
    after made a new, empty home at the path; a write made one with a new session."""
    app = make_app()
    assert isinstance(app.remember("The database port is 5433."), Committed)
    aside = tmp_path / "home-aside"
    home.rename(aside)  # as `rm -rf`, for this object: the home is no longer at its path
    calls: list[Callable[[Waymarks], object]] = [
        lambda app: app.items("memory"), lambda app: app.recall("database port"),
        lambda app: app.remember("The cache port is 6379."), lambda app: app.session_new(),
        lambda app: app.session_say("A message."), lambda app: app.status()]
    for call in calls * 2:  # the second time too (it made a new home)
        with pytest.raises(ServiceError) as refused:
            call(app)
        assert refused.value.code == "home_gone", refused.value
        assert not home.exists()  # no new home was made
    aside.rename(home)  # put back: the object goes on with it
    assert [view.text for view in app.items("memory")] == ["The database port is 5433."]
    assert isinstance(app.remember("The cache port is 6379."), Committed)


def test_after_close_an_object_whose_home_was_deleted_starts_a_new_one(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    import shutil

    app = make_app()
    assert isinstance(app.remember("The database port is 5433."), Committed)
    shutil.rmtree(home)
    with pytest.raises(ServiceError):
        app.items("memory")
    app.close()  # as a new command: a missing home is made on first use
    assert app.items("memory") == []
    assert isinstance(app.remember("The cache port is 6379."), Committed)
    assert home.is_dir()
