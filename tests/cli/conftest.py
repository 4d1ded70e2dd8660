"""The CLI tests' way of running ``waymarks`` in-process: ``--json`` unless ``text=True``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from waymarks.cli.main import main


@pytest.fixture
def run_main(capsys: pytest.CaptureFixture[str]) -> Any:
    """Run the real entry point with ``args``; assert its exit code is ``expect``; return
    the one JSON document it printed, or with ``text=True`` (no ``--json``) its standard
    output and error together."""

    def run(*args: str, expect: int = 0, text: bool = False) -> Any:
        code = main(list(args) if text else ["--json", *args])
        captured = capsys.readouterr()
        assert code == expect, (args, captured.out, captured.err)
        if text:
            return captured.out + captured.err
        lines = captured.out.strip().splitlines()
        assert len(lines) == 1, "--json prints exactly one document"
        return json.loads(lines[0])

    return run
