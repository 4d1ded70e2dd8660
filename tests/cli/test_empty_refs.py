"""An empty ID where one is named is refused and changes nothing (a script's empty
variable, ``supersede "$ID"``): before, ``memory supersede ''`` added an unrelated claim,
``pin --supersedes ''`` a new pin, and ``--session ''`` wrote to this project's one
session, each exit 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


def _json(home: Path, project: Path, *args: str, expect: int) -> dict:
    done = waymarks("--home", str(home), "--json", *args, cwd=project)
    assert done.returncode == expect, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def _export(home: Path, project: Path) -> str:
    done = waymarks("--home", str(home), "export", cwd=project)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("args", [
    ("memory", "supersede", "", "--", "The build tool is ninja."),
    ("memory", "supersede", "  ", "--", "The build tool is ninja."),
    ("pin", "--supersedes", "", "--", "Keep it short."),
    ("--session", "", "pin", "--", "Keep it short."),
    ("--session", " ", "memory", "add", "--", "The port is 5433."),
])
def test_an_empty_id_is_refused_and_nothing_is_written(home: Path, project: Path,
                                                       args: tuple[str, ...]) -> None:
    _json(home, project, "memory", "add", "--", "The build tool is make.", expect=0)
    _json(home, project, "pin", "--", "Keep it simple.", expect=0)
    before = _export(home, project)
    refused = _json(home, project, *args, expect=2)
    assert refused["outcome"] == "rejected" and "empty" in refused["message"], refused
    assert _export(home, project) == before


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_entry_id_to_branch_at_is_said_empty(home: Path, project: Path,
                                                      blank: str) -> None:
    """``session branch ''`` (a script's empty variable) said "no entry '' in session …"
    (``not_found``), where every other command given an empty ID says it is empty
    (``invalid_argument``, "give one"). The session file is unchanged."""
    _json(home, project, "session", "say", "--", "We moved the database to 5433", expect=0)
    ledgers = {p: p.read_bytes() for p in (home / "sessions").rglob("*.jsonl")}
    refused = _json(home, project, "session", "branch", blank, expect=2)
    assert (refused["outcome"], refused["code"]) == ("rejected", "invalid_argument"), refused
    assert refused["message"].startswith("the entry ID is empty; give one"), refused
    assert "`waymarks session show`" in refused["message"], refused
    assert {p: p.read_bytes() for p in (home / "sessions").rglob("*.jsonl")} == ledgers
    said = waymarks("--home", str(home), "session", "branch", blank, cwd=project)
    assert said.returncode == 2 and said.stdout == ""
    assert said.stderr.startswith("Refused (invalid_argument): the entry ID is empty")
