"""Text typed to a write command holds no control character that is not text: a typed or
pasted ESC (``ESC[31m``, ``ESC]0;title BEL``) was stored as is by `pin`, `memory add`,
`session say` and the rest, and reached every reader of the ledger (models, other
programs). Each is refused now before anything is opened (exit 2, `invalid_argument`,
naming which character and where; nothing appended). Tab and line breaks are text and
stay. Stored text from elsewhere (an older release, the Python API, a hand-edited ledger)
is still shown escaped by every human output, never raw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.service.app import Waymarks

ESC = "\x1b"
#: every raw control character but tab and line feed (those a table or a body may hold)
RAW = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n"]


def _cli(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return done


def _disk(home: Path) -> dict[str, bytes]:
    """Every session ledger's and personal entry's bytes."""
    found = [*(home / "sessions").rglob("*.jsonl"), *(home / "memory").rglob("*")] \
        if home.is_dir() else []
    return {str(p): p.read_bytes() for p in sorted(found) if p.is_file()}


@pytest.mark.parametrize(("args", "what", "where"), [
    (("pin", "--", f"Red {ESC}[31mALERT"), "the pin's text", "ESC (U+001B) at line 1, column 5"),
    (("memory", "add", "--", "The port is \x07 5433."), "the claim's text",
     "BEL (U+0007) at line 1, column 13"),
    (("memory", "add", "--key", f"db{ESC}port", "--", "The port is 5433."), "--key",
     "ESC (U+001B) at line 1, column 3"),
    (("session", "say", f"hello {ESC}[2J world"), "the message",
     "ESC (U+001B) at line 1, column 7"),
    (("unpin", "PIN", f"gone {ESC}]0;x\x07"), "the reason", "ESC (U+001B) at line 1, column 6"),
    (("memory", "supersede", "MEMORY", "--", "The port is \x9b5434."), "the claim's text",
     "U+009B at line 1, column 13"),
    (("memory", "invalidate", "MEMORY", "wrong\x00"), "the reason",
     "NUL (U+0000) at line 1, column 6"),
    (("session", "branch", "ENTRY", "--summary", f"try {ESC}"), "--summary",
     "ESC (U+001B) at line 1, column 5"),
    (("pin", "--", "Rule one\x85rule two \x7f"), "the pin's text",
     "DEL (U+007F) at line 1, column 19"),
    (("context", f"pin -- a {ESC}[2J b"), "the pin's text", "ESC (U+001B) at line 1, column 3"),
])
def test_typed_text_with_a_control_character_is_refused(home: Path, project: Path,
                                                       args: tuple[str, ...], what: str,
                                                       where: str) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        pin = app.pin("Run the tests first.").id
        memory = app.remember("The port is 5433.").id
        entry = app.session_say("We moved the database.")
    args = tuple({"PIN": pin, "MEMORY": memory, "ENTRY": entry}.get(a, a) for a in args)
    before = _disk(home)
    shown = json.loads(_cli(home, project, "--json", *args, expect=2).stdout)
    assert (shown["outcome"], shown["code"]) == ("rejected", "invalid_argument"), shown
    assert shown["message"].startswith(f"{what} holds a control character that is not "
                                       f"text ({where};"), shown
    assert "remove it and try again; nothing was written" in shown["message"]
    said = _cli(home, project, *args, expect=2)
    assert said.stdout == "" and said.stderr.startswith("Refused (invalid_argument): ")
    assert ESC not in said.stderr  # the refusal itself does not echo the character
    assert _disk(home) == before  # nothing appended, no entry saved
    listed = json.loads(_cli(home, project, "--json", "pins").stdout)["items"]
    assert [(p["id"], p["status"]) for p in listed] == [(pin, "active")]


def test_tabs_and_line_breaks_are_text(home: Path, project: Path) -> None:
    _cli(home, project, "session", "new")
    done = json.loads(_cli(home, project, "--json", "memory", "add", "--",
                           "Ports:\tdb 5433\nweb 8080\x85mail 25").stdout)
    assert done["outcome"] == "committed", done
    said = json.loads(_cli(home, project, "--json", "session", "say", "a\tb\r\nc").stdout)
    assert said["entryId"]


def test_stored_control_characters_never_reach_human_output(home: Path,
                                                            project: Path) -> None:
    """Text stored before (an older release, the Python API, an import) holding ESC, BEL
    and C1 is shown escaped by every command a person reads."""
    with Waymarks(home, cwd=str(project)) as app:
        pin = app.pin(f"Run {ESC}[31mthe tests{ESC}[0m first \x9b2J").id
        memory = app.remember(f"The database port is {ESC}]0;pwned\x07 5433.").id
        app.set_memory_status(memory, "invalid", f"measured {ESC}[2J again")
        app.remember(f"The deploy target is {ESC}[5mstaging.")
    for args in [("pins",), ("memory",), ("memory", "list", "--status", "invalid"),
                 ("memory", "show", memory), ("memory", "search", "deploy", "target"),
                 ("recall", "what is the deploy target?"), ("plan", "--prompt", "deploy"),
                 ("status",), ("session", "show"), ("export",)]:
        done = _cli(home, project, *args)
        out = done.stdout + done.stderr
        assert not [c for c in RAW if c in out], (args, out)
    shown = _cli(home, project, "pins").stdout
    assert "\\u001b[31mthe tests\\u001b[0m" in shown and pin[:8] in shown


def test_a_line_break_pasted_from_word_is_text(home: Path, project: Path) -> None:
    """Word and PowerPoint copy a Shift+Enter line break as U+000B (vertical tab), a line
    break for ``str.splitlines`` as U+001C..U+001E and NEL are: ``memory add`` refused it
    (exit 2, "vertical tab (U+000B) ... not text") where those were kept."""
    done = json.loads(_cli(home, project, "--json", "memory", "add", "--",
                           "Release checklist:\x0bbump the version\x0btag it").stdout)
    assert done["outcome"] == "committed", done
