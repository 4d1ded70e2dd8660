"""What the CLI prints for a person cannot drive the terminal, and an argument it repeats
is cut short.

Item text was escaped where it is shown, but IDs, entry IDs and entry types read from a
session file (which anyone who can write the file chooses), and arguments a refusal
repeats, went out raw: an OSC sequence in a planted pin's ID retitled the terminal, and an
unterminated one (IDs are cut to eight characters) swallowed the rest of the output.
Everything a command prints for a person is escaped once more on its way out.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks as run_waymarks
from waymarks.cli.output import render_table, terminal_safe
from waymarks.commands.results import Column, Table

OSC = "\x1b]0;PWN\x07"


def _text(home: Path, project: Path, *args: str, expect: int = 0) -> str:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done.stdout + done.stderr


def _plant(home: Path, project: Path) -> None:
    """A pin whose ID and entry ID hold an OSC sequence, and an entry whose type does."""
    _text(home, project, "pin", "--", "seed")
    session = next((home / "sessions").glob("*/*.jsonl"))
    leaf = json.loads(session.read_text().splitlines()[-1])["id"]
    pin = {"type": "custom", "customType": "ds4-context-pin-v1",
           "data": {"schemaVersion": 1, "mutationId": "m2", "createdAt": 1, "operation": "add",
                    "item": {"id": OSC + "-evil", "scope": "session",
                             "content": "Evil id pin", "createdAt": 1}},
           "timestamp": "2026-12-04T23:33:11.000Z", "id": "x" + OSC, "parentId": leaf}
    odd = {"type": "custom", "customType": "ds4-context-pin-v1" + OSC, "data": {},
           "timestamp": "2026-12-04T23:33:12.000Z", "id": "y1", "parentId": "x" + OSC}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(pin) + "\n" + json.dumps(odd) + "\n")


def test_ids_and_entry_types_from_a_session_file_are_escaped(home: Path,
                                                            project: Path) -> None:
    _plant(home, project)
    pins = _text(home, project, "pins")
    assert "Evil id pin" in pins and "\\u001b]0;PWN" in pins
    shown = [pins, _text(home, project, "session", "show"),
             _text(home, project, "health"), _text(home, project, "memory")]
    for out in shown:
        assert "\x1b" not in out and "\x07" not in out, out


def test_a_refusal_repeats_an_argument_escaped_and_cut_short(home: Path,
                                                            project: Path) -> None:
    _text(home, project, "pin", "--", "seed")
    hostile = _text(home, project, "unpin", "\x1b]0;x\x07", expect=2)
    assert "\x1b" not in hostile and "\\u001b]0;x\\u0007" in hostile
    long = _text(home, project, "unpin", "a" * 100_000, expect=2)
    assert "not_found" in long and len(long) < 400, len(long)


def test_a_table_on_a_terminal_escapes_its_cells_and_footer() -> None:
    table = Table((Column("ID"), Column("TEXT", wide=True)), [("ab" + OSC, "t")], ["active"],
                  ("note " + OSC,))
    rendered = render_table(table)
    assert "\x07" not in rendered and "]0;PWN" in rendered
    assert "\x1b]" not in rendered  # rich's own colour codes are CSI (ESC [), never OSC
    assert terminal_safe("a\n\tb\x1b") == "a\n\tb\\u001b"
    assert terminal_safe(terminal_safe("\x1b")) == "\\u001b"  # escaping twice is once
