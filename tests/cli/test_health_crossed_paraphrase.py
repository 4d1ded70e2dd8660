"""Review 57: ``health`` names a session claim that a project claim written from another
session contradicts in other words (a paraphrase, Chinese), as a write in this session
would refuse it; it named only the pairs sharing a derived key and said OK for these."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks


def _json(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


@pytest.mark.parametrize(("mine", "theirs"), [
    ("The dev DB listens on 5436.", "The database port is 5435."),
    ("The dev DB listens on 5436.", "数据库端口是 5435。"),
    ("数据库端口是 5434。", "The database port is 5435."),
])
def test_health_names_a_paraphrased_contradiction_across_scopes(
        home: Path, project: Path, mine: str, theirs: str) -> None:
    _json(home, project, "trust", str(project))
    first = _json(home, project, "session", "new")["session"]["id"]
    kept = _json(home, project, "memory", "add", "--", mine)["id"]
    second = _json(home, project, "session", "new")["session"]["id"]
    crossing = _json(home, project, "--session", second, "memory", "add", "--scope",
                     "project", "--", theirs)["id"]
    # a write of the same claim in a session that sees the project claim is refused:
    # health names that pair
    third = _json(home, project, "session", "new")["session"]["id"]
    refused = _json(home, project, "--session", third, "memory", "add", "--", mine,
                    expect=2)
    assert refused["code"] == "conflict" and refused["conflicts"] == [crossing]
    report = _json(home, project, "--session", first, "health", expect=1)
    [problem] = [p for p in report["problems"] if "contradicts" in p]
    assert problem.startswith(f"session claim {kept[:8]} contradicts project claim "
                              f"{crossing[:8]}")
    assert not any("contradicts" in p for p in _json(
        home, project, "--session", second, "health")["problems"])


def test_health_names_no_pair_that_states_two_facts(home: Path, project: Path) -> None:
    """The write's rule, not a looser one: another fact of the project is no problem."""
    _json(home, project, "trust", str(project))
    first = _json(home, project, "session", "new")["session"]["id"]
    _json(home, project, "memory", "add", "--", "Debug logging is enabled in staging.")
    second = _json(home, project, "session", "new")["session"]["id"]
    _json(home, project, "--session", second, "memory", "add", "--scope", "project", "--",
          "Debug logging is disabled in production.")
    report = _json(home, project, "--session", first, "health")
    assert not any("contradicts" in p for p in report["problems"])


def test_health_reads_the_state_of_the_session_claims_alone(
        make_app: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every claim listed had its state read (one query apiece) before it was known to
    be a project claim, which this check skips: 60k queries for nothing at 60k claims."""
    from waymarks.service.diagnostics import crossed_claims
    from waymarks.store.view import SqliteView

    app = make_app()
    app.trust(str(project))
    mine = app.remember("The dev DB listens on 5436.", scope="session")
    for n in range(4):
        app.remember(f"The worker {n} drains queue q{n}.", scope="project")
    read: list[str] = []
    real = SqliteView.get
    monkeypatch.setattr(SqliteView, "get",
                        lambda self, item_id: (read.append(item_id), real(self, item_id))[1])
    assert crossed_claims(app, app.current_session()) == []
    assert read == [mine.id]
