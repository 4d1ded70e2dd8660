"""An import's held lines are flushed to disk once a run of them ends: when that flush
fails (EIO from the disk), the lines since the last flush that held are not reported
imported, and the command says so in one line rather than failing itself."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_transfer import _row, cli  # noqa: F401 (cli: the fixture)


def _failing_ledger_flush(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """``os.fsync`` of a session ledger (``*.jsonl``) fails with EIO after ``after``
    flushes of one held; other files flush as usual."""
    fsync, seen = os.fsync, [0]

    def flush(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            seen[0] += 1
            if seen[0] > after:
                raise OSError(errno.EIO, "Input/output error")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", flush)


@pytest.mark.parametrize("total", [5, 70])
def test_a_failed_flush_of_the_held_lines_reports_them_unconfirmed(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, total: int) -> None:  # noqa: F811
    """The first line makes the session (its own flush, which holds); the rest are held
    and flushed at the end (5 lines) or every 64 (70 lines), and that flush fails. The
    lines only the failed flush covered were reported "imported" (and with 5 lines, the
    report itself failed on an empty list of lines left: a traceback)."""
    source = tmp_path / "lines.jsonl"
    source.write_text("".join(_row(f"The probe-{n} zone is z-{n}.") + "\n"
                              for n in range(total)))
    _failing_ledger_flush(monkeypatch, after=1)
    report = cli("import", str(source), expect=1)
    assert (report["outcome"], report["code"]) == ("error", "io_error")
    outcomes = {e["line"]: e["outcome"] for e in report["lines"]}
    assert outcomes[1] == "imported"
    assert all(outcomes[n] != "imported" for n in range(2, total + 1)), outcomes
    assert "1 line(s) written (lines 1)" in report["message"]
    assert "Input/output error" in report["message"]
