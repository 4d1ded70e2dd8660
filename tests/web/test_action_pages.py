"""The pages of an action (the question, what was done), as a review of the inspector
found them; each test failed before its fix."""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.web.conftest import PrefixedIds, log_in
from waymarks.service.app import Waymarks
from waymarks.service.trust import TrustStore
from waymarks.web.app import build_app


def _shown(page: str, pattern: str) -> list[str]:
    """The command line a page shows (found by ``pattern``), as a shell splits it."""
    [shown] = re.findall(pattern, page)
    return shlex.split(html.unescape(shown))


def test_an_actions_url_is_kept_out_of_history_and_a_get_of_it_goes_to_the_overview(
        web: Any, home: Path, tmp_path: Path) -> None:
    """htmx's boost pushed ``/confirm`` and ``/act`` into the browser's history, and the
    routes took POST only: a reload or Back after any action was "Method Not Allowed"."""
    client, gate = web
    log_in(client, gate)
    form = {"csrf": gate.csrf, "action": "pin", "text": "Answer in English."}
    headers = {"HX-Request": "true", "HX-Boosted": "true"}
    asked = client.post("/confirm", data=form, headers=headers)
    done = client.post("/act", data={**form, "confirmed": "yes"}, headers=headers)
    refused = client.post("/act", data={**form, "action": "nothing"}, headers=headers)
    for answer in (asked, done, refused):
        assert answer.headers["HX-Push-Url"] == "false", answer.status_code
    assert "Pinned pin" in done.text
    other = tmp_path / "other"
    other.mkdir()
    TrustStore(home).trust(str(other))
    for path in ("/confirm", "/act"):
        back = client.get(path)
        assert back.status_code == 303 and back.headers["location"] == gate.prefix + "/"
        there = client.get(path, params={"project": str(other), "x": "y"})
        assert there.status_code == 303
        landed = client.get(there.headers["location"].removeprefix(gate.prefix))
        assert landed.status_code == 200 and str(other) in landed.text
        assert "x=y" not in there.headers["location"]


def test_an_inspector_started_on_a_session_shows_it_on_the_command_and_the_question(
        seeded: dict[str, str], home: Path, project: Path, gate: Any,
        cli: Callable[..., dict]) -> None:
    """Under ``waymarks --session X ui`` the pages showed the command without
    ``--session``: typed in a terminal, it acted on the newest session, not on the one the
    inspector acts on; and the question never named that session."""
    from starlette.testclient import TestClient

    [first] = [s["id"] for s in cli("session", "list")["sessions"]]
    newest = cli("session", "new")["session"]["id"]
    with Waymarks(home, cwd=str(project), session=first[:8]) as app:
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        form = {"csrf": gate.csrf, "action": "pin", "text": "Answer in English."}
        asked = client.post("/confirm", data=form).text
        line = _shown(asked, r'id="command-line">([^<]*)<')
        where = ["--home", str(home), "--cwd", str(project)]
        assert line == ["waymarks", *where, "--session", first, "pin", "--scope", "session",
                        "--", "Answer in English."]
        assert first in asked[asked.index('id="session"'):asked.index('id="command-line"')]
        done = client.post("/act", data={**form, "confirmed": "yes"}).text
        assert _shown(done, r"Ran: <code>([^<]*)<")[:7] == ["waymarks", *where, "--session",
                                                               first]
    # the command shown, typed in a terminal, acts where the page acted: on that session
    again = cli(*line[5:-1], "Answer in French.")
    assert again["outcome"] == "committed"
    pinned = [p["text"] for p in cli("--session", first, "pins")["items"]]
    assert "Answer in English." in pinned and "Answer in French." in pinned
    assert cli("--session", newest, "pins")["items"] == []


