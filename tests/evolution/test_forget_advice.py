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


@pytest.mark.parametrize("verb", [("learn", "forget"), ("evolution", "forget")])
def test_forget_of_a_memory_or_pin_id_says_what_it_is_and_what_retires_it(
        home: Path, project: Path, learned: dict[str, str], verb: tuple[str, ...]) -> None:
    """`learn forget` given a memory's UUID (a memory, not a learned claim) said "no learned
    claim has the ID …; see `waymarks evolution list` (…) (see `waymarks learn list
    --all`)": "see" twice and no word of what the ID is. It names the kind and the command
    that retires it, a prefix as lists print it too, and changes nothing."""
    ok(home, project, "memory", "add", "--", "The billing service owns the invoices table.")
    [memory] = json.loads(ok(home, project, "--json", "memory", "list"))["items"]
    [pin] = json.loads(ok(home, project, "--json", "pins"))["items"]
    ledger = home / "evolution" / "ledger.jsonl"
    before = ledger.read_bytes()
    for given, kind, retires in ((memory["id"], "memory", "memory invalidate"),
                                 (memory["id"][:8].upper(), "memory", "memory invalidate"),
                                 (pin["id"], "pin", "unpin")):
        done = cli(home, project, *verb, given)
        said = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 2 and "Traceback" not in done.stderr, said
        full = memory["id"] if kind == "memory" else pin["id"]
        assert f"{full} is a {kind}, not a learned claim" in said, said
        assert f"`waymarks {retires} {full}` retires it" in said, said
    assert ledger.read_bytes() == before  # nothing appended
    assert json.loads(ok(home, project, "--json", "memory", "list"))["items"][0][
        "status"] == "active"
    done = cli(home, project, *verb, "0" * 24)  # no such thing: where to look, once
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2 and (said.count("see ") + said.count("list them with ")
                                     ) == 1, said
