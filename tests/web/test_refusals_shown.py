"""What a refusal looks like in the browser, and the pages the review found rendering the
wrong thing: htmx 2 swaps no 4xx/5xx answer by default, so the inspector's configuration
must swap them (or every refusal would look like a click that did nothing); ``/confirm``
for an unknown project is a problem page, not a confirmation for the launch project; an
engineering doc's status is stored text and shown through ``reveal``."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.web.test_pages import _client


def _htmx_config(page: str) -> dict[str, Any]:
    found = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", page)
    assert found, "no htmx-config meta"
    config: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return config


def _handling(config: dict[str, Any], status: int) -> dict[str, Any]:
    """The rule htmx 2 applies to ``status``: the first whose ``code`` (a regular
    expression, unanchored, as htmx tests it) matches; none is ``swap: false``."""
    for rule in config.get("responseHandling", []):
        if re.search(rule["code"], str(status)):
            return dict(rule)
    return {"swap": False}


def test_htmx_swaps_refusals_and_errors_into_the_page(web: Any) -> None:
    client, gate = _client(web)
    config = _htmx_config(client.get("/").text)
    assert config["selfRequestsOnly"] is True and config["allowEval"] is False
    for status in (200, 303, 400, 401, 403, 404, 413, 415, 500):
        rule = _handling(config, status)
        # swapped, and not flagged as an error (htmx logs errors to the console)
        assert rule["swap"] is True and not rule.get("error"), status
    assert _handling(config, 204)["swap"] is False
    # the refusals it now swaps are whole pages saying what happened
    refused = client.post("/act", data={"csrf": gate.csrf, "action": "pin", "text": "x"})
    assert refused.status_code == 400
    assert 'id="problem"' in refused.text and "Not confirmed" in refused.text
    assert "<main>" in refused.text  # the page's layout, swapped whole into the body


def test_confirm_for_an_unknown_project_is_a_problem_page(web: Any,
                                                          seeded: dict[str, str]) -> None:
    client, gate = _client(web)
    form = {"csrf": gate.csrf, "action": "unpin", "id": seeded["pin"]}
    answer = client.post("/confirm?project=/nowhere/known", data=form)
    assert answer.status_code == 400 and "Unknown project" in answer.text
    assert "confirm-form" not in answer.text and "/act" not in answer.text
    known = client.post("/confirm", data=form)
    assert known.status_code == 200 and "confirm-form" in known.text


def test_an_engineering_docs_status_is_shown_revealed(
        web: Any, project: Path, cli: Callable[..., dict]) -> None:
    decisions = project / "docs" / "engineering" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "ADR-0001-deploy-tool.md").write_text(
        "---\nid: ADR-0001\ntitle: Deploy tool\nstatus: Accepted \u202egnp.exe\u202c "
        "<b>now</b>\ndecision: Deploy with Kamal\n---\n\n# Context\n\nWe deploy often.\n",
        encoding="utf-8")
    client, _gate = _client(web)
    page = client.get("/").text
    docs = page[page.index('id="docs"'):page.index('id="learned"')]
    assert "Deploy with Kamal" in docs
    assert "Accepted \\u202egnp.exe\\u202c &lt;b&gt;now&lt;/b&gt;" in docs
    assert "\u202e" not in page


def test_an_unmarked_docs_passage_shows_the_level_plans_give_it(
        web: Any, home: Path, project: Path) -> None:
    """Under ``defaultClassification = "local-only"`` a plan holds unmarked docs back as
    ``local-only``; the overview's Level column said ``normal`` (it read them at
    ``normal`` whatever the policy), so the page told the person they went out."""
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "deploys.md").write_text("# Deploys\n\nThe release train leaves on Tuesdays.\n",
                                     encoding="utf-8")
    (docs / "public.md").write_text("# Public\n\n[ds4:sensitive]The API is REST.[/ds4:sensitive]\n",
                                    encoding="utf-8")
    client, _gate = _client(web)

    def levels() -> dict[str, str]:
        page = client.get("/").text
        section = page[page.index('id="docs"'):page.index('id="learned"')]
        return dict(re.findall(r"<tr><td>docs/engineering/(\w+)\.md#[^<]*</td><td>[^<]*"
                               r"</td><td>([\w-]+)</td>", section))

    assert levels() == {"deploys": "normal", "public": "sensitive"}
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "local-only"\n',
                                      encoding="utf-8")
    assert levels() == {"deploys": "local-only", "public": "local-only"}


def test_an_id_that_looks_like_an_option_is_an_id_never_help(tmp_path: Path) -> None:
    """``id=-h`` made the command line print its help: the action raised and the server
    answered 500 (with a traceback, and without the gate's headers). Every field is an
    argument after ``--`` now: an ID of ``-h`` is an ID (no such item here), as
    ``waymarks unpin -- -h`` takes it."""
    from waymarks.service.app import Waymarks
    from waymarks.web.actions import command_line, run

    project = tmp_path / "project"
    project.mkdir()
    with Waymarks(tmp_path / "home", cwd=str(project)) as app:
        for name, form in (("unpin", {"id": "-h"}),
                           ("feedback", {"id": "--help", "verdict": "x"}),
                           ("forget", {"id": "--help"}), ("undo", {"event": "-h"}),
                           ("feedback", {"id": "abc", "verdict": "--json"})):
            _action, line = command_line(name, form)
            done = run(app, line)
            assert done.refused and done.data["message"] != "not an action", (name, done)
        done = run(app, ["unpin", "--help"])  # a line made any other way: refused
    assert done.refused and done.data["code"] == "invalid_argument"


def test_a_key_field_that_looks_like_help_is_a_key(tmp_path: Path) -> None:
    """An option's value of ``-h`` is help on the command line; the page's key field is a
    key whatever it holds: the action records it, as the field says, and is not refused
    as "not an action"."""
    from waymarks.service.app import Waymarks
    from waymarks.web.actions import command_line, run

    project = tmp_path / "project"
    project.mkdir()
    _action, line = command_line("memory-add", {"text": "The port is 5433.", "key": "--help"})
    with Waymarks(tmp_path / "home", cwd=str(project)) as app:
        done = run(app, line)
        assert not done.refused, done
        assert [(v.key, v.text) for v in app.items("memory")] == [
            ("help", "The port is 5433.")]


def test_a_credential_refused_is_not_shown_again_in_the_command(web: Any) -> None:
    """A pin or claim typed with an API key in it was refused (`credential`, nothing
    stored), and the page then printed the key whole in the command it had checked,
    where the CLI's refusal never repeats it: the command is shown redacted."""
    client, gate = _client(web)
    key = "sk-ant-api03-" + "Zq7RmX2vLp9Tn4Wc" * 6
    for action, extra in (("pin", {}), ("memory-add", {"key": "deploy"})):
        form = {"csrf": gate.csrf, "action": action, "text": f"Deploy with {key} today",
                **extra}
        for route in ("/confirm", "/act"):
            answer = client.post(route, data={**form, "confirmed": "yes"})
            assert "Refused (credential)" in html.unescape(answer.text), route
            assert key not in answer.text and key[:20] not in answer.text, route
            assert "[REDACTED:" in answer.text, route
    # a command the page is about to run is shown as it will run (nothing redacted)
    asked = client.post("/confirm", data={"csrf": gate.csrf, "action": "pin",
                                          "text": "Keep sk-style names out"})
    assert "Keep sk-style names out" in html.unescape(asked.text)


def test_an_engineering_doc_no_plan_reads_is_named_on_the_overview(
        web: Any, project: Path) -> None:
    """A doc of `docs/engineering` over 1 MB (or not UTF-8) is read by no plan: the
    overview left it out without a word, its count and table as if the folder held only
    the others (`team status` lists it). It is named among the page's problems."""
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "small.md").write_text("# Build\n\nThe build uses make.\n")
    (docs / "big.md").write_text("# Big\n\n" + "The deploy runs nightly.\n\n" * 50_000)
    (docs / "latin1.md").write_bytes("# Caf\xe9\n\nNot UTF-8.\n".encode("latin-1"))
    client, _gate = _client(web)
    page = html.unescape(client.get("/").text)
    assert "docs/engineering/small.md" in page
    problems = re.findall(r'<p class="refusal">([^<]*)</p>', page)
    for name in ("docs/engineering/big.md", "docs/engineering/latin1.md"):
        assert any(name in p and "not read" in p for p in problems), (name, problems)
    assert not any("small.md" in p for p in problems)