def test_an_inspector_following_the_newest_session_shows_no_session(
        web: Any, cli: Callable[..., dict], home: Path, project: Path) -> None:
    client, gate = web
    log_in(client, gate)
    asked = client.post("/confirm", data={"csrf": gate.csrf, "action": "pin",
                                          "text": "Answer in English."}).text
    assert "--session" not in asked and 'id="session"' not in asked
    # its home and project always (a re-read: a `--home`/`--cwd` launch showed neither,
    # and pasted where WAYMARKS_HOME or the folder differ the command answered not_found)
    assert _shown(asked, r'id="command-line">([^<]*)<') == [
        "waymarks", "--home", str(home), "--cwd", str(project), "pin", "--scope", "session",
        "--", "Answer in English."]


def test_the_command_shown_is_the_one_a_shell_would_run(
        web: Any, home: Path, tmp_path: Path) -> None:
    """The command line was shown unquoted: a text with ``;`` and ``$(…)`` pasted into a
    shell ran another command, and a project folder with a space split in two."""
    client, gate = web
    log_in(client, gate)
    other = tmp_path / "my project"
    other.mkdir()
    TrustStore(home).trust(str(other))
    text = "Build with make; then run $(cat ~/.ssh/id_rsa) never"
    form = {"csrf": gate.csrf, "action": "pin", "text": text}
    there = {"project": str(other)}
    asked = client.post("/confirm", params=there, data=form).text
    typed = ["waymarks", "--home", str(home), "--cwd", str(other), "pin", "--scope",
             "session", "--", text]
    assert _shown(asked, r'id="command-line">([^<]*)<') == typed
    done = client.post("/act", params=there, data={**form, "confirmed": "yes"}).text
    assert _shown(done, r"Ran: <code>([^<]*)<") == typed
    # a character that is not printable is shown as an escape, in bash's $'…', which a
    # shell reads back to that very character (before: shown as `\u202e` inside plain
    # quotes, so a folder with a zero-width joiner pasted was another folder)
    hidden = client.post("/confirm", data={**form, "text": "Notes \u202egnp.exe"}).text
    [shown] = re.findall(r'id="command-line">([^<]*)<', hidden)
    assert "\u202e" not in shown
    # in any locale: bash's \u202e is that character only where the locale's encoding holds
    # it (in the C locale of a container or a bare ssh session bash printed "\u202E" itself,
    # another text: found running the suite with LC_ALL=C); its UTF-8 bytes are read alike
    for locale in ("C.UTF-8", "C"):
        read = subprocess.run(["bash", "-c", "printf '%s\\n' " + html.unescape(shown)],
                              capture_output=True, check=True,
                              env={**os.environ, "LC_ALL": locale}).stdout
        assert read.decode().splitlines()[-1] == "Notes \u202egnp.exe", locale
    assert "$'Notes \\xe2\\x80\\xaegnp.exe'" in html.unescape(shown)  # (its bytes)


def test_an_item_whose_id_starts_with_a_dash_can_be_acted_on(
        home: Path, project: Path, gate: Any, cli: Callable[..., dict]) -> None:
    """The page refused every action on such an item ("id cannot start with '-'"), while
    ``waymarks unpin -- -dash`` works: the command line now puts ``--`` before the ID."""
    from starlette.testclient import TestClient

    with Waymarks(home, cwd=str(project), ids=PrefixedIds("--help-")) as app:
        pin = app.pin("Answer in English.").id
        claim = app.remember("The deploy host is kestrel-nine.").id
        assert pin.startswith("--help-") and claim.startswith("--help-")
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        for form in ({"action": "unpin", "id": pin, "reason": "-x done"},
                     {"action": "invalidate", "id": claim}):
            form = {"csrf": gate.csrf, **form}
            asked = client.post("/confirm", data=form)
            assert asked.status_code == 200 and 'id="confirm-submit"' in asked.text, asked.text
            line = _shown(asked.text, r'id="command-line">([^<]*)<')
            assert line[line.index("--") + 1] == form["id"]
            done = client.post("/act", data={**form, "confirmed": "yes"})
            assert done.status_code == 200 and "Refused" not in done.text, done.text
    assert [i["status"] for i in cli("pins", "--status", "deleted")["items"]
            if i["id"] == pin] == ["deleted"]
    assert cli("memory", "show", "--", claim)["item"]["status"] == "invalid"


