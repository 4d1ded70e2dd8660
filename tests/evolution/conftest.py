"""The CLI as the evolution tests drive it: in process, `--json`, the last JSON line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.cli.main import main


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Callable[..., dict]:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def run(*args: str, expect: int = 0) -> dict:
        code = main(["--json", *args])
        out = capsys.readouterr().out
        assert code == expect, out
        return dict(json.loads(out.strip().splitlines()[-1]))

    return run


def wait_for_captures(home: Path, seconds: float = 90.0) -> None:
    """Wait until no Stop-hook capture is waiting in the spool: the hook only queues the
    request and a detached child (or the warm helper) stores it. A bound on waiting, not
    a timing assertion."""
    import time

    from waymarks.service.capture_spool import pending

    deadline = time.monotonic() + seconds
    while pending(home):
        assert time.monotonic() < deadline, "the queued capture was never stored"
        time.sleep(0.05)


def wait_for_decision(home: Path, seconds: float = 90.0,
                      before: dict[str, object] | None = None) -> dict[str, object]:
    """:func:`wait_for_captures`, then until the turn's capture decision is noted: a
    ``Stop`` whose turn has tool observations closes that work turn in the detached child
    (or the helper), not through the spool, so an empty spool does not mean it was noted
    (the CI read ``lastCapture`` as ``None`` twice, the note written just after).
    ``before``: the decision noted before this turn, so an older turn's decision is not
    taken for this one's. A bound on waiting, not a timing assertion."""
    import time

    from waymarks.service.evolution_observe import last_capture

    wait_for_captures(home, seconds)
    deadline = time.monotonic() + seconds
    while (last := last_capture(home)) is None or last == before:
        assert time.monotonic() < deadline, "the turn's capture decision was never noted"
        time.sleep(0.05)
    return last
