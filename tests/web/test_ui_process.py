"""The real ``waymarks ui`` process as a person (or a program reading ``--json``) meets it
at its start and its end: each test failed before its fix."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.web.test_security import _printed_url, _stop, _waymarks


@pytest.mark.slow
def test_json_open_keeps_the_browsers_output_off_standard_output(
        home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`waymarks --json ui --open`: a browser command that writes (a terminal browser, a
    BROWSER script, a desktop launcher's "Opening in existing browser session.") wrote
    after the JSON line, on the standard output a program reads as JSON."""
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\nimport sys\nprint('browser: opening', "
                       f"flush=True)\nopen({str(opened)!r}, 'w').close()\n")
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", f"{browser} %s")
    process = _waymarks(home, project, "--json", "ui", "--open", "--port", "0")
    try:
        assert process.stdout is not None
        announced = json.loads(process.stdout.readline())
        assert announced["outcome"] == "serving"
        for _ in range(600):  # (bounded: the browser runs beside the server)
            if opened.exists() or process.poll() is not None:
                break
            time.sleep(0.1)
        assert opened.exists()
    finally:
        _stop(process)
    out, err = process.communicate(timeout=60)
    assert out == "", out
    assert "browser: opening" in err


def _serving(process: subprocess.Popen[str]) -> None:
    """Wait until the launched inspector answers its printed URL: the server's own signal
    handlers are in place. Its URL is printed before (the socket listens), while uvicorn
    is still imported; a Ctrl-C there is a KeyboardInterrupt, and one raised inside the
    ``exec`` of a dataclass's generated method made ``python -m`` (CPython 3.11) end the
    process by SIGINT after it had said "the inspector stopped" and exited 130."""
    with urllib.request.urlopen(_printed_url(process), timeout=60) as answer:
        assert answer.status == 200


@pytest.mark.slow
def test_ctrl_c_says_the_inspector_stopped(home: Path, project: Path) -> None:
    """Ctrl-C, the documented way to stop the inspector, said "interrupted; nothing more
    was done (a write that was under way is either whole or absent: `waymarks health`
    says all is well)", as if something had gone wrong."""
    process = _waymarks(home, project, "ui", "--port", "0")
    try:
        _serving(process)
    finally:
        _stop(process)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "waymarks: the inspector stopped" in err, err
    assert "nothing more was done" not in err and "health" not in err


@pytest.mark.slow
def test_a_wildcard_bind_prints_a_url_this_machine_can_open(home: Path,
                                                            project: Path) -> None:
    """`ui --host 0.0.0.0 --allow-remote` printed http://0.0.0.0:PORT/...: no browser
    reaches 0.0.0.0 (some refuse it outright). The URL names 127.0.0.1, and the note says
    to use this machine's address from another one."""
    process = _waymarks(home, project, "ui", "--host", "0.0.0.0", "--allow-remote",
                        "--port", "0")
    try:
        url = _printed_url(process)
        assert url.startswith("http://127.0.0.1:"), url
        with urllib.request.urlopen(url, timeout=60) as answer:
            assert answer.status == 200
        assert process.stdout is not None
        rest = [process.stdout.readline() for _ in range(2)]  # (the token's note first)
        assert "use this machine's address in place of 127.0.0.1" in rest[1], rest
    finally:
        _stop(process)


@pytest.mark.slow
@pytest.mark.parametrize(("sent", "status", "said"), [
    (signal.SIGINT, 130, "the inspector stopped (Ctrl-C)"),
    (signal.SIGTERM, 143, "the inspector stopped (SIGTERM)")])
