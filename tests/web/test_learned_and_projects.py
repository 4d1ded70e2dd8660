"""Learned claims in the inspector (listed, their page with events, forgotten through
the page as `learn forget` does) and switching to another known project of the home."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.web.conftest import log_in
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution

AT = "2030-01-01T00:00:00.000Z"


def _learn(home: Path, origin: str, tool: str = "Kamal") -> str:
    claim = {"kind": "decision", "content": f"Deployments use <b>{tool}</b>, not Capistrano",
             "searchTerms": ["deploy tool", tool.lower()]}
    with Evolution(home) as evo:
        source = evo.capture(origin, "statement", f"Remember: we deploy with {tool}",
                             session="s", key=f"k-{tool}")
        assert source is not None
        outcome = evo.apply(source.source_id, ModelReply(json.dumps({"claims": [claim]}),
                                                         "f", "m"), AT)
        assert outcome.code == "applied"
        return evo.claims(["provisional"])[-1].id


def _login(web: Any) -> tuple[Any, Any]:
    client, gate = web
    log_in(client, gate)
    return client, gate


@pytest.mark.slow
def test_a_learned_claim_is_listed_shown_and_forgotten_through_the_page(
        web: Any, home: Path, project: Path, cli: Callable[..., dict]) -> None:
    learned = _learn(home, str(project))
    client, gate = _login(web)
    overview = client.get("/").text
    assert f"/learned/{learned}" in overview
    assert "Deployments use &lt;b&gt;Kamal&lt;/b&gt;" in overview  # escaped
    assert re.search(r'status-provisional">.*?<td>\d+ d</td>', overview, re.DOTALL)  # aging
    page = client.get(f"/learned/{learned}").text
    assert "decision" in page and "user_statement/model" in page and "claim" in page
    assert client.get("/learned/not-a-claim").status_code == 404
    # typed in capitals, as the CLI takes it (the page said "No learned claim")
    assert "decision" in client.get(f"/learned/{learned.upper()}").text
    done = client.post("/act", data={"csrf": gate.csrf, "action": "forget", "id": learned,
                                     "confirmed": "yes"}).text
    assert f"Forgot {learned}" in done
    assert cli("learn", "list")["claims"] == []
    timeline = client.get("/timeline?kind=learned").text
    assert "forget" in timeline and learned[:8] in timeline
    # the day it was learned keeps its event (one event per claim, at its last change,
    # dropped it once the claim was forgotten: the web review)
    rows = re.findall(r'<tr><td>([^<]*)</td><td>(\w+)</td>[^\n]*\n<td><a href="[^"]*'
                      + learned, timeline)
    assert sorted(what for _at, what in rows) == ["forget", "learned"], rows


@pytest.mark.slow
def test_another_known_project_of_the_home_can_be_viewed(
        web: Any, home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    other.mkdir()
    env = {**os.environ, "WAYMARKS_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "memory", "add", "--",
                           "The other project builds with Bazel."], cwd=other, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    client, _gate = _login(web)
    assert str(other) in client.get("/").text  # offered in the project list
    page = client.get("/", params={"project": str(other)}).text
    assert "The other project builds with Bazel." in page
    assert "The database port is 5434." not in page  # this project's claims stay here
    assert client.get("/", params={"project": str(tmp_path / "unknown")}).status_code == 400
    # an action there shows the command that runs, --cwd and all: the bare command, typed
    # in a terminal, acted on whatever directory the person was in
    gate = _gate
    query = "?" + urlencode({"project": str(other)})
    form = {"csrf": gate.csrf, "action": "pin", "text": "Run bazel test first",
            "scope": "project"}
    asked = html.unescape(client.post("/confirm" + query, data=form).text)
    home_is = f"--home {home}"
    assert (f"waymarks {home_is} --cwd {other} pin --scope project -- 'Run bazel test "
            "first'") in asked
    done = client.post("/act" + query, data={**form, "confirmed": "yes"}).text
    assert f"waymarks {home_is} --cwd {other} pin --scope project" in done
    # the launch project's too (a re-read: pasted in another folder or with another
    # WAYMARKS_HOME, the bare command acted elsewhere)
    here = html.unescape(client.post("/confirm", data=form).text)
    assert f"waymarks {home_is} --cwd " in here
    assert "pin --scope project -- 'Run bazel test first'" in here


@pytest.mark.slow
def test_learned_claims_take_feedback_corrections_and_undo_through_the_page(
        web: Any, home: Path, project: Path, cli: Callable[..., dict]) -> None:
    learned = _learn(home, str(project))
    client, gate = _login(web)
    page = client.get(f"/learned/{learned}").text
    for verdict in ("useful", "unhelpful", "accurate", "incorrect"):
        assert f'value="{verdict}"' in page
    asked = client.post("/confirm", data={"csrf": gate.csrf, "action": "feedback",
                                          "id": learned, "verdict": "incorrect"}).text
    assert f"feedback -- {learned} incorrect" in asked  # the exact command, before anything

    def act(**form: str) -> str:
        return str(client.post("/act", data={"csrf": gate.csrf, "confirmed": "yes",
                                             **form}).text)

    act(action="feedback", id=learned, verdict="incorrect")
    assert cli("evolution", "show", learned)["state"] != "provisional"  # quarantined
    before = cli("evolution", "show", learned)["feedback"]
    refused = act(action="feedback", id=learned, verdict="splendid")
    assert "Refused" in refused and cli("evolution", "show", learned)["feedback"] == before
    events = cli("evolution", "history")["events"]
    latest = max(e["event"] for e in events)
    act(action="undo", event=str(latest))
    assert cli("evolution", "show", learned)["state"] == "provisional"
    act(action="correct", id=learned, text="Deployments use Kamal 2, not Capistrano")
    claims = cli("learn", "list")["claims"]
    assert any("Kamal 2" in c["content"] for c in claims)


@pytest.mark.slow
def test_projects_viewed_one_after_another_keep_a_bounded_number_of_databases_open(
        web: Any, home: Path, tmp_path: Path) -> None:
    """The inspector kept the service of every project viewed since its launch, each with
    its database connection (three descriptors, and SQLite's page cache): a launch left
    open while the person browses a home of many projects ran out of file descriptors
    (``EMFILE``) or memory. It keeps the most recently viewed ones, and closes the rest."""
    from waymarks.service.trust import TrustStore
    from waymarks.web.app import KEPT_PROJECTS

    projects = [tmp_path / f"viewed-{n:03d}" for n in range(KEPT_PROJECTS * 4)]
    trust = TrustStore(home)
    for viewed in projects:
        viewed.mkdir()
        trust.trust(str(viewed))  # known to the home: offered in the project list
    client, _gate = _login(web)
    first = client.get("/", params={"project": str(projects[0])})
    assert first.status_code == 200

    def descriptors() -> int:
        return len(os.listdir("/proc/self/fd"))

    for viewed in projects[1:KEPT_PROJECTS + 1]:  # the kept ones: all open now
        assert client.get("/", params={"project": str(viewed)}).status_code == 200
    full = descriptors()
    for viewed in projects[KEPT_PROJECTS + 1:]:
        assert client.get("/", params={"project": str(viewed)}).status_code == 200
    assert descriptors() <= full  # the least recently viewed were closed for each new one
    again = client.get("/", params={"project": str(projects[0])})  # reopened: works as new
    assert again.status_code == 200 and str(projects[0]) in again.text


def test_sections_cut_short_show_the_newest_and_count_them_all(
        web: Any, home: Path, project: Path, cli: Callable[..., dict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The overview shows at most SECTION_ROWS learned claims, sessions and docs passages.
    It showed the oldest learned claims under a count of all of them (the newest, the ones
    to check, never), counted the sources it had read (200 of more) and the docs it cut."""
    from waymarks.web import reads

    monkeypatch.setattr(reads, "SECTION_ROWS", 2, raising=False)  # (new with the fix)
    learned = [_learn(home, str(project), tool) for tool in ("Kamal", "Nomad", "Heroku")]
    for n in range(2):
        cli("session", "new")
        cli("memory", "add", "--", f"Session {n} keeps its own note.")
    sessions = [s["id"] for s in cli("session", "list")["sessions"]]  # oldest first
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    for name in ("alpha", "beta", "gamma"):
        (docs / f"{name}.md").write_text(f"# {name}\n\nThe {name} service is ours.\n",
                                         encoding="utf-8")
    client, _gate = _login(web)
    page = client.get("/").text

    def section(name: str, after: str) -> str:
        return page[page.index(f'id="{name}"'):page.index(f'id="{after}"')]

    claims = section("learned", "sources")
    assert '<span class="count">3</span>' in claims
    assert [c in claims for c in learned] == [False, True, True]  # the newest two
    assert "The newest 2 of 3 are shown; `waymarks learn list --all`" in claims
    sources = section("sources", "health")
    assert '<span class="count">over 2</span>' in sources
    assert [s in sources for s in sessions[-3:]] == [False, True, True]
    assert "`waymarks memory sources` lists them all" in sources
    passages = section("docs", "learned")
    assert '<span class="count">3</span>' in passages and "The first 2 of 3" in passages
    assert "alpha" in passages and "gamma" not in passages


@pytest.mark.slow
def test_a_learned_claims_page_lists_the_events_that_changed_it(
        web: Any, home: Path, project: Path, cli: Callable[..., dict]) -> None:
    """The page listed the events whose subject is the claim: an undo (whose subject is
    the event it undoes) changed the claim and was left out, so the feedback it undid
    still showed "applied" with an Undo button, and undoing that again was refused with
    "undo the later events first", naming an event the page did not show. It lists what
    `waymarks evolution show` lists: the events that changed the claim."""
    learned = _learn(home, str(project))
    client, _gate = _login(web)
    feedback = cli("feedback", learned, "incorrect")["event"]
    undo = cli("evolution", "undo", str(feedback))["event"]
    page = client.get(f"/learned/{learned}").text
    rows = [(int(seq), op) for seq, op in re.findall(r"<tr><td>(\d+)</td><td>(\w+)</td>",
                                                     page)]
    assert rows[-2:] == [(feedback, "feedback"), (undo, "undo")], rows
    shown = [e["event"] for e in cli("evolution", "show", learned)["events"]]
    assert sorted(seq for seq, _op in rows) == sorted(shown)
    # Undo is offered where `evolution undo` would take it: on the undo (the claim is as
    # it left it), not on the feedback it undid (refused: "changed after event N")
    offered = {int(seq) for seq in re.findall(
        r'name="action" value="undo">\s*<input type="hidden" name="event" value="(\d+)"', page)}
    assert undo in offered and feedback not in offered, (offered, feedback, undo)
    assert cli("evolution", "undo", str(feedback), expect=2)["code"] == "changed_since"
