"""Stored personal memory cannot drive the terminal or editor that shows it.

``personal save`` keeps the text as given (a control byte is data), but ``personal
show``/``list`` on a terminal and the ``MEMORY.md`` index line show control characters
(C0 such as ^A and ESC, DEL, C1) as ``\\uXXXX``, as ``memory list`` does; a body keeps its
newlines and tabs. Real processes and real files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.core.text import escaped

BODY = "line1\nsecond\tline body \x01 \x1b[31m red \x7f del \x9b csi"
RAW = ("\x01", "\x1b", "\x7f", "\x9b")


def waymarks(home: Path, project: Path, *args: str) -> str:
    done = run_waymarks(*args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def test_show_list_and_the_index_escape_control_characters(home: Path, project: Path) -> None:
    saved = json.loads(waymarks(home, project, "--json", "personal", "save", "--", BODY))
    slug = saved["slug"]
    # the data keeps what was given: JSON escapes it, the entry file holds it
    assert json.loads(waymarks(home, project, "--json", "personal", "show", slug))["body"] \
        == BODY
    shown = waymarks(home, project, "personal", "show", slug)
    assert not any(ch in shown for ch in RAW), repr(shown)
    assert "body \\u0001 \\u001b[31m red \\u007f del \\u009b csi" in shown
    assert "line1\nsecond\tline body" in shown  # newlines and tabs of a body stay
    listed = waymarks(home, project, "personal", "list")
    assert not any(ch in listed for ch in RAW), repr(listed)
    index = (home / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert not any(ch in index for ch in RAW), repr(index)
    assert "\\u0001 \\u001b[31m" in index
    rebuilt = waymarks(home, project, "personal", "index")
    assert not any(ch in rebuilt for ch in RAW), repr(rebuilt)


def test_a_name_and_description_with_control_characters(home: Path, project: Path) -> None:
    waymarks(home, project, "personal", "save", "--name", "Ed\x1b]0;x\x07itor",
             "--description", "vim \x1b[2J modal", "--", "I use vim.")
    for text in (waymarks(home, project, "personal", "show", "ed-0-x-itor"),
                 waymarks(home, project, "personal", "list"),
                 (home / "memory" / "MEMORY.md").read_text(encoding="utf-8")):
        assert "\x1b" not in text and "\x07" not in text, repr(text)
        assert "vim \\u001b[2J modal" in text


@pytest.mark.parametrize(("text", "keep", "expected"), [
    ("plain é ✓", "", "plain é ✓"),
    ("a\x00b\x1fc\x7fd\x80e\x9ff", "", "a\\u0000b\\u001fc\\u007fd\\u0080e\\u009ff"),
    ("a\nb\tc\rd", "\n\t", "a\nb\tc\\rd"),
    ("a\nb", "", "a\\nb"),
    ("rtl \u202e zw\u200b", "", "rtl \\u202e zw\\u200b"),
])
def test_escaped(text: str, keep: str, expected: str) -> None:
    assert escaped(text, keep) == expected
