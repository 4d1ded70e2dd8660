"""A writer stopped (Ctrl-Z) or hung while it holds a session file's lock: the others give
up after the busy timeout with an error naming the file, never wait for good.

The database writer's turn already gave up after its timeout, but the session file's own
``flock``, taken before it, was a blocking one: a second `memory add`, and `health`, were
still waiting 90 s later, with no message.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.ledger.session_file import SessionBusy
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def test_a_held_session_lock_is_given_up_after_the_busy_timeout(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app(busy_timeout_ms=400)
    assert isinstance(app.remember("The build uses make."), Committed)
    session = app.current_session()
    assert session is not None
    before = session.path.read_bytes()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(session.path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(SessionBusy) as refused:
            app.remember("The tests run with pytest.")
        assert time.monotonic() - started < 20  # not for good (the wait is 0.4 s)
        assert refused.value.filename == str(session.path)
        assert "held the session file for 0.4 s" in str(refused.value.strerror)
        assert session.path.read_bytes() == before  # nothing appended, nothing acknowledged
    finally:
        holder.kill()
        holder.wait()
    assert isinstance(app.remember("The tests run with pytest."), Committed)


def test_the_cli_reports_it_as_an_environment_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a person sees: exit 1 and one line naming the file and what to do."""
    from waymarks.cli.runner import perform

    def work(_state: object) -> None:
        raise SessionBusy(11, "another process has held the session file for 30 s "
                          "(a writer stopped with Ctrl-Z, or hung): let it finish or stop "
                          "it, then retry", str(tmp_path / "s.jsonl"))

    assert perform(work, want_json=False) == 1  # type: ignore[arg-type]
    said = capsys.readouterr().err
    assert "held the session file for 30 s" in said and str(tmp_path / "s.jsonl") in said
    assert "nothing was acknowledged" in said and "Traceback" not in said
