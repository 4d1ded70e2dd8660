"""A learned claim whose record in the evolution ledger was edited by hand (its text no
longer hashes to its ID) is left out of recall and listed as a bad row. `rebuild-index`
folds the same ledger again and cannot clear it: `health` said OK meanwhile, and
`evolution status` sent the person to `rebuild-index`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evolution.test_aging import learn
from waymarks.cli.main import main

PAST = "2026-03-01T00:00:00.000Z"


def test_an_edited_ledger_record_is_a_health_problem_naming_the_record(
        cli: Callable[..., dict], home: Path, project: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    claim = learn(home, str(project), {"kind": "decision",
                                       "content": "Deployments use Kamal, not Capistrano",
                                       "searchTerms": ["deploy tool", "kamal"]}, PAST)
    assert cli("health")["ok"] is True
    ledger = home / "evolution" / "ledger.jsonl"
    text = ledger.read_text()
    edited = text.replace('"content":"Deployments use Kamal, not Capistrano"',
                          '"content":"Deployments use Kamal, not Ansible"')
    assert edited != text
    ledger.write_text(edited)  # as `sed -i` would
    cli("rebuild-index")
    assert cli("evolution", "list")["badRows"] == [claim]
    report = cli("health", expect=1)
    assert report["ok"] is False
    [problem] = [p for p in report["problems"] if claim in p]
    assert "evolution/ledger.jsonl" in problem and "edited" in problem
    status = cli("evolution", "status")
    assert status["health"]["projection"]["editedRecords"] == [claim]
    assert main(["evolution", "status"]) == 0
    said = capsys.readouterr().out
    [advice] = [line for line in said.splitlines() if claim in line]
    assert "evolution ledger was edited" in advice and "rebuild-index" not in advice
    cli("evolution", "forget", claim)  # as advised: the problem ends
    assert cli("health")["ok"] is True
