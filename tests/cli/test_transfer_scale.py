"""An import at scale: a file of more lines than one import takes is refused before any
line is parsed or checked, with the fix (split it by lines); the parts then import in
order, a line repeated from an earlier part a duplicate."""

from __future__ import annotations

import subprocess
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
