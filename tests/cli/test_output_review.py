"""What a command writes when its standard output cannot take it as it is: an encoding
that cannot hold a character, a ``Ctrl-C`` while the result is being written. Real
processes (the encoding is the interpreter's, the interrupt a real signal)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

MEMORY = "The café's database port is 5433 — staging first 🚀"


def _waymarks(home: Path, project: Path, *args: str, **env: str) -> \
        subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=project,
                          env={**os.environ, "WAYMARKS_HOME": str(home),
                               "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_CC_HELPER": "off",
                               **env},
                          capture_output=True, text=True, encoding="utf-8", timeout=120)


@pytest.fixture
def filled(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    assert _waymarks(home, project, "memory", "add", "--", MEMORY).returncode == 0
    return home, project


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_an_encoding_that_cannot_hold_a_character_has_it_written_escaped(
        filled: tuple[Path, Path]) -> None:
    """``PYTHONIOENCODING=ascii waymarks recall database | cat`` ended in a
    ``UnicodeEncodeError`` traceback (the marker's dash), exit 1."""
    home, project = filled
    utf8 = _waymarks(home, project, "recall", "database port")
    ascii_ = _waymarks(home, project, "recall", "database port", PYTHONIOENCODING="ascii")
    assert (ascii_.returncode, ascii_.stderr) == (0, "")
    assert MEMORY in utf8.stdout and ascii_.stdout.isascii()
    assert ascii_.stdout == utf8.stdout.encode("ascii", "backslashreplace").decode()
    assert "caf\\xe9's database port is 5433 \\u2014 staging first \\U0001f680" in \
        ascii_.stdout


@pytest.mark.parametrize("command", [["recall", "database port"], ["memory"]])
@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_json_in_an_encoding_that_cannot_hold_a_character_is_the_same_document(
        filled: tuple[Path, Path], command: list[str]) -> None:
    home, project = filled
    utf8 = _waymarks(home, project, "--json", *command)
    ascii_ = _waymarks(home, project, "--json", *command, PYTHONIOENCODING="ascii")
    assert (ascii_.returncode, ascii_.stderr) == (0, "")
    assert ascii_.stdout.isascii() and ascii_.stdout.count("\n") == 1
    assert json.loads(ascii_.stdout) == json.loads(utf8.stdout)
    assert "caf\\u00e9" in ascii_.stdout and "\\ud83d\\ude80" in ascii_.stdout


@pytest.mark.slow
def test_ctrl_c_while_the_result_is_written_is_an_interrupt(tmp_path: Path) -> None:
    """A ``Ctrl-C`` that came while the result was being written printed a
    ``KeyboardInterrupt`` traceback (exit 1) instead of what every interrupt says (exit
    130). The output is a pipe of 4 KiB no one reads until the signal was sent."""
    import fcntl
    import termios
    import time

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    for n in range(3):
        assert _waymarks(home, project, "pin", "--", f"Pin {n}: " + "x" * 3000).returncode == 0
    reader, writer = os.pipe()
    fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, 4096)  # (its least: the listing is ~9 KB)
    process = subprocess.Popen(
        [sys.executable, "-m", "waymarks.cli.main", "--json", "pins"], cwd=project,
        stdout=writer, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CLI_HELPER": "off"})
    os.close(writer)
    try:
        size = bytearray(4)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until the pipe is full: it waits, writing
            fcntl.ioctl(reader, termios.FIONREAD, size)
            if int.from_bytes(size, sys.byteorder) == 4096:
                break
            time.sleep(0.05)
        assert int.from_bytes(size, sys.byteorder) == 4096, "it writes, and waits"
        process.send_signal(signal.SIGINT)
        with os.fdopen(reader, "rb") as pipe:
            reader = -1
            pipe.read()  # (the rest of what it had written: it ends)
        _, errors = process.communicate(timeout=60)
    finally:
        if reader != -1:
            os.close(reader)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, errors
    assert "Traceback" not in errors
    assert errors.startswith("waymarks: interrupted") and errors.count("\n") == 1
