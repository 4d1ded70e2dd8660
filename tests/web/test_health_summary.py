"""The overview's health summary says what ``waymarks health`` says of a damaged database
the inspector set aside and rebuilt."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from tests.web.conftest import log_in
from waymarks.service.app import Waymarks
from waymarks.web.app import build_app
from waymarks.web.security import Gate


def test_a_database_set_aside_and_rebuilt_is_named_in_the_health_summary(
        seeded: dict[str, str], home: Path, project: Path, gate: Gate) -> None:
    """A damaged database is set aside and rebuilt on the first page, as any command
    does; the CLI says so (a note, and `health`'s REPAIRED line), but the inspector's
    summary read "integrity ok; 0 problem(s)" and nobody was told of the copy left
    in the home."""
    for stale in home.glob("waymarks.db-*"):
        stale.unlink()
    (home / "waymarks.db").write_bytes(b"not a database " * 500)
    with Waymarks(home, cwd=str(project)) as app:
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        overview = client.get("/")
        assert overview.status_code == 200 and "The database port is 5434." in overview.text
        summary = client.get("/health?summary=1").text
    [damaged] = home.glob("waymarks.db.damaged-*")
    assert "REPAIRED: the database could not be used" in summary
    assert str(damaged) in summary


def test_a_database_overwritten_while_the_inspector_runs_is_not_called_ok(
        seeded: dict[str, str], home: Path, project: Path, gate: Gate) -> None:
    """The inspector's connection keeps its pages cached (WAL: nothing tells it the file
    changed in place), so a database file overwritten with other bytes while it ran was
    "integrity ok; 0 problem(s)" on every health request, and nothing was set aside. The
    file on disk is checked: it is set aside and rebuilt as a fresh process would, and the
    summary names the repair."""
    with Waymarks(home, cwd=str(project)) as app:
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        assert "integrity ok" in client.get("/health?summary=1").text
        db = home / "waymarks.db"
        with db.open("r+b") as overwritten:  # in place: the same inode, as `cp` does
            overwritten.write(b"not a database " * (db.stat().st_size // 15))
        summary = client.get("/health?summary=1").text
        overview = client.get("/")
    [damaged] = home.glob("waymarks.db.damaged-*")
    assert "REPAIRED: the database could not be used" in summary and str(damaged) in summary
    assert damaged.read_bytes().startswith(b"not a database ")
    assert "The database port is 5434." in overview.text  # rebuilt from the ledgers
