"""The extension's settings from the environment (the REAL Pi 1.6 from npm, a fake
provider).

``WAYMARKS_BRIDGE_TIMEOUT_MS=10s`` (a natural way to write ten seconds) was ``NaN``: every
bridge call timed out at once, memory was off and every request's content was withheld,
and Pi said only "initialize took longer than NaN ms". A value that is not a number of
milliseconds is replaced by the default, and the person is told which variable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, install

pytestmark = pytest.mark.slow

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"


@pytest.mark.parametrize("name", ["WAYMARKS_BRIDGE_TIMEOUT_MS", "WAYMARKS_EVOLVE_INTERVAL_MS"])
def test_a_duration_that_is_not_a_number_falls_back_and_is_said(tmp_path: Path,
                                                                 name: str) -> None:
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        assert pi.run("-p", "hello").returncode == 0
        assert pi.run("-c", "-p", "/context pin -- Always run the linters").returncode == 0
        pi.extra_env[name] = "10s"
        done = pi.run("-c", "-p", "next question")
    assert done.returncode == 0
    sent = json.dumps(fake.bodies[-1], ensure_ascii=False)
    assert "withheld by Waymarks" not in sent and PIN_BEGIN in sent
    assert f'{name}="10s" is not a number of milliseconds' in done.stderr
    assert "NaN" not in done.stderr


@pytest.mark.parametrize("value", ["0.5", "5"])
def test_a_timeout_shorter_than_any_call_falls_back_and_is_said(tmp_path: Path,
                                                                value: str) -> None:
    """`WAYMARKS_BRIDGE_TIMEOUT_MS=0.5` (or 5, seconds meant) was taken as it was: every
    bridge call timed out at once, as `10s` did (memory off, every request's content
    withheld), with nothing said about the variable. Under 100 ms, which no call of the
    bridge answers within, it is replaced by the default and named."""
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        assert pi.run("-p", "hello").returncode == 0
        assert pi.run("-c", "-p", "/context pin -- Always run the linters").returncode == 0
        pi.extra_env["WAYMARKS_BRIDGE_TIMEOUT_MS"] = value
        done = pi.run("-c", "-p", "next question")
    assert done.returncode == 0
    sent = json.dumps(fake.bodies[-1], ensure_ascii=False)
    assert "withheld by Waymarks" not in sent and PIN_BEGIN in sent, done.stderr
    assert f'WAYMARKS_BRIDGE_TIMEOUT_MS="{value}" is under 100 ms' in done.stderr, \
        done.stderr


def test_a_timeout_too_long_for_a_timer_is_not_one_millisecond(tmp_path: Path) -> None:
    """Node runs a timer of more than 2^31-1 ms after 1 ms: `WAYMARKS_BRIDGE_TIMEOUT_MS`
    of ten billion (a way to say "never") timed every call out at once, as `10s` did:
    memory off, every request's content withheld. It is held to the longest timer."""
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        assert pi.run("-p", "hello").returncode == 0
        assert pi.run("-c", "-p", "/context pin -- Always run the linters").returncode == 0
        pi.extra_env["WAYMARKS_BRIDGE_TIMEOUT_MS"] = "10000000000"
        done = pi.run("-c", "-p", "next question")
    assert done.returncode == 0
    sent = json.dumps(fake.bodies[-1], ensure_ascii=False)
    assert "withheld by Waymarks" not in sent and PIN_BEGIN in sent, done.stderr
    assert "took longer than" not in done.stderr


def test_a_timings_file_that_cannot_be_written_neither_ends_pi_nor_its_memory(
        tmp_path: Path) -> None:
    """`WAYMARKS_BRIDGE_TIMINGS` naming a file in a folder that is not there (a typo, a
    folder not made yet): the append threw in the bridge's answer handler, before the
    answer was given, so `initialize` never settled and Node ended Pi on the unhandled
    rejection (exit 1, the prompt unanswered, the file's ENOENT its only words). The
    answer is given first; a timing that cannot be written is said once, and Pi goes on."""
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        assert pi.run("-p", "hello").returncode == 0
        assert pi.run("-c", "-p", "/context pin -- Always run the linters").returncode == 0
        asked = len(fake.bodies)
        pi.extra_env["WAYMARKS_BRIDGE_TIMINGS"] = str(tmp_path / "no-such-folder" / "t.jsonl")
        done = pi.run("-c", "-p", "next question")
    assert done.returncode == 0, done.stderr
    assert len(fake.bodies) == asked + 1
    sent = json.dumps(fake.bodies[-1], ensure_ascii=False)
    assert "withheld by Waymarks" not in sent and PIN_BEGIN in sent
    assert done.stderr.count("WAYMARKS_BRIDGE_TIMINGS") == 1, done.stderr
    assert "no-such-folder" in done.stderr and "no timings are written" in done.stderr
    assert not (tmp_path / "no-such-folder").exists()
