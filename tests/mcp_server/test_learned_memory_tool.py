"""The MCP ``learned_memory`` (read-only) and ``learned_memory_edit`` (confirmed) tools
through the SDK's real client: reads ask nothing; forget/correct/undo ask the person, write
only on a yes, refuse bad input before asking, and a client without elicitation changes
nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.evolution.test_aging import learn
from tests.mcp_server.test_remember_tool import Person
from waymarks.core.model_port import ModelReply
from waymarks.mcp.server import build_server
from waymarks.service.app import Waymarks
from waymarks.service.evolution import Evolution

PAST = "2026-03-01T00:00:00.000Z"


def call(app: Waymarks, name: str, arguments: dict[str, Any],
         person: Person | None = None, mode: str = "auto") -> dict[str, Any]:
    async def run() -> CallToolResult:
        async with Client(build_server(app), elicitation_callback=person,  # type: ignore[arg-type]
                          mode=mode) as client:
            return await client.call_tool(name, arguments)

    result = anyio.run(run)
    assert result.structured_content is not None
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    assert result.is_error is (result.structured_content["outcome"] not in ("ok", "done"))
    return dict(result.structured_content)


def _claim(app: Waymarks, tmp_path: Path) -> str:
    return learn(app.home, str(tmp_path / "elsewhere"), {
        "kind": "decision", "content": "Deployments use Kamal, not Capistrano",
        "searchTerms": ["deploy tool", "kamal"]}, PAST)


@pytest.mark.slow
def test_reads_ask_nothing_and_carry_provenance(app: Waymarks, tmp_path: Path) -> None:
    claim = _claim(app, tmp_path)

    async def tools() -> dict[str, Any]:
        async with Client(build_server(app)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    listed = anyio.run(tools)
    assert listed["learned_memory"].annotations.read_only_hint is True
    assert listed["learned_memory_edit"].annotations.destructive_hint is True
    person = Person()
    assert [c["id"] for c in call(app, "learned_memory", {"action": "list"}, person)[
        "claims"]] == [claim]
    found = call(app, "learned_memory", {"action": "search", "query": "deploy tool"}, person)
    assert [c["id"] for c in found["claims"]] == [claim]
    shown = call(app, "learned_memory", {"action": "show", "id": claim}, person)
    assert shown["provenance"]["basis"] == "user_statement" and shown["events"]
    assert call(app, "learned_memory", {"action": "history"}, person)["events"]
    assert call(app, "learned_memory", {"action": "learning"}, person)["sources"]
    refused = call(app, "learned_memory", {"action": "show", "id": "nope"}, person)
    assert refused["code"] == "bad_input" and "nope" not in json.dumps(refused)
    assert person.asked == []


@pytest.mark.slow
def test_edits_are_confirmed_and_undo_restores(app: Waymarks, tmp_path: Path) -> None:
    claim = _claim(app, tmp_path)
    no = Person("decline")
    declined = call(app, "learned_memory_edit", {"action": "forget", "id": claim}, no)
    assert declined["outcome"] == "cancelled" and "Kamal" in no.asked[0]
    with Evolution(app.home) as evo:
        assert evo.claim(claim).state == "provisional"  # type: ignore[union-attr]
    assert call(app, "learned_memory_edit", {"action": "forget", "id": claim})[
        "outcome"] == "unavailable"  # no elicitation: nothing changes
    bad = Person()
    assert call(app, "learned_memory_edit", {"action": "correct", "id": claim, "text": "x"},
                bad)["code"] == "bad_input" and bad.asked == []  # refused before asking
    yes = Person()
    done = call(app, "learned_memory_edit", {"action": "correct", "id": claim,
                                             "text": "Deployments use Kamal 2"}, yes)
    assert done["outcome"] == "done" and "Kamal 2" in yes.asked[0]
    with Evolution(app.home) as evo:
        assert evo.claim(claim).state == "superseded"  # type: ignore[union-attr]
    undo = Person()
    undone = call(app, "learned_memory_edit", {"action": "undo", "event": done["event"]}, undo)
    assert undone["outcome"] == "done" and undo.asked
    with Evolution(app.home) as evo:
        assert evo.claim(claim).state == "provisional"  # type: ignore[union-attr]
    missing = Person()
    assert call(app, "learned_memory_edit", {"action": "undo", "event": 9999}, missing)[
        "code"] == "not_found" and missing.asked == []


def test_reads_go_through_the_destinations_egress(app: Waymarks, tmp_path: Path) -> None:
    """``learned_memory``'s answer goes to the model, like ``memory_recall``'s: a claim
    learned from a ``sensitive`` source is named by ID only for the default (remote,
    ``normal``) destination, never its text (list, search and show all leaked it)."""
    with Evolution(app.home) as evo:  # the person marked what they said sensitive
        src = evo.capture(str(tmp_path / "elsewhere"), "statement", "Remember: [ds4:sensitive]"
                          "payroll runs on host pay-db-7[/ds4:sensitive]", session="s", key="k")
        assert src is not None
        reply = {"claims": [{"kind": "fact", "content": "Payroll runs on host pay-db-7",
                             "searchTerms": ["payroll host"]}]}
        assert evo.apply(src.source_id, ModelReply(json.dumps(reply), "f", "m"),
                         PAST).code == "applied"
        secret = next(c.id for c in evo.claims(["provisional"]) if "pay-db-7" in c.content)
    plain = _claim(app, tmp_path)
    listed = call(app, "learned_memory", {"action": "list"})
    assert "pay-db-7" not in json.dumps(listed)
    assert [c["id"] for c in listed["claims"]] == [plain]
    assert listed["withheld"] == [secret]
    found = call(app, "learned_memory", {"action": "search", "query": "payroll host"})
    # a search matches only what the destination may receive: naming the withheld claim
    # that holds the words told the model what its text says (tests/privacy/test_find_oracle)
    assert "pay-db-7" not in json.dumps(found) and found["withheld"] == []
    assert found["claims"] == []
    shown = call(app, "learned_memory", {"action": "show", "id": secret})
    assert shown["code"] == "withheld" and "pay-db-7" not in json.dumps(shown)
    assert call(app, "learned_memory", {"action": "show", "id": plain})["content"] \
        == "Deployments use Kamal, not Capistrano"


def test_the_question_never_quotes_local_only_text(app: Waymarks, tmp_path: Path) -> None:
    """The confirmation question goes to the MCP client (which may run elsewhere), and a
    confirmation dialog never quotes local-only text (``tool.egress.ON_SCREEN``, as
    ``context_persistence`` asks): ``learned_memory_edit`` quoted a claim whole, so a
    person's correction holding a local-only span was shown in the question. Now such a
    claim is named, not quoted, and other text loses its markers."""
    from waymarks.service.evolution_edits import correct

    claim = _claim(app, tmp_path)
    with Evolution(app.home) as evo:
        done = correct(evo, claim, "Deployments use Kamal [ds4:local-only]from my home box "
                                   "at 10.1.2.3[/ds4:local-only]")
        assert done.ok
        corrected = next(c.id for c in evo.claims(["provisional"]) if "10.1.2.3" in c.content)
    asked = Person("decline")
    call(app, "learned_memory_edit", {"action": "forget", "id": corrected}, asked)
    assert asked.asked and "10.1.2.3" not in asked.asked[0] and "local-only" in asked.asked[0]
    marked = Person("decline")
    with Evolution(app.home) as evo:
        assert correct(evo, corrected, "Deployments use [ds4:internal]Kamal 2[/ds4:internal]"
                       ).ok
        newest = next(c.id for c in evo.claims(["provisional"]) if "Kamal 2" in c.content)
    call(app, "learned_memory_edit", {"action": "pin", "id": newest}, marked)
    assert "Deployments use Kamal 2" in marked.asked[0] and "ds4:" not in marked.asked[0]


def test_a_claim_pinned_while_the_person_decides_is_asked_about_again(
        app: Waymarks, tmp_path: Path) -> None:
    """A review: the person approved forgetting a provisional claim; meanwhile another
    process pinned it, and the yes forgot the pinned claim (the question said nothing of
    the pin, so the SDK saw no change). The question names the pin and the claim's last
    event: the person is asked again, about the pinned claim, and a no keeps it."""
    from waymarks.service import evolution_edits

    claim = _claim(app, tmp_path)

    class Wary(Person):
        async def __call__(self, context: Any, params: Any) -> Any:
            if not self.asked:  # while the first question is open, it is pinned
                with Evolution(app.home) as evo:
                    assert evolution_edits.pin(evo, claim).ok
            self.asked.append(params.message)
            action = "decline" if "pinned" in params.message else "accept"
            from mcp.types import ElicitResult
            return ElicitResult(action=action,  # type: ignore[arg-type]
                                content={"confirm": True} if action == "accept" else None)

    person = Wary()
    kept = call(app, "learned_memory_edit", {"action": "forget", "id": claim}, person)
    assert kept["outcome"] == "cancelled" and len(person.asked) == 2
    assert "pinned" not in person.asked[0] and "pinned, last changed by event" in \
        person.asked[1]
    with Evolution(app.home) as evo:
        row = evo.claim(claim)
    assert row is not None and row.state == "provisional" and row.pinned


def test_a_handshake_clients_yes_to_a_claim_changed_meanwhile_changes_nothing(
        app: Waymarks, tmp_path: Path) -> None:
    """A review: on protocol 2025-11-25 (the initialize handshake; Claude Code may
    negotiate it) the SDK asks once and never compares questions, so a claim pinned while
    the person decided was forgotten on their yes to "Forget … (decision, provisional)".
    The tool records the question it asked and applies a yes only when the question,
    planned again, is the same: here it is refused, and the claim stays, pinned."""
    from waymarks.service import evolution_edits

    claim = _claim(app, tmp_path)

    def pin() -> None:
        with Evolution(app.home) as evo:
            assert evolution_edits.pin(evo, claim).ok

    person = Person(during=pin)  # says yes, after the claim was pinned meanwhile
    refused = call(app, "learned_memory_edit", {"action": "forget", "id": claim}, person,
                   mode="legacy")
    assert refused["outcome"] == "rejected" and refused["code"] == \
        "changed-since-confirmation"
    [asked] = person.asked
    assert "pinned" not in asked and "provisional" in asked
    with Evolution(app.home) as evo:
        row = evo.claim(claim)
    assert row is not None and row.state == "provisional" and row.pinned
    unchanged = Person()  # nothing changes meanwhile: the yes forgets it
    done = call(app, "learned_memory_edit", {"action": "forget", "id": claim}, unchanged,
                mode="legacy")
    assert done["outcome"] == "done" and "pinned" in unchanged.asked[0]
    with Evolution(app.home) as evo:
        assert evo.claim(claim).state == "forgotten"  # type: ignore[union-attr]


def test_a_search_never_sends_its_query_back(app: Waymarks, tmp_path: Path) -> None:
    """A review: the answer repeated the query to the model as written, a credential or
    a local-only span included, and took the history sentinel."""
    _claim(app, tmp_path)
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    for query in (f"token {token}", "[ds4:local-only]NIGHTOWL[/ds4:local-only] deploy"):
        found = call(app, "learned_memory", {"action": "search", "query": query})
        assert found["outcome"] == "ok" and "query" not in found
        assert token not in json.dumps(found) and "NIGHTOWL" not in json.dumps(found)
    refused = call(app, "learned_memory", {"action": "search",
                                           "query": "[waymarks:omitted] deploy"})
    assert refused["code"] == "egress-placeholder"


def test_a_forgotten_claim_reaches_the_model_by_id_and_state_only(
        app: Waymarks, tmp_path: Path) -> None:
    """After ``evolution forget``, ``list`` (scope all) gave the model the forgotten text
    and ``show`` all of it: forgotten claims never recall, and this answer goes to the
    model. The person's own listing still shows it."""
    from waymarks.service.evolution_inspect import list_claims, show

    claim = _claim(app, tmp_path)
    with Evolution(app.home) as evo:
        assert evo.forget(claim)
    listed = call(app, "learned_memory", {"action": "list", "scope": "all"})
    assert listed["claims"] == [{"id": claim, "state": "forgotten"}], listed
    shown = call(app, "learned_memory", {"action": "show", "id": claim})
    assert shown == {"outcome": "ok", "id": claim, "state": "forgotten"}, shown
    assert "Kamal" not in json.dumps([listed, shown])
    [own] = list_claims(app.home)["claims"]
    assert own["content"] == "Deployments use Kamal, not Capistrano"
    mine = show(app.home, claim)
    assert mine is not None and mine["content"] == own["content"]


