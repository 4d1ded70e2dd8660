"""The inspector's pages and actions over a real home (TestClient, the real app): stored
text shown escaped and revealed, provenance, explain with privacy, confirmed actions that
run the CLI's commands, refusals with their conflicting IDs."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from markupsafe import escape

from tests.web.conftest import HOSTILE, log_in
from waymarks.web.app import reveal


def _client(web: Any) -> tuple[Any, Any]:
    client, gate = web
    log_in(client, gate)
    return client, gate


def test_the_overview_shows_every_section_with_stored_text_escaped(web: Any,
                                                                  seeded: dict[str, str]
                                                                  ) -> None:
    client, _gate = _client(web)
    page = client.get("/").text
    for section in ("pins", "memory", "personal", "docs", "learned", "sources", "health"):
        assert f'id="{section}"' in page
    for name, text in HOSTILE.items():
        assert str(escape(reveal(text))) in page, name  # shown as text
    assert "<script>alert" not in page and "<img src=x" not in page
    assert 'href="javascript:' not in page
    assert "\u202e" not in page and "\\u202e" in page  # the override is seen, not obeyed
    assert f'/item/memory/{seeded["port2"]}' in page


def test_the_item_page_shows_provenance_and_the_supersede_chain(web: Any,
                                                               seeded: dict[str, str]) -> None:
    client, _gate = _client(web)
    page = client.get(f"/item/memory/{seeded['port2'][:8]}").text
    chain = page[page.index('id="chain"'):page.index("</ol>", page.index('id="chain"'))]
    assert chain.index(seeded["port"][:8]) < chain.index(seeded["port2"][:8])  # oldest first
    assert "superseded" in chain and "ledger entry" in page and "db-port" in page
    assert client.get("/item/memory/ffffffff").status_code == 404
    assert client.get("/item/elsewhere/x").status_code == 404


def test_explain_shows_blocks_recall_and_what_privacy_withheld(web: Any,
                                                              seeded: dict[str, str]) -> None:
    client, gate = _client(web)
    assert client.get("/explain").status_code == 200
    page = client.post("/explain", data={"csrf": gate.csrf,
                                         "prompt": "which host is the staging database on",
                                         "provider": "remote"}).text
    withheld = page[page.index('id="withheld"'):]
    assert seeded["secretish"][:8] in withheld and "local-only not allowed" in withheld
    assert "quokka" not in page  # the withheld claim's text is shown nowhere on the page
    assert 'id="injected"' in page and "Recall explanation" in page
    assert client.post("/explain", data={"csrf": gate.csrf, "prompt": " "}).status_code == 400


def test_confirming_writes_nothing_and_acting_runs_the_cli_command(
        web: Any, seeded: dict[str, str], cli: Callable[..., dict]) -> None:
    client, gate = _client(web)
    form = {"csrf": gate.csrf, "action": "supersede", "id": seeded["port2"],
            "text": "--scope project The database port is 6000."}
    confirm = client.post("/confirm", data=form).text
    assert "memory supersede" in confirm and 'name="confirmed" value="yes"' in confirm
    assert cli("memory", "show", seeded["port2"])["item"]["status"] == "active"
    done = client.post("/act", data={**form, "confirmed": "yes"}).text
    assert "Recorded memory" in done
    shown = cli("memory", "show", seeded["port2"])
    assert shown["item"]["status"] == "superseded"
    newest = cli("memory", "show", shown["item"]["supersededBy"])["item"]
    assert newest["text"] == "--scope project The database port is 6000."  # text, not options
    assert client.post("/act", data=form).status_code == 400  # not confirmed: nothing done


def test_a_conflicting_supersede_is_refused_with_the_conflicting_ids(
        web: Any, cli: Callable[..., dict]) -> None:
    client, gate = _client(web)
    first = cli("memory", "add", "--", "Package export mode defaults to PerEndpoint.")["id"]
    other = cli("memory", "add", "--", "Deploys go to staging first.")["id"]
    done = client.post("/act", data={
        "csrf": gate.csrf, "action": "supersede", "id": other, "confirmed": "yes",
        "text": "Package export mode defaults to SingleFile."})
    assert done.status_code == 200
    assert "Refused (conflict)" in done.text
    assert re.search(rf'class="conflict" href="{gate.prefix}/item/memory/{first}"', done.text)
    assert cli("memory", "show", other)["item"]["status"] == "active"  # nothing changed


def test_status_actions_sources_and_learned_claims(web: Any, seeded: dict[str, str],
                                                  cli: Callable[..., dict]) -> None:
    client, gate = _client(web)
    done = client.post("/act", data={"csrf": gate.csrf, "action": "invalidate",
                                     "id": seeded["img"], "reason": "-x wrong",
                                     "confirmed": "yes"}).text
    assert "Invalidated" in done
    shown = cli("memory", "show", seeded["img"])["item"]
    assert shown["status"] == "invalid" and shown["reason"] == "-x wrong"
    unknown = client.post("/act", data={"csrf": gate.csrf, "action": "exclude",
                                        "id": "00000000", "confirmed": "yes"})
    assert unknown.status_code == 200 and "Refused (not_found)" in unknown.text
    forget = client.post("/act", data={"csrf": gate.csrf, "action": "forget",
                                       "id": "nothing", "confirmed": "yes"}).text
    assert "Refused (not_found)" in forget
    bad = client.post("/confirm", data={"csrf": gate.csrf, "action": "drop-table"})
    assert bad.status_code == 400 and "unknown action" in bad.text
    empty = client.post("/confirm", data={"csrf": gate.csrf, "action": "supersede", "id": "x"})
    assert empty.status_code == 400 and "fill in text" in empty.text
    long = client.post("/act", data={"csrf": gate.csrf, "action": "pin", "confirmed": "yes",
                                     "text": "x" * 20_001})
    assert long.status_code == 400 and "longer than 20,000" in long.text
    assert len(cli("pins")["items"]) == 1  # nothing was pinned


def test_the_timeline_plots_changes_and_filters_them(web: Any, seeded: dict[str, str]) -> None:
    client, _gate = _client(web)
    page = client.get("/timeline").text
    assert 'id="timeline-plot"' in page and 'class="bar-add"' in page
    assert 'class="bar-supersede"' in page
    pins_only = client.get("/timeline?kind=pin").text
    assert seeded["pin"][:8] in pins_only and seeded["port"][:8] not in pins_only
    assert "1 changes" in pins_only


def test_a_timeline_filter_it_does_not_know_is_refused_not_shown_as_any(
        web: Any, seeded: dict[str, str]) -> None:
    """A filter the page offers no choice for (a bookmark's `?kind=pins`, `?scope=global`)
    filtered out every change: the page said "0 changes" and "No changes match" under
    selects all showing "any". It is refused, naming the values; and a learned claim's
    state `conflicted`, which no choice named, is offered."""
    client, _gate = _client(web)
    for query, named in (("kind=pins", "pin, memory, learned"),
                         ("scope=global", "session, branch, project, learned"),
                         ("status=removed", "active")):
        answer = client.get(f"/timeline?{query}")
        assert answer.status_code == 400, query
        shown = html.unescape(answer.text)
        assert 'id="problem"' in shown and named in shown, query
        assert "timeline-plot" not in shown and "0 changes" not in shown, query
    page = client.get("/timeline").text
    assert '<option value="conflicted">' in page
    assert seeded["pin"][:8] in client.get("/timeline?kind=pin&status=active").text


@pytest.mark.slow
def test_memory_is_paged_and_other_projects_are_listed(web: Any, seeded: dict[str, str],
                                                      cli: Callable[..., dict]) -> None:
    client, _gate = _client(web)
    for n in range(60):
        cli("memory", "add", "--", f"Fact number {n} about the build cache.")
    first = client.get("/").text
    assert "Fact number 59" in first and "Fact number 5 " not in first
    assert "page 1 of 2" in first
    second = client.get("/?memory=2").text
    assert seeded["port"][:8] in second and "Fact number 59" not in second
    assert client.get("/?project=/nowhere/known").status_code == 400


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_the_pin_pages_links_say_which_way_they_go(web: Any, seeded: dict[str, str],
                                                   cli: Callable[..., dict]) -> None:
    """Pins are listed oldest first (memory newest first): the link to the second page of
    pins said "older" and led to the newer pins, and the way back said "newer"."""
    client, _gate = _client(web)
    for n in range(50):
        cli("pin", "--", f"Rule number {n} of the house style.")

    def pager(page: str) -> dict[str, tuple[str, str]]:
        pins = page[page.index('id="pins"'):page.index('id="memory"')]
        return {rel: (href, label) for rel, href, label in re.findall(
            r'<a rel="(\w+)" href="([^"]*)">(\w+)</a>', pins)}

    first = client.get("/").text
    assert seeded["pin"][:8] in first and "Rule number 49 " not in first  # oldest first
    [(href, label)] = pager(first).values()
    assert label == "newer", label
    second = client.get(html.unescape(href).split(_gate.prefix, 1)[1]).text
    assert "Rule number 49 " in second and seeded["pin"][:8] not in second
    assert pager(second)["prev"][1] == "older"


def test_a_session_started_while_the_inspector_runs_is_the_one_it_acts_on(
        web: Any, cli: Any) -> None:
    """The inspector stayed on the session its project had when it was first viewed:
    after ``waymarks session new`` a pin made on the page went to the old session, where
    no later command saw it. It follows the newest session, as each new command does."""
    client, gate = _client(web)

    def pin(text: str) -> str:
        done = client.post("/act", data={"csrf": gate.csrf, "action": "pin", "text": text,
                                         "confirmed": "yes"})
        assert done.status_code == 200, done.text
        [made] = [p for p in cli("pins")["items"] if p["text"] == text]
        return str(made["sessionId"])

    first = pin("Pinned in the first session")
    cli("session", "new")
    sessions = [s["id"] for s in cli("session", "list")["sessions"]]  # oldest first
    assert len(sessions) == 2 and sessions[0] == first
    assert pin("Pinned after the new session") == sessions[1]


def test_a_session_file_deleted_while_the_inspector_runs_is_let_go(
        web: Any, cli: Any) -> None:
    """With the only session's file deleted, the inspector kept the deleted one: its
    pages and actions failed until a command made a session. It lets it go, as a new
    command starts without one: the overview answers, and a pin made on the page goes
    to a new session, the one later commands act on."""
    from pathlib import Path

    client, gate = _client(web)
    assert client.get("/").status_code == 200  # bound to the session it views
    [only] = cli("session", "list")["sessions"]
    Path(only["path"]).unlink()
    assert client.get("/").status_code == 200
    done = client.post("/act", data={"csrf": gate.csrf, "action": "pin",
                                     "text": "Pinned after the session was deleted",
                                     "confirmed": "yes"})
    assert done.status_code == 200, done.text
    [made] = cli("session", "list")["sessions"]
    assert made["id"] != only["id"]
    assert [p["sessionId"] for p in cli("pins")["items"]
            if p["text"] == "Pinned after the session was deleted"] == [made["id"]]


def test_the_overview_names_a_personal_file_it_could_not_read(web: Any, home: Any) -> None:
    """``personal list`` names a file of the personal directory that is no entry, with
    why; the overview's section said "No personal memory." and left it out unseen."""
    client, _gate = _client(web)
    (home / "memory").mkdir(exist_ok=True)
    (home / "memory" / "bank.md").write_bytes(b"---\nname: Bank\xff\n---\n")
    page = client.get("/").text
    assert "bank.md" in page and "not UTF-8" in page
