"""Stop 51's review of the web inspector: each test failed before its fix."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.web.conftest import log_in
from waymarks.ledger.discovery import session_dir
from waymarks.service.trust import TrustStore


def test_an_unreadable_learned_ledger_leaves_pins_and_memory_on_the_pages(
        web: Any, home: Path) -> None:
    """The CLI goes on with pins and memory and a one-line note; the overview and the
    timeline of every project were an error page (500)."""
    client, gate = web
    log_in(client, gate)
    (home / "evolution").mkdir(exist_ok=True)
    (home / "evolution" / "ledger.jsonl").write_text("garbage\n")
    for path in ("/", "/timeline"):
        page = client.get(path)
        assert page.status_code == 200, page.text[:300]
        assert "the learned ledger cannot be read" in page.text
    assert "The database port is 5434." in client.get("/").text


def test_withheld_personal_entries_are_named_whole_and_not_linked_to_a_missing_page(
        web: Any, cli: Callable[..., dict]) -> None:
    """Each withheld entry is named apart (not cut to "personal"); a local-only one by the
    digest of its ID, as the log names it, never by its slug (made of its words)."""
    for name, text in (("Home address", "I live at 12 Secret Lane"),
                       ("Bank", "My bank is Foo")):
        cli("personal", "save", "--classification", "local-only", "--name", name, "--", text)
    client, gate = web
    log_in(client, gate)
    page = client.post("/explain", data={"csrf": gate.csrf, "prompt": "where do I live",
                                         "provider": "remote"}).text
    withheld = page[page.index('id="withheld"'):]
    named = set(re.findall(r"personal:digest-[0-9a-f]{16}", withheld))
    assert len(named) == 2 and "home-address" not in withheld and "bank" not in withheld
    assert "/item/memory/personal:" not in withheld


def test_a_source_entrys_type_and_time_show_control_characters_as_escapes(
        web: Any, cli: Callable[..., dict], home: Path, project: Path) -> None:
    [ledger] = sorted(session_dir(home, str(project)).glob("*.jsonl"))
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    entry = {"type": "message\u202e<b>x", "id": "beefcafe", "parentId": entries[-1]["id"],
             "timestamp": "2026-01-01T00:00:00Z\u202eLOL",
             "message": {"role": "user", "content": "hello"}}
    with ledger.open("a") as handle:
        handle.write(json.dumps(entry) + "\n")
    claim = cli("memory", "add", "--source", "beefcafe", "--", "Claim citing an entry")["id"]
    client, gate = web
    log_in(client, gate)
    page = client.get(f"/item/memory/{claim}").text
    [shown] = re.findall(r"Source entries</dt><dd>([^<]*)", page)
    assert "\u202e" not in shown and "\\u202e" in shown


def test_a_project_whose_folder_is_gone_is_refused_as_the_cli_refuses_it(
        web: Any, home: Path, tmp_path: Path) -> None:
    gone = tmp_path / "gone-project"
    gone.mkdir()
    TrustStore(home).trust(str(gone))
    client, gate = web
    log_in(client, gate)
    assert client.get("/", params={"project": str(gone)}).status_code == 200
    gone.rmdir()
    for answer in (client.get("/", params={"project": str(gone)}),
                   client.post("/act", params={"project": str(gone)},
                               data={"csrf": gate.csrf, "action": "memory-add",
                                     "confirmed": "yes", "text": "written into it"})):
        assert answer.status_code == 400 and "not a directory" in answer.text
    assert not session_dir(home, str(gone)).exists()


def test_a_directory_in_the_learned_ledgers_place_is_named_not_nothing_learned(
        web: Any, home: Path) -> None:
    """A directory (or a FIFO) in the learned ledger's place cannot be read either, and the
    CLI says so; the overview and the timeline showed no learned memory and no note, as in
    a home that never learned."""
    client, gate = web
    log_in(client, gate)
    (home / "evolution").mkdir(exist_ok=True)
    (home / "evolution" / "ledger.jsonl").mkdir()
    for path in ("/", "/timeline"):
        page = client.get(path)
        assert page.status_code == 200, page.text[:300]
        assert "the learned ledger cannot be read" in page.text, path
    assert "The database port is 5434." in client.get("/").text
