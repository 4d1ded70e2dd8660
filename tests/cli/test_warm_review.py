"""The warm start of one-shot commands (:mod:`waymarks.cli.warm`) as a reviewer found it
wanting: its settings, the processes it leaves and what they hold. Real processes, as in
``tests/cli/test_warm.py`` (whose helpers these tests share)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_warm import _await, _environment, _helpers, _run, _stop_helpers
from waymarks.cli import warm

pytestmark = pytest.mark.slow  # real processes and helpers (~1 s or more each)


def test_an_idle_time_that_is_not_seconds_is_said_and_the_default_taken(
        tmp_path: Path) -> None:
    """``30m`` made the helper fail at its start, unseen: every command ran in its own
    process and started another. It is said once, and the default taken."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, **{warm.ENV_IDLE: "30m"})
    try:
        first = _run(["recall", "anything"], project, env)
        assert not first.warm and first.answer[0] == 0
        assert f"{warm.ENV_IDLE}='30m' is not a number of seconds" in first.answer[2]
        assert _await(lambda: _run(["recall", "anything"], project, env).warm, 90)
        served = _run(["recall", "anything"], project, env)
        assert served.warm and "not a number of seconds" not in served.answer[2]
    finally:
        _stop_helpers(home)


@pytest.mark.parametrize("value", ["0", "0.0"])
def test_an_idle_time_of_zero_switches_the_helper_off(tmp_path: Path, value: str) -> None:
    """``0`` started a helper that imported everything (NumPy too) and exited at once,
    for every command."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, **{warm.ENV_IDLE: value})
    try:
        ran = _run(["recall", "anything"], project, env)
        assert not ran.warm and ran.answer[0] == 0 and ran.answer[2] == ""
        assert _helpers(home) == []  # (a helper is started before the command ends)
        assert warm.idle_seconds(value) == 0
    finally:
        _stop_helpers(home)


@pytest.mark.parametrize(("text", "seconds"), [
    ("", warm.IDLE_SECONDS), (" ", warm.IDLE_SECONDS), ("60", 60.0), ("1.5", 1.5),
    ("inf", float("inf")), ("30m", None), ("-1", None), ("nan", None), ("x", None)])
def test_what_an_idle_time_means(text: str, seconds: float | None) -> None:
    assert warm.idle_seconds(text) == seconds