def test_a_signal_says_the_inspector_stopped_when_ctrl_c_was_ignored_at_start(
        home: Path, project: Path, sent: int, status: int, said: str) -> None:
    """Started as a ``&`` job of a script (SIGINT ignored), the inspector stopped on
    SIGINT with status 0 and on SIGTERM with 143, both without a word: the server raised
    the signal again under the handler it found (ignored; or one that ended the process
    silently). Every signal that stops it is said, with its status."""
    process = _waymarks(home, project, "ui", "--port", "0",
                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        _serving(process)
        process.send_signal(sent)
        _, err = process.communicate(timeout=60)
    finally:
        _stop(process)
    assert process.returncode == status, err
    assert f"waymarks: {said}" in err, err


def _writing_turn_taken(home: Path) -> bool:
    """Whether a writer holds the home's turn (``waymarks.db.lock``): a page's write has
    begun, and now waits for SQLite's lock."""
    import fcntl

    with open(home / "waymarks.db.lock", "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(lock, fcntl.LOCK_UN)
        return False


@pytest.mark.slow
def test_ctrl_c_twice_stops_at_once_a_page_waiting_for_a_held_database(
        home: Path, project: Path) -> None:
    """Ctrl-C while an action waited for a database another process held: the process
    said nothing until the 30 s busy wait ended; a second Ctrl-C printed uvicorn's
    "Exception in ASGI application" traceback (CancelledError), the browser got a bare
    500, and the process still waited the 30 s. The first now says what it waits for,
    the second answers the page that it stopped and ends the process; nothing written."""
    import html
    import re
    import sqlite3
    import threading
    import urllib.error
    import urllib.parse

    from waymarks.cli.main import main

    assert main(["--home", str(home), "--cwd", str(project), "pin", "--",
                 "Run the tests"]) == 0
    process = _waymarks(home, project, "ui", "--port", "0")
    holder = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    answered: list[tuple[int, str]] = []
    try:
        url = urllib.parse.urlsplit(_printed_url(process))
        base = f"{url.scheme}://{url.netloc}"
        with urllib.request.urlopen(url.geturl(), timeout=60) as traded:
            cookie = traded.headers["set-cookie"].split(";")[0]
        page = urllib.request.Request(base + url.path, headers={"Cookie": cookie})
        with urllib.request.urlopen(page, timeout=60) as overview:
            found = re.search(r'name="csrf" value="([^"]+)"', overview.read().decode())
        assert found is not None
        form = urllib.parse.urlencode({"csrf": html.unescape(found.group(1)),
                                       "action": "pin", "confirmed": "yes",
                                       "text": "Lint before every commit"}).encode()
        act = urllib.request.Request(
            base + url.path.rstrip("/") + "/act", data=form,
            headers={"Cookie": cookie, "Origin": base,
                     "Content-Type": "application/x-www-form-urlencoded"})

        def post() -> None:
            try:
                with urllib.request.urlopen(act, timeout=120) as done:
                    answered.append((done.status, done.read().decode()))
            except urllib.error.HTTPError as refused:
                answered.append((refused.code, refused.read().decode()))

        holder.execute("BEGIN EXCLUSIVE")
        poster = threading.Thread(target=post)
        poster.start()
        while not _writing_turn_taken(home):  # the action waits on the held database
            assert poster.is_alive()
            threading.Event().wait(0.02)
        process.send_signal(signal.SIGINT)
        assert process.stderr is not None
        said = process.stderr.readline()
        assert "POST /act (pin)" in said and "Ctrl-C again stops now" in said, said
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=25)  # (the database is held 30 s and more)
        assert process.returncode == 130, err
        poster.join(60)
    finally:
        holder.close()  # (its write is rolled back)
        _stop(process)
    assert "Traceback" not in err and "the inspector stopped (Ctrl-C twice)" in err, err
    assert answered and answered[0][0] == 503, answered
    assert "The inspector stopped" in answered[0][1] and "was not made" in answered[0][1]
    texts = json.loads(subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--json", "pins"], cwd=project,
        env={**os.environ, "WAYMARKS_HOME": str(home)}, capture_output=True, text=True,
        check=True).stdout)
    assert [p["text"] for p in texts["items"]] == ["Run the tests"]


#: ``waymarks ui`` whose terminal sends SIGTERM the moment the URL is written to it (the
#: signal is handled before the write returns): the start-up gap, before the server's
#: own handlers, as deterministic as a race can be made
_TERM_ON_URL = """
import os, signal, sys
from waymarks.cli.main import main

class Terminal:
    def __init__(self, out):
        self.out = out
    def write(self, text):
        self.out.write(text)
        if "http://" in text:
            self.out.flush()
            os.kill(os.getpid(), signal.SIGTERM)
        return len(text)
    def __getattr__(self, name):
        return getattr(self.out, name)

sys.stdout = Terminal(sys.stdout)
sys.exit(main(["ui", "--port", "0"]))
"""


def test_a_sigterm_in_the_start_up_gap_says_the_inspector_stopped(
        home: Path, project: Path) -> None:
    """A SIGTERM right after the URL is printed, before the server's handlers are in
    place, ended the process without a word: killed by the default handler (status -15),
    or, once the launch's own handler was in place, a bare exit 143. It is said as a
    SIGTERM while serving is."""
    env = {**os.environ, "WAYMARKS_HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", _TERM_ON_URL], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert "http://" in done.stdout, done.stderr
    assert done.returncode == 143, done.stderr
    assert "waymarks: the inspector stopped (SIGTERM)" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
