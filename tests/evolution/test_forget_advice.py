"""A forget that cannot find its claim because the learned-memory projection is damaged or
behind (a claim row missing or unreadable, though the evolution ledger holds it) says to
run `waymarks rebuild-index` first, not that no such claim exists."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.evolution.test_projection_damage import cli, contents, learned, ok

__all__ = ["learned"]  # the fixture, used by name


def _damage(home: Path, statement: str, *args: object) -> None:
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    try:
        assert db.execute(statement, args).rowcount == 1
    finally:
        db.close()


@pytest.mark.parametrize("verb", [("learn", "forget"), ("evolution", "forget")])
@pytest.mark.parametrize("statement", [
    "DELETE FROM evo_claims WHERE id = ?",  # behind the ledger: the row is not there
    "UPDATE evo_claims SET search_terms = 'not json' WHERE id = ?",  # unreadable
])
def test_forget_of_a_claim_the_projection_lost_says_to_rebuild_the_index(
        home: Path, project: Path, learned: dict[str, str], verb: tuple[str, ...],
        statement: str) -> None:
    claim = learned["The staging port is 8080"]
    _damage(home, statement, claim)
    ledger = home / "evolution" / "ledger.jsonl"
    before = ledger.read_bytes()
    done = cli(home, project, *verb, claim)
    assert "Traceback" not in done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, said
    assert "waymarks rebuild-index` first" in said, said
    assert "no learned claim has the ID" not in said, said
    assert ledger.read_bytes() == before  # nothing appended
    # the advice works
    ok(home, project, "rebuild-index")
    assert contents(home, project) == sorted(learned)
    ok(home, project, *verb, claim)
    shown = json.loads(ok(home, project, "--json", "evolution", "show", claim))
    assert shown["state"] == "forgotten"


def test_forget_of_an_unknown_claim_still_says_there_is_none(
        home: Path, project: Path, learned: dict[str, str]) -> None:
    done = cli(home, project, "learn", "forget", "0" * 24)
    assert done.returncode == 2
    assert "rebuild-index" not in done.stdout + done.stderr
