"""An import at scale: a file of more lines than one import takes is refused before any
line is parsed or checked, with the fix (split it by lines); the parts then import in
order, a line repeated from an earlier part a duplicate."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_transfer import _row, cli  # noqa: F401 (cli: the fixture)
from waymarks.commands import transfer_lines
from waymarks.commands.transfer_lines import MAX_IMPORT_LINES


def test_a_file_of_more_lines_than_an_import_takes_is_refused_before_the_check(
        cli: Any, home: Path, tmp_path: Path) -> None:  # noqa: F811
    """64 MiB of small lines is 1.4 million of them: the check held every one in memory
    (300,000 lines: 624 MB, 1.4 million: about 3 GB) and the writes would have taken
    hours. One line over the cap is refused at once (`too_long`, exit 2), naming the
    count and how to split the file, and nothing is written."""
    source = tmp_path / "huge.jsonl"
    row = _row("The cache port is 6379.")
    source.write_text((row + "\n") * (MAX_IMPORT_LINES + 1))
    report = cli("import", "--dry-run", str(source), expect=2)
    assert (report["outcome"], report["code"]) == ("rejected", "too_long")
    assert f"{MAX_IMPORT_LINES + 1:,} lines" in report["message"]
    assert f"split -l {MAX_IMPORT_LINES} FILE part-" in report["message"]
    assert cli("import", str(source), expect=2)["code"] == "too_long"
    assert not list(home.rglob("*.jsonl")), "no session file was made"
    assert cli("memory")["items"] == []


def test_blank_lines_do_not_count_and_split_parts_import_in_order(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Blank lines, CRLF and a byte-order mark alone on a line are no items: a file of
    exactly the cap's items imports. The fix the refusal names (`split -l`) works: the
    parts import in order, the lines an earlier part wrote reported as duplicates."""
    monkeypatch.setattr(transfer_lines, "MAX_IMPORT_LINES", 4)
    texts = [f"The worker-{n} region is eu-{n}." for n in range(6)]
    exact = tmp_path / "exact.jsonl"
    exact.write_text("\n\n".join(_row(t) for t in texts[:4]) + "\r\n\ufeff\n  \n")
    assert cli("import", "--dry-run", str(exact))["counts"] == {"would-write": 4}
    over = tmp_path / "over.jsonl"
    over.write_text("".join(_row(t) + "\n" for t in [*texts, texts[0]]))
    refused = cli("import", str(over), expect=2)
    assert refused["code"] == "too_long"
    assert refused["message"].startswith("the input holds 7 lines; one import takes at most 4")
    subprocess.run(["split", "-l", "4", str(over), str(tmp_path / "part-")], check=True)
    parts = sorted(tmp_path.glob("part-*"))
    assert [cli("import", str(p))["counts"] for p in parts] == [
        {"imported": 4}, {"imported": 2, "duplicate": 1}]
    assert sorted(i["text"] for i in cli("memory")["items"]) == sorted(texts)


@pytest.mark.slow  # 0.3 s of CPU or more in two lane runs (0.4-0.6 s, loaded machine): scale
def test_an_import_flushes_the_ledger_once_per_held_run_of_lines_not_once_a_line(
        cli: Any, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Each line's write took and released the session's lock and flushed the ledger to
    disk: the flush was most of an import's time (2,000 lines: 8.5 s of 14.6). The lines
    are written under one hold of the lock every HELD_LINES, flushed once when it ends
    (before anything is reported); each line still appends and projects on its own."""
    from waymarks.commands.transfer import HELD_LINES

    total = 3 * HELD_LINES + 5
    source = tmp_path / "many.jsonl"
    source.write_text("".join(_row(f"The gadget-{n} owner is team-{n}.") + "\n"
                              for n in range(total)))
    flushed: list[int] = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (flushed.append(fd), fsync(fd))[1])
    report = cli("import", str(source))
    assert report["counts"] == {"imported": total}
    assert len(flushed) <= total // HELD_LINES + 8, len(flushed)
    ledgers = list((home / "sessions").rglob("*.jsonl"))
    assert len(ledgers) == 1
    assert len(ledgers[0].read_text().splitlines()) > total, "every line is in the ledger"
    listed = cli("memory", "--limit", str(2 * total))["items"]
    assert len(listed) == total and {i["id"] for i in listed} == {
        e["id"] for e in report["lines"]}


@pytest.mark.slow
def test_an_import_killed_mid_run_leaves_whole_lines_and_a_rerun_finishes_it(
        home: Path, project: Path, tmp_path: Path) -> None:
    """SIGKILL while a held run of lines is being written: the ledger holds whole lines
    (no line is cut: each is one append), and importing the file again writes the rest,
    the lines written before reported as duplicates; every line is stored once."""
    total = 1500
    source = tmp_path / "big.jsonl"
    source.write_text("".join(_row(f"The widget-{n} host is node-{n}.") + "\n"
                              for n in range(total)))
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
           "WAYMARKS_SEMANTIC": "off"}
    command = [sys.executable, "-m", "waymarks.cli.main", "--json"]
    process = subprocess.Popen([*command, "import", str(source)], cwd=project, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:  # the writes have begun
        ledgers = list((home / "sessions").rglob("*.jsonl")) if home.exists() else []
        if ledgers and ledgers[0].stat().st_size > 40_000:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    again = subprocess.run([*command, "import", str(source)], cwd=project, env=env,
                           capture_output=True, check=True)
    counts = json.loads(again.stdout)["counts"]
    assert counts["duplicate"] > 0 and counts["imported"] + counts["duplicate"] == total
    listed = subprocess.run([*command, "memory", "--limit", "5000"], cwd=project, env=env,
                            capture_output=True, check=True)
    texts = [i["text"] for i in json.loads(listed.stdout)["items"]]
    assert len(texts) == len(set(texts)) == total