def test_an_engineering_doc_left_unread_is_named_with_its_own_reason(
        web: Any, project: Path) -> None:
    """Each doc no plan reads was named with every reason one may have ("larger than
    1,000,000 bytes, not UTF-8, not a regular file or a link out of the project"), the
    person left to guess which to fix, where docs/web.md says it is named "with why"."""
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "big.md").write_text("# Big\n\n" + "The deploy runs nightly.\n\n" * 50_000)
    (docs / "latin1.md").write_bytes("# Caf\xe9\n\nNot UTF-8.\n".encode("latin-1"))
    (docs / "folder.md").mkdir()
    (docs / "gone.md").symlink_to(project / "nowhere.md")
    client, _gate = _client(web)
    page = html.unescape(client.get("/").text)
    problems = {p.split(":", 2)[2].split(": ", 1)[0].strip(): p.rsplit(": ", 1)[1]
                for p in re.findall(r'<p class="refusal">([^<]*)</p>', page)
                if "engineering docs" in p}
    assert problems == {"docs/engineering/big.md": "larger than 1,000,000 bytes",
                        "docs/engineering/latin1.md": "not UTF-8",
                        "docs/engineering/folder.md": "not a regular file",
                        "docs/engineering/gone.md": "missing, or a link to nothing"
                        }, problems
