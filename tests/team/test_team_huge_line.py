"""A teammate's file holding a huge line: read a line at a time, never held whole (a
pushed file of one 200 MB line made each plan's and `team status`'s process take 420 MB,
twice the line), with the same verdict as before."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from tests.team.test_team_source import Writer
from waymarks.ledger.team import MAX_LINE_BYTES, read_chain

HUGE = 40 << 20


@pytest.mark.parametrize(("after", "broken", "partial", "lines"), [
    (b"\n", "line 2: longer than", None, 2),
    (b"\nmore\n\nlast", "line 2: longer than", None, 5),
    (b"", None, "line 2 has no final newline and is no complete entry (longer than", 1),
])
def test_a_huge_line_is_judged_without_being_held(tmp_path: Path, after: bytes,
                                                  broken: str | None, partial: str | None,
                                                  lines: int) -> None:
    writer = Writer(tmp_path, "mal-00000003", "Mal")
    writer.add("Deploy with care")
    with writer.path.open("ab") as handle:
        handle.write(b'{"x":"' + b"a" * HUGE + b'"}' + after)
    tracemalloc.start()
    try:
        read = read_chain(str(writer.path), "mal-00000003")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MAX_LINE_BYTES + (4 << 20), peak
    assert read.count == 1 and read.lines == lines and read.unreadable is None
    assert (read.broken or "").startswith(broken or "") and bool(read.broken) == bool(broken)
    assert (read.partial or "").startswith(partial or "") and bool(read.partial) == bool(
        partial)


def test_a_line_at_the_limit_with_windows_line_ends_is_read(tmp_path: Path) -> None:
    """The limit is the entry's: its CR and LF are not counted in it."""
    writer = Writer(tmp_path, "ann-00000001", "Ann")
    writer.add("Deploy with care")
    data = writer.path.read_bytes().replace(b"\n", b"\r\n")
    writer.path.write_bytes(data + b"x" * (MAX_LINE_BYTES + 1) + b"\r\n")
    read = read_chain(str(writer.path), "ann-00000001")
    assert read.count == 1 and read.broken == f"line 2: longer than {MAX_LINE_BYTES} bytes"
    writer.path.write_bytes(data + b"x" * MAX_LINE_BYTES + b"\r\n")
    read = read_chain(str(writer.path), "ann-00000001")
    assert read.count == 1 and read.broken is not None and "longer" not in read.broken
