"""A text to store holds no control character that is not text: ``pin --file`` of a file
holding a NUL (a binary file) pinned it, kept escaped as ``\\u0000`` and planned into
every prompt; the ``context_persistence`` tool (MCP's and Pi's) stored what a model sent.
Both refuse it now, naming what and where, and nothing is written. Tab, line breaks
(CRLF too) and form feed are text, and stay."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.service.app import Waymarks
from waymarks.service.ports import ConfirmationRequest, Decision
from waymarks.tool.persistence import ContextPersistence


def _cli(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done


def _ledgers(home: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((home / "sessions").rglob("*.jsonl"))} \
        if (home / "sessions").is_dir() else {}


@pytest.mark.parametrize(("data", "where"), [
    (b"hello\x00world\n", "NUL (U+0000) at line 1, column 6"),
    (b"Use ruff.\n\x1b[31mred\x1b[0m\n", "ESC (U+001B) at line 2, column 1"),
    ("line one\nzwei \u0085 drei\n".encode(), "U+0085 at line 2, column 6"),
])
def test_pin_file_holding_a_control_character_is_refused(home: Path, project: Path,
                                                         data: bytes, where: str) -> None:
    _cli(home, project, "pin", "--", "seed")
    before = _ledgers(home)
    path = project / "rules.bin"
    path.write_bytes(data)
    shown = json.loads(_cli(home, project, "--json", "pin", "--file", str(path),
                            expect=2).stdout)
    # the file's content is wrong, not the command line: bad_input (invalid_argument before)
    assert (shown["outcome"], shown["code"]) == ("rejected", "bad_input"), shown
    assert where in shown["message"] and "rules.bin" in shown["message"], shown
    assert "nothing was written" in shown["message"]
    text = _cli(home, project, "pin", "--file", str(path), expect=2)
    assert where in text.stdout + text.stderr
    assert _ledgers(home) == before  # nothing appended
    pins = json.loads(_cli(home, project, "--json", "pins").stdout)["items"]
    assert [p["text"] for p in pins] == ["seed"]


def test_pin_file_of_text_with_tabs_and_crlf_is_pinned(home: Path, project: Path) -> None:
    path = project / "rules.md"
    path.write_bytes(b"Run\tthe tests\r\n\x0cbefore every commit.\r\n")
    done = json.loads(_cli(home, project, "--json", "pin", "--file", str(path)).stdout)
    assert done["outcome"] == "committed", done
    [pin] = json.loads(_cli(home, project, "--json", "pins").stdout)["items"]
    assert pin["text"].startswith("Run\tthe tests") and "\x0cbefore every commit." in pin["text"]


def test_stray_control_names_the_first_one() -> None:
    from waymarks.core.text import stray_control

    assert stray_control("tab\there\r\nand\x0cpage") is None
    assert stray_control("ok \x7f") == "DEL (U+007F) at line 1, column 4"
    assert stray_control("a\nb\nc\x01") == "U+0001 at line 3, column 2"


class _Person:
    def __init__(self) -> None:
        self.asked: list[ConfirmationRequest] = []

    def confirm(self, request: ConfirmationRequest) -> Decision:
        self.asked.append(request)
        return "accepted"


@pytest.mark.parametrize("arguments", [
    {"action": "pin_add", "content": "Always run\x00 the linters"},
    {"action": "memory_add", "content": "The database port is 5433.\x1b[2J"},
    {"action": "memory_add", "content": "The cache TTL is 60 s.", "key": "ttl\x07"},
])
def test_the_write_tool_refuses_a_control_character_before_asking(
        make_app: Callable[..., Waymarks], arguments: dict[str, str]) -> None:
    app = make_app()
    app.session_say("Please keep track of the database settings")
    session = app.current_session()
    assert session is not None
    before = session.read_all()
    person = _Person()
    result = ContextPersistence(app).call(arguments, person)
    assert (result.details["outcome"], result.details.get("errorCode")) == (
        "rejected", "invalid-parameters"), result.details
    assert person.asked == [] and session.read_all() == before
    assert app.items("pin") == [] and app.items("memory") == []
    clean = {k: v.replace("\x00", "").replace("\x1b", "").replace("\x07", "")
             for k, v in arguments.items()}
    assert ContextPersistence(app).call(clean, person).details["outcome"] == "committed"


# -- notes: a working note is text too ----------------------------------------------------


@pytest.mark.parametrize(("typed", "where"), [
    ("Run migrations \x1b[31min one transaction", "ESC (U+001B) at line 1, column 16"),
    ("Ring\x07 the bell before deploys", "BEL (U+0007) at line 1, column 5"),
    ("Keep the \x7f cache warm", "DEL (U+007F) at line 1, column 10"),
])
def test_a_note_holding_a_control_character_is_refused(home: Path, project: Path,
                                                       typed: str, where: str) -> None:
    """``notes add`` (and the ``capture_note`` tool, MCP's and Pi's) kept ESC, BEL and DEL
    in a note (shown as ``\\u001b[31m`` by ``notes list`` and promoted into a prompt),
    while a pin's file and the write tool refuse them: refused now, naming the character,
    its line and column (exit 2, ``invalid_argument``), and nothing is appended."""
    _cli(home, project, "notes", "add", "--", "seed note")
    before = _ledgers(home)
    shown = json.loads(_cli(home, project, "--json", "notes", "add", "--", typed,
                            expect=2).stdout)
    assert (shown["outcome"], shown["code"]) == ("rejected", "invalid_argument"), shown
    assert where in shown["message"] and "nothing was written" in shown["message"], shown
    said = _cli(home, project, "notes", "add", "--", typed, expect=2)
    assert said.stdout == "" and where in said.stderr  # a refusal, on standard error
    assert _ledgers(home) == before
    listed = json.loads(_cli(home, project, "--json", "notes", "list").stdout)["notes"]
    assert [n["text"] for n in listed] == ["seed note"]


def test_the_note_tool_refuses_a_control_character_as_invalid_parameters(
        make_app: Callable[..., Waymarks]) -> None:
    from waymarks.personal.bridge_tools import capture_note
    from waymarks.personal.notes import active_notes

    app = make_app()
    app.session_say("Let us talk about migrations")
    session = app.current_session()
    assert session is not None
    before = session.read_all()
    for text in ("Run migrations\x00 in one transaction", "Use \x1b]0;PWNED\x07 ruff"):
        answer = capture_note(app, text)
        assert answer == {"outcome": "rejected", "category": "invalid-parameters"}, answer
    assert session.read_all() == before and active_notes(app) == []
    assert capture_note(app, "Run migrations\tin one transaction")["outcome"] == "saved"


def test_a_note_over_its_limit_is_too_long_as_every_length_limit(home: Path,
                                                                  project: Path) -> None:
    """A note over 480 characters was refused ``invalid_argument`` where every other text
    over its limit (a pin, a claim, a personal entry, an ADR's title) is ``too_long``;
    its message now says how to mend it too. Nothing is appended."""
    _cli(home, project, "notes", "add", "--", "seed note")
    before = _ledgers(home)
    shown = json.loads(_cli(home, project, "--json", "notes", "add", "--",
                            "lesson " * 80, expect=2).stdout)
    assert (shown["outcome"], shown["code"]) == ("rejected", "too_long"), shown
    assert "at most 480 characters (this one has 559)" in shown["message"], shown
    assert "nothing was written" in shown["message"], shown
    assert _ledgers(home) == before
    assert json.loads(_cli(home, project, "--json", "notes", "add", "--",
                           "x" * 480).stdout)["added"] is True


def test_a_note_type_is_checked_as_every_choice_in_any_case(home: Path, project: Path) -> None:
    """``notes add --type bogus`` said "waymarks: note type must be one of …" (code
    ``invalid_argument``, no help named) and ``--type Decision`` was refused, where
    ``personal save --type Feedback`` takes any case and a wrong one is a usage error
    naming the choices and the help. The note type is such a choice now."""
    from waymarks.commands.personal import NOTE_TYPES
    from waymarks.personal.notes import NOTE_TYPES as STORED_TYPES

    assert NOTE_TYPES == STORED_TYPES  # (the command table's copy: help stays quick)
    _cli(home, project, "notes", "add", "--", "seed note")
    before = _ledgers(home)
    shown = json.loads(_cli(home, project, "--json", "notes", "add", "--type", "bogus", "--",
                            "We keep SQLite", expect=2).stdout)
    assert shown["code"] == "usage", shown
    assert "Invalid value for '--type': 'bogus' is not one of" in shown["message"], shown
    assert "`waymarks notes add --help`" in shown["message"], shown
    assert _ledgers(home) == before
    added = json.loads(_cli(home, project, "--json", "notes", "add", "--type", "Decision",
                            "--", "We keep SQLite").stdout)
    assert (added["type"], added["added"]) == ("decision", True), added


@pytest.mark.parametrize("hollow", ["   ", "\u200b\u2060", "\x07\x1b\x07"])
def test_a_personal_entry_with_nothing_in_it_is_empty_as_a_pin_is(home: Path, project: Path,
                                                                   hollow: str) -> None:
    """``personal save -- '   '`` answered ``invalid_argument`` ("memory text must be
    non-empty Unicode text …"), where a pin, a claim and a note with nothing in them are
    ``empty``: the code scripts test for. Nothing is written."""
    pin = json.loads(_cli(home, project, "--json", "pin", "--", hollow, expect=2).stdout)
    shown = json.loads(_cli(home, project, "--json", "personal", "save", "--", hollow,
                            expect=2).stdout)
    assert pin["code"] == shown["code"] == "empty", (pin, shown)
    assert "nothing was written" in shown["message"], shown
    assert not (home / "memory").exists() or not list((home / "memory").glob("*.md"))
