"""The real ``waymarks ui`` process as a person (or a program reading ``--json``) meets it
at its start and its end: each test failed before its fix."""

from __future__ import annotations

import json
import signal
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


@pytest.mark.slow
def test_ctrl_c_says_the_inspector_stopped(home: Path, project: Path) -> None:
    """Ctrl-C, the documented way to stop the inspector, said "interrupted; nothing more
    was done (a write that was under way is either whole or absent: `waymarks health`
    says all is well)", as if something had gone wrong."""
    process = _waymarks(home, project, "ui", "--port", "0")
    _printed_url(process)
    _stop(process)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
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
        with urllib.request.urlopen(_printed_url(process), timeout=60) as answer:
            assert answer.status == 200  # serving: its handlers are in place
        process.send_signal(sent)
        _, err = process.communicate(timeout=60)
    finally:
        _stop(process)
    assert process.returncode == status, err
    assert f"waymarks: {said}" in err, err
