"""Every refusal comes before the question: ``/confirm`` rehearses the action (every check
the real run makes, nothing appended) and shows the refusal instead of a confirmation, so
the person is never asked to approve something that is then refused. A rehearsal that
passes writes nothing either: every action of the table is rehearsed here over a real home
and its ledger files are compared byte for byte."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_learned_and_projects import _learn, _login
from waymarks.web.actions import ACTIONS

#: files that are projections or locks (rebuilt at will), not records
_DERIVED = (".db", ".db-wal", ".db-shm", ".lock", ".sqlite", ".sqlite-wal", ".sqlite-shm")


def _records(*roots: Path) -> dict[str, str]:
    """Every record file under ``roots`` with a digest of its bytes."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.name.endswith(_DERIVED):
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def test_a_conflicting_supersede_is_refused_before_the_question(
        web: Any, home: Path, project: Path, cli: Callable[..., dict]) -> None:
    first = cli("memory", "add", "--", "Package export mode defaults to PerEndpoint.")["id"]
    other = cli("memory", "add", "--", "Deploys go to staging first.")["id"]
    client, gate = _login(web)
    before = _records(home, project)
    answer = client.post("/confirm", data={
        "csrf": gate.csrf, "action": "supersede", "id": other,
        "text": "Package export mode defaults to SingleFile."})
    assert "Refused (conflict)" in answer.text and f"/item/memory/{first}" in answer.text
    assert "confirm-form" not in answer.text and 'name="confirmed"' not in answer.text
    assert "Checked before asking" in answer.text
    assert _records(home, project) == before
    assert cli("memory", "show", other)["item"]["status"] == "active"


@pytest.mark.parametrize(("form", "shown", "status"), [
    ({"action": "forget", "id": "0" * 24}, "Refused (not_found)", 200),
    # an unknown session is the request's fault: refused, as the CLI's exit 2 (it said
    # "Failed", HTTP 400); an include of one was asked and then refused after the yes
    ({"action": "exclude", "id": "00000000"}, "Refused (not_found)", 200),
    ({"action": "include", "id": "00000000"}, "Refused (not_found)", 200),
    ({"action": "unpin", "id": "ffffffff"}, "Refused", 200),
    ({"action": "pin", "text": "x" * 20_001}, "longer than 20,000", 400),
])
def test_refusals_and_failures_come_before_the_question(
        web: Any, home: Path, project: Path, form: dict[str, str], shown: str,
        status: int) -> None:
    client, gate = _login(web)
    before = _records(home, project)
    answer = client.post("/confirm", data={"csrf": gate.csrf, **form})
    assert answer.status_code == status and shown in answer.text
    assert "confirm-form" not in answer.text
    assert _records(home, project) == before


def _rehearsed(client: Any, gate: Any, roots: tuple[Path, ...],
               valid: dict[str, dict[str, str]]) -> None:
    """Each action of ``valid`` passes its rehearsal: the question is asked, nothing written."""
    before = _records(*roots)
    for name, fields in valid.items():
        answer = client.post("/confirm", data={"csrf": gate.csrf, "action": name, **fields})
        outcome = re.findall(r'id="outcome">[^<]*', answer.text)
        assert answer.status_code == 200 and "confirm-form" in answer.text, (name, outcome)
        assert _records(*roots) == before, name


@pytest.mark.slow
def test_every_action_rehearses_without_writing_and_then_asks(
        web: Any, home: Path, project: Path, seeded: dict[str, str],
        cli: Callable[..., dict]) -> None:
    learned = _learn(home, str(project))
    cli("trust", str(project))
    events = cli("evolution", "history")["events"]
    valid = {
        "pin": {"text": "Always run the linter first."},
        "unpin": {"id": seeded["pin"]},
        "pin-supersede": {"id": seeded["pin"], "text": "Always run the tests first."},
        "memory-add": {"text": "The queue holds 64 jobs.", "scope": "project"},
        "supersede": {"id": seeded["port2"], "text": "The database port is 5435."},
        "invalidate": {"id": seeded["img"]},
        "expire": {"id": seeded["link"]},
        "forget": {"id": learned},
        "correct": {"id": learned, "text": "Deployments use Kamal 2."},
        "feedback": {"id": learned, "verdict": "incorrect"},
        "undo": {"event": str(max(e["event"] for e in events))},
    }
    # a new action must be rehearsed here too (the two source actions: the next test)
    assert {*valid, "exclude", "include"} == set(ACTIONS)
    client, gate = _login(web)
    _rehearsed(client, gate, (home, project), valid)
    assert cli("memory", "show", seeded["port2"])["item"]["status"] == "active"
    assert [p["status"] for p in cli("pins")["items"]] == ["active"]
    assert cli("evolution", "show", learned)["state"] == "provisional"


def _excluded(cli: Callable[..., dict], session: str) -> bool:
    """The source's exclusion as ``memory sources`` shows it: the policy lives in
    ``waymarks.db`` only, which ``_records`` leaves out, so it is read back here."""
    excluded: bool = {s["sessionId"]: s for s in cli("memory", "sources")["sources"]}[
        session]["excluded"]
    return excluded


def test_source_actions_rehearse_without_writing(
        web: Any, home: Path, project: Path, cli: Callable[..., dict]) -> None:
    """Each source action rehearsed alone, from the state it would change: a rehearsal
    that wrote would flip the exclusion (an exclude and an include rehearsed together
    would undo each other, and the exclusion is not in the record files)."""
    cli("trust", str(project))
    cli("memory", "add", "--scope", "project", "--", "The first session sets the cache size.")
    first = cli("session")["session"]["id"]
    cli("session", "new")  # the inspector follows the newest session: the first is a source
    client, gate = _login(web)
    assert _excluded(cli, first) is False
    _rehearsed(client, gate, (home, project), {"exclude": {"id": first}})
    assert _excluded(cli, first) is False, "rehearsing exclude excluded the source"
    assert cli("memory", "exclude", first)["changed"] is True
    assert _excluded(cli, first) is True
    _rehearsed(client, gate, (home, project), {"include": {"id": first}})
    assert _excluded(cli, first) is True, "rehearsing include included the source again"


def test_an_event_number_out_of_range_is_a_clear_answer_not_a_crash(
        web: Any, home: Path, project: Path, cli: Callable[..., dict]) -> None:
    # found in review: SQLite refuses integers past 2**63 - 1 with OverflowError, which the
    # rehearsal of /confirm turned into a 500 before the question
    _learn(home, str(project))
    client, gate = _login(web)
    before = _records(home, project)
    for event in ("99999999999999999999", str(2**63)):
        answer = client.post("/confirm", data={"csrf": gate.csrf, "action": "undo",
                                               "event": event})
        assert answer.status_code in (200, 400), answer.status_code
        assert "confirm-form" not in answer.text
    assert _records(home, project) == before
