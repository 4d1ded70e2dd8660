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
