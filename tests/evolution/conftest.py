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
