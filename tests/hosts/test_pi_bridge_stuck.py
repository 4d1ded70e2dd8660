"""A bridge that stops answering is replaced, and its session served again (the REAL Pi).

The extension ends a bridge that took longer than its timeout and starts another at the
next call. It ended it with SIGTERM and started the next at once: a bridge that had not
ended yet (stopped, or waiting on its disk) still held the session's lock, and the new
one found it held and told the person "another Pi process has this session open", which
no other Pi had: its pins were left out of every later request of the session. The
extension now ends a stuck bridge with SIGKILL (a stopped process takes no SIGTERM) and
starts the next one once the old one has exited."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"


def pinned(body: dict[str, Any]) -> bool:
    return any(m["role"] == "user" and PIN_BEGIN in str(m["content"]) for m in body["messages"])


def bridges(pid: int) -> list[int]:
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True,
                              check=False).stdout.split()
    return [int(c) for c in children
            if b"bridge" in Path(f"/proc/{c}/cmdline").read_bytes()]


def test_a_stopped_bridge_is_replaced_and_the_session_served(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        home = PiHome(tmp_path, install("pi16"), fake.base_url)
        # the stopped bridge never answers, whatever the timeout; the calls of the working
        # ones (the first prompts', the new bridge's start and plan) must answer within it:
        # 2 s was a race with CI's load, 10 s is a bound a hang alone exceeds
        home.extra_env["WAYMARKS_BRIDGE_TIMEOUT_MS"] = "10000"
        pi = PiRpc(home)
        stuck = 0
        try:
            pi.prompt("hello")
            pi.prompt("/context pin -- Answer in French.")
            [stuck] = bridges(pi.process.pid)
            os.kill(stuck, signal.SIGSTOP)
            pi.prompt("first")  # its plan times out: no pins for this one, said once
            pi.prompt("second")
            assert pinned(fake.bodies[-1])
        finally:
            if stuck and Path(f"/proc/{stuck}").exists():
                os.kill(stuck, signal.SIGKILL)
            pi.close()
        assert not [n for n in pi.notices if "another Pi process" in n], pi.notices
        assert [n for n in pi.notices if "took longer than 10000 ms" in n]
