"""A long-lived process's reads outside a request, after another process replaced the
database.

The Pi bridge runs ``/context memory``, ``/context recall`` … through the command table,
whose reads (``items``, ``recall``, ``health``) refresh the projection without opening a
request (``Waymarks.begin``), and so without asking whether the file at the path is still
the one the process holds. When another process set the database aside and rebuilt it,
those reads went on answering from the set-aside copy until something happened to need a
write transaction; local policy that lives only in the database (a source exclusion made
in the new file) was then not in force for them: the excluded session's project memory
was listed and recalled. Real files, real SQLite, the other process a real CLI run."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks


def cli(home: Path, project: Path, session: str, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--cwd", str(project), "--session", session, "--json", *args],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_reads_outside_a_request_follow_a_database_another_process_rebuilt(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    first = make_app(ids=CountingIds(1))
    first.trust(str(project))
    first.session_new()
    first.remember("Experimental flag FOO is enabled", scope="project")
    sibling = first.current_session()
    assert sibling is not None
    first.close()
    host = make_app(ids=CountingIds(5))  # the long-lived host, in a session of its own
    host.session_new()
    mine = host.current_session()
    assert mine is not None
    assert [v.text for v in host.items("memory") if v.applies] == [
        "Experimental flag FOO is enabled"]
    db = sqlite3.connect(home / "waymarks.db")  # damage no read of the host meets
    with db:
        assert db.execute("UPDATE mutations SET note = 'changed'").rowcount
    db.close()
    recovered = cli(home, project, mine.session_id, "memory", "sources")
    assert recovered.get("recovered")  # the other process set it aside and rebuilt it
    cli(home, project, mine.session_id, "memory", "exclude", sibling.session_id, "noisy")
    for _ in range(2):
        assert [v.text for v in host.items("memory") if v.applies] == []
        assert host.recall("which flag is enabled?").rows == []
    assert host.recovered is None  # reopened, not repaired a second time


@pytest.mark.slow
def test_a_database_deleted_under_a_long_lived_host_is_rebuilt_by_the_next_command(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    """"Delete it and the next command rebuilds": with a host holding the database open,
    deleting ``waymarks.db`` leaves its ``-wal`` and ``-shm`` (the host's connection keeps
    them), and SQLite read them as the new file's: every command failed with an I/O error
    blaming the disk until the host happened to reopen."""
    host = make_app(ids=CountingIds(5))
    host.remember("The db port is 5432")
    session = host.current_session()
    assert session is not None
    (home / "waymarks.db").unlink()  # the person's rm, while the host runs
    listed = cli(home, project, session.session_id, "memory")
    assert [i["text"] for i in listed["items"]] == ["The db port is 5432"]  # type: ignore[index]
    added = cli(home, project, session.session_id, "memory", "add", "--", "The cache is redis")
    assert added["outcome"] == "committed"
    with host.begin():
        assert sorted(v.text for v in host.items("memory")) == [
            "The cache is redis", "The db port is 5432"]
