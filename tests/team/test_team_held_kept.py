"""The claims a team ledger holds back, and its claims' subjects, are worked out once per
set of entries and kept in the home (service.team_held): every fresh process, each
prompt's hook, signed every active team claim again (2 s CPU a plan at 20k of them)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.team.test_team_source import Writer
from waymarks.core import contradiction
from waymarks.service import team, team_views
from waymarks.service.app import Waymarks


def test_a_fresh_process_signs_no_team_claim_the_ledger_did_not_change(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    team.forget_process_state()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    app = make_app()
    app.trust(str(project))
    (project / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    kept = writer.add("The API listens on port 8080.", kind="memory")
    later = writer.add("The API listens on port 9090.", kind="memory")
    others = [writer.add(f"The worker {n} drains queue q{n}.", kind="memory")
              for n in range(3)]
    signed: list[str] = []
    original = contradiction.signature

    def counting(claim: str) -> contradiction.Signature | None:
        signed.append(claim)
        return original(claim)

    def fresh_process() -> tuple[list[str], list[dict[str, object]]]:
        team.forget_process_state()
        original.cache_clear()
        signed.clear()
        return ([b.id for b in team_views.team_blocks(app)],
                team_views.conflicts_json(app, team.refresh(app)))

    monkeypatch.setattr(contradiction, "signature", counting)
    first = fresh_process()
    assert first[0] == [kept, *others]  # the later port held back
    assert [(c["rule"], c["kept"], c["invalid"]) for c in first[1]] == [
        ("signature", kept, later)]
    assert signed  # worked out
    assert fresh_process() == first
    assert signed == []  # kept: nothing signed again
    settled = writer.add("The cache keeps 500 entries.", kind="memory")
    blocks, conflicts = fresh_process()
    assert signed and blocks == [kept, *others, settled]  # other entries: worked out
    assert [c["invalid"] for c in conflicts] == [later]


def test_a_warm_process_reads_the_kept_checks_once_per_fold(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each plan of a long-lived process (the Claude Code helper) hashed every folded
    entry to find the kept checks' digest, and read and decoded their file again: 60 ms
    of every plan at 20k team claims, the fold unchanged. The checks are kept with the
    fold's state as it is, and worked out again once it changes."""
    from waymarks.service import team_held

    team.forget_process_state()
    app = make_app()
    app.trust(str(project))
    (project / ".waymarks" / "team").mkdir(parents=True)
    writer = Writer(project / ".waymarks" / "team", "ann-00000001", "Ann")
    writer.add("The API listens on port 8080.", kind="memory")
    writer.add("The API listens on port 9090.", kind="memory")
    read: list[str] = []
    kept = team_held._kept
    monkeypatch.setattr(team_held, "_kept", lambda *a: read.append("kept") or kept(*a))
    first = team_views.team_blocks(app)
    for _ in range(3):
        assert team_views.team_blocks(app) == first
    assert len(read) <= 1, read
    writer.add("The worker drains queue q1.", kind="memory")  # the fold changes
    assert len(team_views.team_blocks(app)) == len(first) + 1
    # brought up to date from what this process found (team_held_live): the kept file,
    # written again for the next process, is not read back
    assert len(read) == 1, read