def test_the_launch_projects_own_folder_gone_is_refused_as_the_cli_refuses_it(
        home: Path, tmp_path: Path, gate: Any) -> None:
    """Another project whose folder is gone was refused, the launch's own was not: the
    overview answered, and an action wrote into the gone project's records."""
    from starlette.testclient import TestClient

    launch = tmp_path / "launch-project"
    launch.mkdir()
    with Waymarks(home, cwd=str(launch)) as app:
        app.remember("The launch project builds with make.")
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        assert client.get("/").status_code == 200
        launch.rmdir()
        for answer in (client.get("/"),
                       client.post("/act", data={"csrf": gate.csrf, "action": "memory-add",
                                                 "confirmed": "yes",
                                                 "text": "written into it"})):
            assert answer.status_code == 400 and "not a directory" in answer.text
        assert [v.text for v in app.items("memory")] == ["The launch project builds with make."]


def test_a_project_listed_under_a_symlinked_path_opens_and_its_links_work(
        web: Any, home: Path, tmp_path: Path) -> None:
    """A session header naming its project through a symbolic link (a foreign ledger's,
    as written) listed the link; the page opened the project by its real path, every
    link on it carried that path, and each answered 400 "Unknown project"."""
    from waymarks.ledger.discovery import session_dir
    from waymarks.ledger.session_file import SessionFile

    real = tmp_path / "p7"
    real.mkdir()
    link = tmp_path / "p7link"
    link.symlink_to(real)
    folder = session_dir(home, str(link))
    folder.mkdir(parents=True)
    SessionFile.create(folder / "2026-01-01T00-00-00-000Z_26125215-2c3c-47f9-b851-"
                       "8554ab7da0b7.jsonl", "26125215-2c3c-47f9-b851-8554ab7da0b7",
                       "2026-01-01T00:00:00.000Z", str(link))
    client, gate = web
    log_in(client, gate)
    offered = [html.unescape(v) for v in re.findall(r'<option value="([^"]*)"',
                                                   client.get("/").text)]
    [chosen] = [p for p in offered if Path(p).resolve() == real]
    page = client.get("/", params={"project": chosen})
    assert page.status_code == 200
    assert re.search(r'<option value="[^"]*" selected>', page.text)  # shown as chosen
    links = {html.unescape(h) for h in re.findall(r'href="([^"]*project=[^"]*)"', page.text)}
    assert links
    for href in links:
        answer = client.get(href.removeprefix(gate.prefix))
        assert answer.status_code == 200, (href, answer.text[-400:])


def test_a_home_moved_away_while_the_inspector_runs_is_named_never_made_anew(
        home: Path, project: Path, tmp_path: Path, gate: Any) -> None:
    """One page answered "could not answer (FileNotFoundError)", the next made a new,
    empty home at the path and showed it, and an action wrote into it."""
    from starlette.testclient import TestClient

    with Waymarks(home, cwd=str(project)) as app:
        app.remember("The port is 5433.")
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        assert "The port is 5433." in client.get("/").text
        home.rename(tmp_path / "moved-home")
        for answer in (client.get("/"), client.get("/timeline"), client.get("/"),
                       client.post("/act", data={"csrf": gate.csrf, "confirmed": "yes",
                                                 "action": "memory-add", "text": "x"})):
            assert answer.status_code == 500
            assert f"{home}: the Waymarks home this inspector was started on is gone" in (
                html.unescape(answer.text))
        assert not home.exists()


def test_an_inspector_started_before_the_home_exists_makes_it_on_the_first_action(
        home: Path, project: Path, gate: Any) -> None:
    from starlette.testclient import TestClient

    assert not home.exists()
    with Waymarks(home, cwd=str(project)) as app:
        client = TestClient(build_app(app, gate), follow_redirects=False,
                            base_url="http://testserver" + gate.prefix)
        log_in(client, gate)
        done = client.post("/act", data={"csrf": gate.csrf, "confirmed": "yes",
                                         "action": "memory-add", "text": "The port is 5."})
        assert done.status_code == 200 and "Recorded" in done.text
        assert "The port is 5." in client.get("/").text
