"""Issue 20 item 2 in the real Pi (from npm) with the Waymarks extension, against a loopback
fake model provider: "Let's look at SQLite today" then "and the port?" injects the SQLite
claim only (both claims before the extension passed the conversation)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, install

pytestmark = pytest.mark.slow  # the real Pi: minutes, not seconds

SQLITE = "The SQLite database listens on port 5433"
POSTGRES = "The PostgreSQL database listens on port 5432"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def test_pi_follow_up_injects_only_the_subjects_claim(tmp_path: Path,
                                                      fake: FakeOpenAI) -> None:
    pi = PiHome(tmp_path, install("pi16"), fake.base_url)
    assert pi.run("-p", "hello").returncode == 0
    for claim in (SQLITE, POSTGRES):
        added = pi.run("-c", "-p", f"/context memory add -- {claim}")
        assert "Recorded memory" in added.stdout + added.stderr
    assert pi.run("-c", "-p", "Let's look at SQLite today").returncode == 0
    assert pi.run("-c", "-p", "and the port?").returncode == 0
    sent = json.dumps(fake.bodies[-1]["messages"], ensure_ascii=False)
    assert "and the port?" in sent
    assert SQLITE in sent and POSTGRES not in sent


def test_pi_follow_up_after_a_turn_starting_with_a_path(tmp_path: Path,
                                                        fake: FakeOpenAI) -> None:
    """Every turn starting with "/" was left out of the history as a slash command, so
    "and the port?" after a turn naming a file first had no subject: both claims went."""
    pi = PiHome(tmp_path, install("pi16"), fake.base_url)
    assert pi.run("-p", "hello").returncode == 0
    named = "The SQLite database /srv/data/app.db listens on port 5433"
    for claim in (named, POSTGRES):
        added = pi.run("-c", "-p", f"/context memory add -- {claim}")
        assert "Recorded memory" in added.stdout + added.stderr
    assert pi.run("-c", "-p", "/srv/data/app.db is our SQLite database").returncode == 0
    assert pi.run("-c", "-p", "and the port?").returncode == 0
    sent = json.dumps(fake.bodies[-1]["messages"], ensure_ascii=False)
    assert "and the port?" in sent
    assert named in sent and POSTGRES not in sent
