"""Stop 52's egress review: credentials hidden from the write checks and the redaction by
characters that render as nothing, or by an empty marker pair (each test failed before
its fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inprocess import waymarks
from waymarks.core.secrets import credential_kinds, find_secrets, redact

TOKEN = "ghp_aBcDeFgHiJk{}LmNoPqRsTuVwXyZ0123456789"
AWS = "AKIAIOSF{}ODNN7EXAMPLE"

#: default-ignorable characters the rules did not read through: variation selectors
#: (U+FE0F after an emoji; the supplement's too), the Arabic letter mark, Hangul fillers,
#: the combining grapheme joiner, a Mongolian free variation selector, a tag of the
#: reserved range
HIDERS = ["\ufe0f", "\ufe00", "\U000e0100", "\u061c", "\u3164", "\u115f", "\uffa0",
          "\u034f", "\u180b", "\U000e0002"]


@pytest.mark.parametrize("hider", HIDERS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_character_that_renders_as_nothing_does_not_hide_a_credential(hider: str) -> None:
    for shape, kind in ((TOKEN, "github-token"), (AWS, "aws-access-key-id")):
        text = f"CI pushes with {shape.format(hider)} every night"
        assert credential_kinds(text) == [kind]
        redacted, count = redact(text)
        assert count == 1
        assert hider not in redacted and "every night" in redacted
        assert redacted.startswith("CI pushes with [REDACTED:")


def test_an_empty_marker_pair_inside_a_credential_does_not_hide_it() -> None:
    for pair in ("[ds4:normal][/ds4:normal]", "[DS4:Internal][/ds4:internal]"):
        text = f"use {TOKEN.format(pair)} to push"
        assert find_secrets(text) == []  # the raw text holds no whole token ...
        assert credential_kinds(text) == ["github-token"]  # ... the text a model gets does
    # an escaped marker is text, not a marker: it splits the token for every reader
    assert credential_kinds(f"use {TOKEN.format(chr(92) + '[ds4:normal]')} to push") == []


def _cli(home: Path, project: Path, *args: str) -> tuple[int, str]:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout + done.stderr


def test_no_write_path_stores_a_hidden_credential(tmp_path: Path) -> None:
    """Before: the pin and the memory were recorded and planned in clear, the ADR's title
    (a file committed with the code) and the personal memory's file name and index line
    held the token, and the note was added."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    assert _cli(home, project, "trust", str(project))[0] == 0
    split = TOKEN.format("[ds4:normal][/ds4:normal]")
    attempts = [
        ("pin", "--scope", "project", "--", f"CI pushes with {TOKEN.format(chr(0xfe0f))}"),
        ("memory", "add", "--scope", "project", "--", f"Deploy key {AWS.format(chr(0x61c))}"),
        ("memory", "add", "--", f"use {split} to push"),
        ("adr", "new", f"Use {split}"),
        ("personal", "save", "--type", "reference", "--", f"CI token {split}"),
        ("notes", "add", "--", f"CI token {split}"),
    ]
    for attempt in attempts:
        code, output = _cli(home, project, *attempt)
        assert code == 2 and "credential" in output, (attempt, output)
    assert not (project / "docs").exists()
    personal = home / "memory"
    assert not personal.exists() or not any(p.suffix == ".md" and p.name != "MEMORY.md"
                                            for p in personal.rglob("*"))
    code, plan = _cli(home, project, "plan", "--provider", "ollama", "--prompt", "CI token")
    assert code == 0 and "LmNoPq" not in plan and "ODNN7" not in plan
