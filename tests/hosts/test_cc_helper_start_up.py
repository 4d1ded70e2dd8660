"""A new helper did its start-up work (the capture requests queued while no helper ran,
the recovery tick's start: ~0.3-0.5 s of imports and database opening) after it put its
socket in place and before it took a connection. A hook that found the socket waited for
all of it; on a loaded machine past its 4 s, and the prompt went the slow way in its own
process (``test_cc_helper_idle`` failed so at load 12). The helper serves as soon as it
listens now, the start-up work on a thread of its own.

The start-up work here is held at a barrier the test opens only after the hooks were
answered: no clock decides."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymarks.hosts import cc_client, cc_helper, cc_helper_start
from waymarks.service.app import Waymarks


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The helper's start-up drain, held until the first event is set; the second is set
    once the real drain ran after it."""
    release, drained = threading.Event(), threading.Event()
    real = cc_helper_start.drain_spool

    def drain(home: Path) -> None:
        release.wait(300)
        real(home)
        drained.set()

    monkeypatch.setattr(cc_helper_start, "drain_spool", drain)
    try:
        yield release, drained
    finally:
        release.set()


def _serving(home: Path) -> tuple[threading.Thread, Path]:
    served = threading.Thread(target=cc_helper.serve, args=(home, 600.0), daemon=True)
    served.start()
    socket = Path(cc_client.socket_path(home))
    for _ in range(6000):
        if socket.exists() or not served.is_alive():
            break
        threading.Event().wait(0.05)
    assert socket.exists()
    return served, socket


@pytest.mark.usefixtures("steady_code")  # (tests/hosts/conftest.py)
def test_a_new_helper_answers_hooks_before_its_start_up_work_is_done(
        home: Path, project: Path,
        held: tuple[threading.Event, threading.Event]) -> None:
    release, drained = held
    sid = str(uuid.uuid4())
    served, socket = _serving(home)
    try:
        assert cc_client._ask(home, "ping", b"") is not None
        start = json.dumps({"session_id": sid, "cwd": str(project),
                            "hook_event_name": "SessionStart"}).encode()
        assert cc_client._ask(home, "SessionStart", start, str(project)) is not None
        with Waymarks(home, cwd=str(project), session=sid) as app:  # bound by the helper
            app.pin("Always tag releases from main")
        prompt = json.dumps({"session_id": sid, "cwd": str(project), "prompt": "ship it?",
                             "hook_event_name": "UserPromptSubmit"}).encode()
        answer = cc_client._ask(home, "UserPromptSubmit", prompt, str(project))
        assert answer is not None  # the helper did the prompt, not the hook's process
        assert "Always tag releases from main" in answer
    finally:
        release.set()
    assert drained.wait(300)  # and its start-up work is still done
    socket.unlink()  # (the helper leaves once its socket is not its own)
    served.join(300)
    assert not served.is_alive()


def test_a_drain_with_nothing_queued_opens_no_evolution_state(home: Path) -> None:
    """Every new helper opened the warm evolution state (imports, the database: ~0.3 s of
    a 0.45 s start) to drain a spool with nothing in it; the requests are counted first
    now, as the drain after a prompt did."""
    from waymarks.hosts import claude_code_capture

    home.mkdir()
    try:
        cc_helper_start.drain_spool(home)
        assert home not in claude_code_capture._WARM
    finally:
        claude_code_capture.drop_warm(home)


def test_a_start_up_drain_that_fails_otherwise_still_starts_recovery(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A start-up drain that raised anything but a database or file error (a decoder's
    ``ValueError`` on a damaged request) skipped the recovery tick's start, and the helper
    then ran without recovery for its whole life: every prompt's poll saw ``None``."""
    home.mkdir()
    started = object()

    def drain(_home: Path) -> None:
        raise ValueError("a damaged capture request")

    monkeypatch.setattr(cc_helper_start, "drain_spool", drain)
    monkeypatch.setattr(cc_helper_start, "start_recovery", lambda _home: started)
    assert cc_helper_start.StartUp(home).wait() is started
    logged = [json.loads(line) for path in (home / "logs").glob("*")
              for line in path.read_text().splitlines()]
    assert any(entry.get("code") == "ValueError" for entry in logged)  # and it is said


@pytest.mark.usefixtures("steady_code")  # (tests/hosts/conftest.py)
def test_the_drain_after_a_prompt_runs_while_recovery_is_still_starting(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The drain after a prompt (a ``Stop`` waiting for its turn to reach the transcript)
    was skipped for as long as the start-up thread was busy, its drain long done, starting
    the recovery tick (imports, a configuration read, on a loaded machine seconds)."""
    release, starting = threading.Event(), threading.Event()
    drained: list[Path] = []

    def recovery(_home: Path) -> None:
        starting.set()  # (the start-up drain is over)
        release.wait(300)

    monkeypatch.setattr(cc_helper_start, "start_recovery", recovery)
    monkeypatch.setattr(cc_helper, "_drain_waiting", drained.append)
    sid = str(uuid.uuid4())
    served, socket = _serving(home)
    try:
        assert starting.wait(300)
        prompt = json.dumps({"session_id": sid, "cwd": str(project), "prompt": "ship it?",
                             "hook_event_name": "UserPromptSubmit"}).encode()
        assert cc_client._ask(home, "UserPromptSubmit", prompt, str(project)) is not None
        assert cc_client._ask(home, "ping", b"") is not None  # (one at a time: it is over)
        assert drained == [home]
    finally:
        release.set()
        socket.unlink()
        served.join(300)
    assert not served.is_alive()
