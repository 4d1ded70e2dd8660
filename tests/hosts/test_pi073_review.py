"""Defects a review of the Pi host reproduced with the real Pi 0.73.1 (npm's
``@mariozechner/pi-coding-agent``) and the fake model; each test failed before its fix."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, install

# the real Pi from npm (installed on first use) talking to a fake provider
pytestmark = pytest.mark.slow


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def pi(tmp_path: Path, fake: FakeOpenAI) -> PiHome:
    return PiHome(tmp_path, install("pi073"), fake.base_url)


def cli(pi: PiHome, *args: str) -> dict[str, Any]:
    """``waymarks --json ARGS`` in Pi's project, with Pi's environment."""
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", *args],
                          cwd=pi.project, env=pi.env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (0, 2), done
    return dict(json.loads(done.stdout))


def test_a_pin_in_a_session_file_without_a_reply_is_refused_not_lost(pi: PiHome) -> None:
    """``pi --session FILE -p "/context pin …"`` on a session Waymarks made printed
    "Pinned", yet the pin was never stored: Pi 0.73 writes nothing of a session to its
    file before its first assistant message, even to a file that exists. Refused now
    (not_saved), and the file is as it was."""
    cli(pi, "pin", "--", "Run the linters first.")
    [ledger] = sorted((pi.waymarks_home / "sessions").rglob("*.jsonl"))
    before = ledger.read_bytes()
    result = pi.run("--session", str(ledger), "-p", "/context pin -- Never force-push.")
    said = result.stdout + result.stderr  # (Pi's print mode sends an extension's to stderr)
    assert "not_saved" in said and "Pinned" not in said, result
    assert ledger.read_bytes() == before
    pins = cli(pi, "--session", str(ledger), "pins")["items"]
    assert [p["text"] for p in pins] == ["Run the linters first."]


@pytest.mark.parametrize("variant", ["pi073", "pi16"])
def test_a_refusal_in_print_mode_is_pis_exit_status(tmp_path: Path, fake: FakeOpenAI,
                                                    variant: str) -> None:
    """``pi -p "/context pin -- …"`` in a new session printed "Rejected (not_saved)" and
    ``pi -p "/context bogus"`` its error, both exit 0, though the README says a refusal
    exits 2. Pi's exit status is the command's now; an answer still exits 0."""
    pi = PiHome(tmp_path, install(variant), fake.base_url)
    refused = pi.run("-p", "/context pin -- Use ruff.")
    assert refused.returncode == 2 and "not_saved" in refused.stdout + refused.stderr
    unknown = pi.run("-p", "/context bogus")
    assert unknown.returncode == 2 and "/context offers" in unknown.stdout + unknown.stderr
    listed = pi.run("-p", "/context pins")
    assert listed.returncode == 0, listed


def test_help_in_pi_starts_no_turn(pi: PiHome, fake: FakeOpenAI) -> None:
    """``/remember --help`` sent a curation turn to the model with "--help" prefilled, and
    ``/context -h`` answered an error at warning level. Both print help, exit 0, and
    nothing reaches the model."""
    remember = pi.run("-p", "/remember --help")
    assert remember.returncode == 0 and "/remember [TEXT]" in remember.stdout + \
        remember.stderr, remember
    context = pi.run("-p", "/context -h")
    assert context.returncode == 0 and "/context COMMAND -h" in context.stdout + \
        context.stderr, context
    assert fake.bodies == []
