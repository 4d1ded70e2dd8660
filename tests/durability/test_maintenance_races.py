"""Maintenance racing other processes, with real CLI processes: two or more commands that
start at once on a database an older release wrote (each migrates it on open), and
``waymarks rebuild-index`` while writers append. No timing assertion; the races are held
open by a lock the test holds, not by sleeping and hoping."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.store.test_migrations import database_at, first_schema_rows, insert
from waymarks.store import migrations
from waymarks.store.migrations import LATEST_VERSION

pytestmark = pytest.mark.slow  # many CLI processes

def _env() -> dict[str, str]:
    """The test's environment, read when a command starts: a copy taken as the module was
    imported, before the suite's fixtures, held the person's ``HOME`` without the suite's
    ``XDG_CACHE_HOME`` or ``WAYMARKS_SEMANTIC=off``, and its commands wrote the engine's
    stamps into that home (``~/.cache/waymarks/engine-files.json``, CI's root home)."""
    return {**os.environ, "WAYMARKS_SEMANTIC_BACKFILL": "off"}


def start(home: Path, project: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                             "--json", *args], cwd=project, env=_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run(home: Path, project: Path, *args: str) -> Any:
    done = start(home, project, *args)
    out, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    return json.loads(out)


def seeded(tmp_path: Path, claims: int) -> tuple[Path, Path, list[Any]]:
    """A home with ``claims`` claims written by the CLI, and their listing."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    for n in range(claims):
        run(home, project, "memory", "add", "--", f"Service {n} answers on port {5000 + n}")
    return home, project, run(home, project, "memory")["items"]


def drop_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def released_together(home: Path, project: Path, held: sqlite3.Connection,
                      expected: list[Any]) -> None:
    """Four commands started while ``held`` holds the database's write lock, released
    together: each answers (never a repair), each migration step is recorded once."""
    held.execute("BEGIN IMMEDIATE")  # every opener now waits at its first step
    commands = [("memory",), ("memory",), ("pins",), ("status",)]
    started = [start(home, project, *command) for command in commands]
    held.execute("COMMIT")  # released together: they race for each step
    held.close()
    for process, command in zip(started, commands, strict=True):
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0 and "Traceback" not in err, err
        answer = json.loads(out)
        assert "recovered" not in answer, answer  # migrated, never taken for damage
        if command == ("memory",):
            assert answer["items"] == expected
    db = sqlite3.connect(home / "waymarks.db")
    assert db.execute("SELECT count(*), max(version) FROM schema_migrations").fetchone() == (
        LATEST_VERSION, LATEST_VERSION)  # each step once
    db.close()
    assert run(home, project, "health")["ok"] is True


@pytest.mark.parametrize("older", [1, 6])
def test_commands_starting_together_on_an_older_schema_all_answer(
        tmp_path: Path, older: int) -> None:
    home, project, expected = seeded(tmp_path, 12)
    path = home / "waymarks.db"
    db = sqlite3.connect(path)
    rows = first_schema_rows(db)  # what that release indexed (its recall index came later)
    rows["meta"] = [row for row in rows["meta"] if not row[0].startswith("recall_")]
    db.close()
    drop_database(path)
    old = database_at(path, older)
    insert(old, rows)
    if older >= 6:
        old.execute("UPDATE sources SET project = cwd")
    released_together(home, project, old, expected)


def test_commands_starting_together_on_a_blank_database_all_answer(tmp_path: Path) -> None:
    """A blank database is given the latest schema in one transaction: four processes
    released on one together create it once (the others see it made) and catch up from
    the ledger."""
    home, project, expected = seeded(tmp_path, 6)
    path = home / "waymarks.db"
    drop_database(path)
    blank = sqlite3.connect(path, isolation_level=None)
    migrations.ensure_history(blank)
    released_together(home, project, blank, expected)


def test_rebuild_index_while_writers_append_ends_equal_to_a_fresh_rebuild(
        tmp_path: Path) -> None:
    home, one, two = tmp_path / "home", tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    for project in (one, two):
        run(home, project, "trust", str(project))
        run(home, project, "memory", "add", "--", f"Seed of {project.name}")
    script = ("import subprocess, sys, json\n"
              "home, tag = sys.argv[1], sys.argv[2]\n"
              "for i in range(8):\n"
              "    args = (['session', 'new'] if i == 4 else ['memory', 'add', '--scope',"
              " 'project' if i % 2 else 'session', '--',"
              " f'Writer {tag} noted that build step {tag}-{i} takes {i}s'] if i % 3 else"
              " ['pin', 'add', '--', f'Writer {tag} pin {i}: run alpha check {tag}-{i} first.'])\n"
              "    done = subprocess.run([sys.executable, '-m', 'waymarks.cli.main', '--home',"
              " home, '--json', *args], capture_output=True, text=True, timeout=120)\n"
              "    assert done.returncode == 0, (args, done.stdout, done.stderr)\n"
              "    if args[0] != 'session':\n"
              "        assert json.loads(done.stdout)['outcome'] == 'committed', done.stdout\n")
    writers = [subprocess.Popen([sys.executable, "-c", script, str(home), tag], cwd=cwd,
                                env=_env(), text=True, stderr=subprocess.PIPE)
               for cwd, tag in ((one, "a1"), (one, "a2"), (two, "b1"))]
    rebuilds = 0
    while any(w.poll() is None for w in writers) or rebuilds < 2:
        run(home, one, "rebuild-index")
        rebuilds += 1
    for writer in writers:
        _out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    copy = tmp_path / "copy"
    shutil.copytree(home, copy)
    for stale in copy.glob("waymarks.db*"):
        stale.unlink()
    for project in (one, two):
        for listing in ("memory", "pins"):
            live = run(home, project, listing)["items"]
            assert live == run(copy, project, listing)["items"], (project.name, listing)
            assert live  # something to compare
