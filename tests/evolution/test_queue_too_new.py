"""An ``evolution.db`` written by a newer release (a downgrade, two versions sharing a
home): ``health``, ``evolution status`` and ``evolve`` ended in a traceback (its
``SchemaTooNewError`` was not one of the errors they say in a line). They say it in one
line now, ``--json`` too, ``health`` lists it, and the file is left as it was."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from tests.inprocess import waymarks


def test_a_newer_queue_database_is_said_in_a_line_and_kept(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"}
    from waymarks.store.jobs import JobStore

    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    JobStore.open(home).close()  # as learning makes it
    queue = home / "evolution.db"
    assert queue.is_file()
    with sqlite3.connect(queue) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    before = hashlib.sha256(queue.read_bytes()).hexdigest()
    for command in (["evolution", "status"], ["evolve"]):
        done = waymarks(*command, env=env, cwd=project)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        assert "99" in done.stdout + done.stderr and "upgrade" in done.stdout + done.stderr
    health = waymarks("health", env=env, cwd=project)
    assert health.stdout.startswith("ATTENTION") and "problem:" in health.stdout
    assert "evolution.db has schema 99" in health.stdout
    shaped = waymarks("--json", "evolution", "status", env=env, cwd=project)
    assert shaped.returncode == 1
    assert json.loads(shaped.stdout)["code"] == "schema_too_new"
    assert hashlib.sha256(queue.read_bytes()).hexdigest() == before
