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


# A write naming a pin or claim that no longer applies, with nothing replacing it, says
# what to do instead: `memory supersede ID -- NEW` of an invalidated (or expired) claim
# said only "Memory ID is invalid, not active": no command brings such a claim back, and
# the person was not told that the new text is a new claim (`memory add`, with the old
# one's scope and key, so that it lands where the old one was). `invalidate`, `expire`
# and `unpin` of an item already closed said the same, where nothing is left to do. Still
# exit 2, code `not_active`, nothing changed.


def _refused(done: Ran) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["code"] == "not_active", document
    return str(document["message"])


def test_a_supersede_of_an_invalidated_claim_names_memory_add_with_its_scope_and_key(
        tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    assert _cli(home, cwd, "trust", ".").returncode == 0
    claim = _recorded(_cli(home, cwd, "--json", "memory", "add", "--scope", "project",
                          "--key", "build time", "--", "Builds take 9 min."))
    assert _cli(home, cwd, "memory", "invalidate", claim, "wrong").returncode == 0
    said = _refused(_cli(home, cwd, "--json", "memory", "supersede", claim, "--",
                         "Builds take 7 min."))
    assert "is invalid, not active" in said, said
    assert ("record the new text as a new claim: `waymarks memory add --scope project "
            "--key build-time -- NEW CLAIM`") in said, said
    # the command it names works as written
    done = _cli(home, cwd, "--json", "memory", "add", "--scope", "project", "--key",
                "build time", "--", "Builds take 7 min.")
    assert json.loads(done.stdout)["outcome"] == "committed", done.stdout
    again = _refused(_cli(home, cwd, "--json", "memory", "expire", claim))
    assert "is invalid, not active; nothing to do: it no longer applies" in again, again


def test_a_deleted_pin_names_pin_for_a_new_one(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    pin = _recorded(_cli(home, cwd, "--json", "pin", "--", "Run the tests first."))
    assert _cli(home, cwd, "unpin", pin).returncode == 0
    said = _refused(_cli(home, cwd, "--json", "pin", "--supersedes", pin, "--", "Lint first."))
    assert "pin the new text as a new pin: `waymarks pin -- NEW TEXT`" in said, said
    again = _refused(_cli(home, cwd, "--json", "unpin", pin))
    assert "is deleted, not active; nothing to do: it no longer applies" in again, again
    listed = json.loads(_cli(home, cwd, "--json", "pins").stdout)["items"]
    assert [p["status"] for p in listed] == ["deleted"]  # the refusals changed nothing
