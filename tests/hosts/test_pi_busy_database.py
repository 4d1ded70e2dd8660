"""A database another process holds while Pi works (the REAL Pi 1.6 from npm, a fake
provider; the projection's write lock held as a long ``rebuild-index`` or import holds it).

The bridge waited the default 30 s for it, the extension gave a plan 5 s: every request
of a turn was cut off, and the bridge killed and started again, each time, for as long as
the other process wrote. The bridge waits less than a call's timeout: the plan fails with
why, and the bridge serves on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text, reply_tools
from tests.hosts.pi_harness import WAYMARKS_BIN, PiHome, install

pytestmark = pytest.mark.slow


def test_a_held_database_fails_the_plan_and_keeps_the_bridge(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    counted = tmp_path / "counted-waymarks"
    counted.write_text(f"#!/bin/sh\necho started >> {starts}\nexec {WAYMARKS_BIN} \"$@\"\n")
    counted.chmod(0o755)
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        assert pi.run("-p", "hello").returncode == 0
        assert pi.run("-c", "-p", "/context pin -- Always run the linters").returncode == 0
        pi.extra_env["WAYMARKS_BIN"] = str(counted)
        fake.script = [reply_tools(("bash", {"command": "echo 1"})),
                       reply_tools(("bash", {"command": "echo 2"})), reply_text("done")]
        held = sqlite3.connect(pi.waymarks_home / "waymarks.db", isolation_level=None)
        try:
            held.execute("BEGIN IMMEDIATE")  # another process's long write
            done = pi.run("-c", "-p", "do two steps", timeout=300)
        finally:
            held.execute("ROLLBACK")
            held.close()
    assert done.returncode == 0
    assert starts.read_text().count("started") == 1, done.stderr  # never killed
    assert "locked" in done.stderr and "took longer than" not in done.stderr
    assert "withheld by Waymarks" not in str(fake.bodies[-1])


def test_a_command_waits_for_a_database_held_a_few_seconds(tmp_path: Path) -> None:
    """A write the person asked for (`/context pin`, given minutes by the extension) waits
    for another process's write of a few seconds as it always did: the short wait of a
    plan's request is not every call's (a pin behind a 4 s write failed "database is
    locked" where it used to wait and succeed)."""
    import threading
    import time

    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        assert pi.run("-p", "hello").returncode == 0
        held = sqlite3.connect(pi.waymarks_home / "waymarks.db", isolation_level=None,
                               check_same_thread=False)
        held.execute("BEGIN IMMEDIATE")  # another process's write, of a few seconds
        releaser = threading.Timer(8, lambda: (held.execute("ROLLBACK"), held.close()))
        releaser.start()
        started = time.monotonic()
        try:
            done = pi.run("-c", "-p", "/context pin -- Always run the linters", timeout=300)
        finally:
            releaser.join()
        assert time.monotonic() - started < 60
        listed = pi.run("-c", "-p", "/context pins")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "locked" not in done.stdout + done.stderr
    assert "Always run the linters" in listed.stdout + listed.stderr