@pytest.mark.slow
@pytest.mark.parametrize("in_its_place", ["directory", "fifo"])
def test_an_edit_with_an_unreadable_ledger_is_unavailable_not_nothing_learned(
        app: Waymarks, tmp_path: Path, in_its_place: str) -> None:
    """A learned ledger that cannot be read (a directory or a FIFO in its place) is the
    home's problem, named as the read tool and the CLI name it: the edit said "nothing has
    been learned yet" (``not_found``), as if the claim had never existed."""
    import os

    from waymarks.service.learning import ledger_path

    claim = _claim(app, tmp_path)
    ledger = ledger_path(app.home)
    aside = ledger.with_name("ledger.jsonl.aside")
    ledger.rename(aside)
    if in_its_place == "directory":
        ledger.mkdir()
    else:
        os.mkfifo(ledger)
    person = Person()
    read = call(app, "learned_memory", {"action": "list"}, person)
    edited = call(app, "learned_memory_edit", {"action": "forget", "id": claim}, person)
    assert (read["outcome"], read["category"]) == ("unavailable", "runtime-unavailable")
    assert edited == read  # the same code: the ledger, not the claim
    assert person.asked == []
    if in_its_place == "directory":
        ledger.rmdir()
    else:
        ledger.unlink()
    aside.rename(ledger)
    with Evolution(app.home) as evo:
        assert evo.claim(claim).state == "provisional"  # type: ignore[union-attr]
