"""Learning off in the real Pi 1.6 (from npm): what the person says while learning is off,
or before it was ever on, is never captured once it is on again (the reviewer's run:
``learn on``, a preference, ``learn off``, a private statement, ``learn on``, a question:
the consolidation request carried both statements)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, PiRpc, install
from waymarks.service.evolution import Evolution
from waymarks.service.learning import ledger_path

pytestmark = pytest.mark.slow


def _learn(pi: PiHome, switch: str) -> None:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home",
                           str(pi.waymarks_home), "learn", switch], cwd=pi.project,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _statements(home: Path) -> list[str]:
    if not ledger_path(home).is_file():
        return []
    with Evolution(home) as evo:
        return [s.text for s in evo.store.sources() if s.kind == "statement"]


def _settled(rpc: PiRpc) -> None:
    """A command's round trip through the extension's bridge: the turn's ``learn`` request,
    sent before it, has been answered."""
    rpc.prompt("/context status")


def test_statements_made_while_learning_was_off_are_never_captured(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:  # every turn answered "done"; no consolidation is asked
        pi = PiHome(tmp_path, install("pi16"), fake.base_url,
                    extra_env={"WAYMARKS_EVOLVE_INTERVAL_MS": "600000",
                               "PI_SUBAGENT_AGENT_ID": ""})
        rpc = PiRpc(pi)
        try:
            rpc.prompt("Remember that my bank is Chase.")  # learning never on yet
            _settled(rpc)
            _learn(pi, "on")
            rpc.prompt("Remember that I prefer yarn over npm.")
            deadline = time.monotonic() + 60
            while not _statements(pi.waymarks_home):
                assert time.monotonic() < deadline, "the statement was never captured"
                time.sleep(0.2)
            _learn(pi, "off")
            rpc.prompt("Remember that my salary is 123k; note that, it is private.")
            _settled(rpc)
            _learn(pi, "on")
            rpc.prompt("What is two plus two?")
            _settled(rpc)
        finally:
            rpc.close()
    assert _statements(pi.waymarks_home) == ["Remember that I prefer yarn over npm."]
    assert "salary" not in ledger_path(pi.waymarks_home).read_text()
