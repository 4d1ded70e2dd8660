"""A project's first session, started by two commands at once: one session, and every
write reported committed is where the next command looks.

Two commands started together in a project with no session (an agent and a terminal)
each made a session; the write of the one whose file sorted first was reported committed
and went where no later command looked."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from waymarks.ledger.discovery import session_dir
from waymarks.service import app as app_module
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

WAYMARKS = Path(sys.executable).parent / "waymarks"


def test_a_session_made_after_the_lookup_is_used_not_doubled(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    other = make_app(ids=CountingIds(1))
    looked: list[str] = []
    newest_session = app_module.newest_session

    def none_yet(home: Path, cwd: str, passed: object = None) -> None:  # the other starts
        if not looked:
            looked.append(cwd)
            monkeypatch.setattr(app_module, "newest_session", newest_session)
            assert isinstance(other.pin("made by the other command"), Committed)
            monkeypatch.setattr(app_module, "newest_session", none_yet)

    monkeypatch.setattr(app_module, "newest_session", none_yet)
    here = make_app(ids=CountingIds(2))
    written = here.remember("The build is make.")
    assert looked and isinstance(written, Committed)
    files = sorted(session_dir(here.home, str(project)).glob("*.jsonl"))
    assert len(files) == 1
    session = here.current_session()
    assert session is not None and session.path == files[0]
    assert [v.text for v in other.items("memory")] == ["The build is make."]


@pytest.mark.slow
def test_six_commands_at_once_in_a_new_project_share_one_session(tmp_path: Path) -> None:
    home, project = tmp_path / "wm", tmp_path / "p"
    project.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WAYMARKS_HOME": str(home),
           "PYTHONDONTWRITEBYTECODE": "1"}
    runs = [subprocess.Popen([str(WAYMARKS), "--json", "memory", "add",
                              "The staging database listens on port 5544."],
                             cwd=project, env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(6)]
    answers = [json.loads(run.communicate(timeout=120)[0]) for run in runs]
    assert sorted(a["outcome"] for a in answers) == ["committed"] + ["duplicate"] * 5
    assert len({a["id"] for a in answers}) == 1
    assert len(list(session_dir(home, str(project.resolve())).glob("*.jsonl"))) == 1
    listed = json.loads(subprocess.run([str(WAYMARKS), "--json", "memory", "list"],
                                       cwd=project, env=env, capture_output=True,
                                       text=True, check=True).stdout)
    assert [m["id"] for m in listed["items"]] == [answers[0]["id"]]


def test_a_first_write_after_another_process_replaced_the_database(tmp_path: Path) -> None:
    """The first write of a new project decides against an empty session before it creates
    the session file; another process that set the database aside and started a new one
    meanwhile (a CI run of six commands at once, under load) made that decision raise
    ``ProjectionReplaced`` as a traceback. The write reopens the path and goes on."""
    import os

    from waymarks.service.app import Waymarks

    home, project = tmp_path / "wm", tmp_path / "p"
    project.mkdir()
    app = Waymarks(home, cwd=str(project))
    try:
        assert app.items("memory") == [] and app.current_session() is None
        db = home / "waymarks.db"
        os.replace(db, home / "aside.db")  # another process set it aside ...
        with Waymarks(home, cwd=str(project)) as other:  # ... and opened a new one
            assert other.items("memory") == []
        written = app.remember("The staging database listens on port 5544.")
        assert isinstance(written, Committed), written
        assert [v.text for v in app.items("memory")] == [
            "The staging database listens on port 5544."]
    finally:
        app.close()
