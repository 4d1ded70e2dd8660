"""State that outlives one request in a long-lived process (the Pi bridge, the MCP server,
the Claude Code helper, the web inspector): a change made between two requests, by hand
or by another process, is seen by the next request exactly as a new process sees it.

The commands run in this process (``tests/inprocess.py``): module state that outlives a
command here outlives it in those hosts too."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.inprocess import edit_in_place, waymarks
from waymarks.service.app import Waymarks


def _run(home: Path, where: Path, *args: str) -> str:
    """``waymarks --json ARGS`` in ``where`` for ``home``, which must succeed."""
    done = waymarks("--json", *args, env={"WAYMARKS_HOME": str(home)}, cwd=where)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_privacy_edit_keeping_size_and_mtime_is_in_force_at_the_next_request(
        home: Path, project: Path) -> None:
    home.mkdir()
    config = home / "config.toml"
    config.write_text('[privacy.remoteProviders]\nopenai = "internal"\n')
    env = {"WAYMARKS_HOME": str(home)}
    first = waymarks("--json", "privacy", env=env, cwd=project)
    assert json.loads(first.stdout)["remoteProviders"]["openai"] == ["normal", "internal"]
    edit_in_place(config, 'openai = "internal"', 'openai = "normal"  ')
    # a new process reads the file; the long-lived one must not keep the old policy
    second = waymarks("--json", "privacy", env=env, cwd=project)
    assert json.loads(second.stdout)["remoteProviders"]["openai"] == ["normal"]


def test_a_trust_list_edited_in_place_is_in_force_at_the_next_request(
        home: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "p1", tmp_path / "p2"
    one.mkdir()
    two.mkdir()
    with Waymarks(home, cwd=str(one)) as app:  # one object serving many requests
        app.trust(str(one))
        assert app.project_trusted
        edit_in_place(home / "trusted-projects.json", str(one), str(two))
        assert not app.project_trusted
        assert app.trusted_projects() == [str(two)]


def test_a_session_file_foreign_to_one_project_is_still_read_for_its_own(
        home: Path, tmp_path: Path) -> None:
    """``/x/b-c`` and ``/x-b/c`` keep their sessions in one directory (``--x-b-c--``). A
    pass for the second found the first's file foreign and remembered that for the path
    alone: the first project, served next by the same process (the Claude Code helper
    serves every project), then never indexed it, and its project memory was missing
    while a new process showed it."""
    own, other = tmp_path / "x" / "b-c", tmp_path / "x-b" / "c"
    own.mkdir(parents=True)
    other.mkdir(parents=True)

    def run(where: Path, *args: str, at: Path = home) -> str:
        return _run(at, where, *args)

    # a session of the first project that this home never indexed (written by Pi
    # itself, restored from a backup, synced from another machine)
    elsewhere = tmp_path / "elsewhere"
    run(own, "trust", str(own), at=elsewhere)
    run(own, "memory", "add", "--scope", "project", "--", "Staging listens on 5433.",
        at=elsewhere)
    (written,) = (elsewhere / "sessions").glob("*/*.jsonl")
    for project in (own, other):
        run(project, "trust", str(project))
        run(project, "memory", "add", "--scope", "project", "--", f"{project.name} rule.")
    (directory,) = (home / "sessions").iterdir()
    (directory / written.name).write_bytes(written.read_bytes())
    assert "Staging listens" not in run(other, "memory", "list")
    assert "Staging listens on 5433." in run(own, "memory", "list")


def test_a_read_outside_a_request_follows_a_database_another_process_replaced(
        home: Path, project: Path) -> None:
    """A command run by a long-lived host (``/context memory`` in Pi's bridge) reads
    without opening a request (:meth:`Waymarks.begin`), which is where a database that
    another process deleted and rebuilt is noticed: the bridge went on reading the deleted
    copy, and a session excluded in the new one still contributed its items."""
    env = {"WAYMARKS_HOME": str(home)}

    def run(*args: str) -> str:
        done = waymarks("--json", *args, env=env, cwd=project)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    run("trust", str(project))
    run("memory", "add", "--scope", "project", "--", "The old session says port 5433.")
    first = json.loads(run("session"))["session"]["id"]
    run("session", "new")
    run("memory", "add", "--scope", "project", "--", "The new session says tabs.")
    with Waymarks(home, cwd=str(project), keep_recall_index=True) as app:  # the bridge's
        assert len(app.items("memory")) == 2
        for name in [n for n in os.listdir(home) if n.startswith("waymarks.db")]:
            os.unlink(home / name)  # deleted: "the next command rebuilds it"
        run("memory", "exclude", first[:8])  # by another process, into the new file
        fresh = [i["text"] for i in json.loads(run("memory", "list"))["items"]]
        assert fresh == ["The new session says tabs."]
        assert [v.text for v in app.items("memory")] == fresh


def test_a_file_found_foreign_then_changed_keeping_size_and_mtime_is_read_again(
        home: Path, tmp_path: Path) -> None:
    """A pass remembers, per path and project, a file it found not to be a session of the
    project (two projects can share a session directory) until the file changes. It
    judged the change by size and mtime alone: a file rewritten in place with both kept
    (an editor that writes in place, then ``touch -r``; ``cp -p`` onto it), now a session
    of this project, stayed foreign to the long-lived process for good, while a new
    process read its project memory."""
    own, other = tmp_path / "x" / "b-c", tmp_path / "x-b" / "c"  # one session directory
    own.mkdir(parents=True)
    other.mkdir(parents=True)

    def run(where: Path, *args: str, at: Path = home) -> str:
        return _run(at, where, *args)

    elsewhere = tmp_path / "elsewhere"  # a session written for the OTHER project
    run(other, "trust", str(other), at=elsewhere)
    run(other, "memory", "add", "--scope", "project", "--", "Staging listens on 5433.",
        at=elsewhere)
    (written,) = (elsewhere / "sessions").glob("*/*.jsonl")
    run(own, "trust", str(own))
    run(own, "memory", "add", "--scope", "project", "--", "Own rule.")
    (directory,) = (home / "sessions").iterdir()
    copied = directory / written.name
    copied.write_bytes(written.read_bytes())
    with Waymarks(home, cwd=str(own), keep_recall_index=True) as app:  # the helper's
        assert [v.text for v in app.items("memory")] == ["Own rule."]  # foreign: left out
        edit_in_place(copied, json.dumps(str(other))[1:-1], json.dumps(str(own))[1:-1])
        now = ["Own rule.", "Staging listens on 5433."]  # what a new process reads
        assert sorted(v.text for v in app.items("memory")) == now
        assert sorted(i["text"] for i in json.loads(run(own, "memory", "list"))["items"]) \
            == now
