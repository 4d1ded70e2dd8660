"""A write naming a claim that was replaced: the refusal names what replaced it.

`waymarks memory supersede OLD -- …` of a claim superseded since (by another session, or
by the person an hour ago) said only "Memory OLD is superseded, not active": the person
was left to list every claim to find which one now holds the fact. The refusal now names
the newest claim of the chain (its ID, and its text quoted as data: a JSON string, so a
stored line break or quote cannot pose as the message) and the command that changes it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.inprocess import Ran, waymarks


def _cli(home: Path, cwd: Path, *args: str) -> Ran:
    return waymarks(*args, env={"WAYMARKS_HOME": str(home), "HOME": str(home.parent / "user")},
                    cwd=cwd)


def _recorded(done: Ran) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return str(json.loads(done.stdout)["id"])


def test_a_supersede_of_a_replaced_claim_names_the_newest_and_the_command(
        tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    first = _recorded(_cli(home, cwd, "memory", "add", "--json", "--",
                           "The database port is 5432."))
    second = _recorded(_cli(home, cwd, "memory", "supersede", "--json", first, "--",
                            "The database port is 5433."))
    newest = _recorded(_cli(home, cwd, "memory", "supersede", "--json", second, "--",
                            'The database port is 5434 "now".'))
    for old in (first, second):  # a chain followed to its end
        done = _cli(home, cwd, "memory", "supersede", old, "--", "The database port is 6000.")
        assert done.returncode == 2, done.stdout + done.stderr
        said = done.stdout + done.stderr
        assert "is superseded, not active" in said
        assert newest in said and '"The database port is 5434 \\"now\\"."' in said, said
        assert re.search(rf"`waymarks memory supersede {newest} -- NEW CLAIM`", said), said
        status = _cli(home, cwd, "memory", "invalidate", old)
        assert f"`waymarks memory invalidate {newest}`" in status.stdout + status.stderr
    listed = json.loads(_cli(home, cwd, "memory", "list", "--json").stdout)
    assert [c["text"] for c in listed["items"] if c["status"] == "active"] == [
        'The database port is 5434 "now".']


def test_an_invalidated_claim_names_no_replacement(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    claim = _recorded(_cli(home, cwd, "memory", "add", "--json", "--", "Builds take 9 min."))
    assert _cli(home, cwd, "memory", "invalidate", claim).returncode == 0
    done = _cli(home, cwd, "memory", "supersede", claim, "--", "Builds take 7 min.")
    assert done.returncode == 2
    assert "is invalid, not active" in done.stdout + done.stderr
    assert "replaced by" not in done.stdout + done.stderr
