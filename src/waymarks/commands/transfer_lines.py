"""The lines of a ``waymarks-export-v1`` file, parsed and checked for ``waymarks import``
(:mod:`.transfer`) before anything is decided or written: a malformed line is named
(``bad_input``: the file's content, not the command line, is wrong), a
line not active or a branch pin is skipped, and a file of more than
:data:`MAX_IMPORT_LINES` items is refused at once."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Final, Literal

import msgspec

from waymarks.commands.base import Result
from waymarks.commands.options import LEVEL_NAMES
from waymarks.commands.render import refused
from waymarks.core.text import derive_key

FORMAT = "waymarks-export-v1"
MAX_LINE_BYTES = 64 * 1024
#: the largest import read (a file or standard input): 64 MiB, over 10,000 items of the
#: largest size with their provenance; a larger export can be split by lines
MAX_IMPORT_BYTES = 64 * 1024 * 1024
#: the most lines (items) one import takes: its check holds every line's planned item in
#: memory (what the lines after it are decided against) and its writes take a few ms a
#: line, so 64 MiB of small lines (1.4 million) took gigabytes and hours; 50,000 lines
#: check in about 16 s and 260 MB, and a longer export imports in parts (``split -l``),
#: each checked against what the parts before it wrote
MAX_IMPORT_LINES = 50_000
Kind = Literal["pin", "memory"]
STATUSES = ("active", "superseded", "deleted", "invalid", "expired")
_VERSIONED = re.compile(r"waymarks-export-v[0-9]{1,6}")


class Line(msgspec.Struct, frozen=True):
    number: int
    kind: Kind
    text: str
    scope: str
    status: str
    key: str | None
    classification: str | None
    original_id: str | None


def parse(raw: str) -> tuple[list[Line], list[tuple[Line, str]]] | Result:
    """Every line checked before anything is written: the items to write, the skipped.
    More than :data:`MAX_IMPORT_LINES` items are refused before any is checked."""
    if (too_many := _too_many_lines(raw)) is not None:
        return too_many
    wanted: list[Line] = []
    skipped: list[tuple[Line, str]] = []
    problems: list[str] = []
    if _JSON_DOCUMENT.match(raw.removeprefix("\ufeff").lstrip()):
        return refused("bad_input", "this is the output of `waymarks --json export` "
                       "(one JSON document): import reads the file `waymarks export` writes "
                       "without --json (one item per line: `waymarks export -o FILE`). "
                       "Nothing was imported")
    # lines end at "\n" only (a "\r" before it is dropped): an item's text may hold
    # U+2028, NEL or a form feed raw (earlier exports wrote them so), which
    # str.splitlines also breaks at; a byte-order mark at a line's start is no content
    for number, text in enumerate(_lines(raw), 1):  # (exports saved with one, joined)
        text = _content(text)
        if not text.strip():
            continue
        line = _line(number, text)
        if isinstance(line, str):
            problems.append(f"line {number}: {line}")
        elif line.status != "active":
            skipped.append((line, f"{line.status}: only active items are imported"))
        elif line.kind == "pin" and line.scope == "branch":
            skipped.append((line, "a branch pin belongs to its own conversation's branch"))
        else:
            wanted.append(line)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more"
                                          if len(problems) > 5 else "")
        return refused("bad_input", f"not a Waymarks export ({FORMAT}): {shown}. "
                       "Nothing was imported")
    if not wanted and not skipped:
        return refused("empty", "the input holds no items; nothing was imported")
    return wanted, skipped


def _lines(raw: str) -> Iterator[str]:
    """``raw.split("\n")``, one line at a time: the lines of a large file are not all
    copied at once (64 MiB of text was held twice, and every line's string with it)."""
    start = 0
    while (end := raw.find("\n", start)) != -1:
        yield raw[start:end]
        start = end + 1
    yield raw[start:]


def _content(line: str) -> str:
    """A line without its ``"\r"`` (CRLF) and a byte-order mark at its start (no content):
    blank when it holds nothing else."""
    return line.removesuffix("\r").removeprefix("\ufeff")


def _too_many_lines(raw: str) -> Result | None:
    """The refusal of a file of more than :data:`MAX_IMPORT_LINES` items (lines holding
    anything), before one is parsed or checked, with the fix: split it by lines."""
    if raw.count("\n") < MAX_IMPORT_LINES:  # (the common case, counted at once)
        return None
    items = sum(1 for text in _lines(raw) if _content(text).strip())
    if items <= MAX_IMPORT_LINES:
        return None
    return refused("too_long", f"the input holds {items:,} lines; one import takes at most "
                   f"{MAX_IMPORT_LINES:,} (the check of every line before any is written "
                   "holds them all in memory). Split it by lines and import the parts in "
                   f"order: `split -l {MAX_IMPORT_LINES} FILE part-` then `waymarks import` "
                   "each part (a line repeated from an earlier part is reported a "
                   "duplicate). Nothing was imported")


#: the start of ``export --json``'s one document (``{"format": …, "items": [``)
_JSON_DOCUMENT: Final = re.compile(r'\{\s*"format"\s*:\s*"[^"\n]{0,64}"\s*,\s*"items"\s*:\s*\[')


def _line(number: int, text: str) -> Line | str:
    if len(text.encode("utf-8", "replace")) > MAX_LINE_BYTES:
        return f"longer than {MAX_LINE_BYTES} bytes"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "not JSON"
    if not isinstance(data, dict):
        return "not a JSON object"
    found = data.get("format", FORMAT)
    if found != FORMAT:  # another export version is named; anything else is not echoed
        return (f"written by another version of Waymarks ({found}); upgrade Waymarks, or "
                "export again with this version" if isinstance(found, str)
                and _VERSIONED.fullmatch(found) else f"format is not {FORMAT}")
    kind, body, scope = data.get("kind"), data.get("text"), data.get("scope")
    status, key, level = data.get("status", "active"), data.get("givenKey", data.get("key")), \
        data.get("classification")
    if kind not in ("pin", "memory"):
        return "kind must be pin or memory"
    if not isinstance(body, str):
        return "text must be a string"
    if scope not in ("session", "branch", "project"):
        return "scope must be session, branch or project"
    if not isinstance(status, str) or not isinstance(key, str | None):
        return "status, key and givenKey must be strings"
    status = status.strip().lower()
    if status not in STATUSES:  # a typo must not skip the line silently (not echoed)
        return f"status must be one of {', '.join(STATUSES)}"
    if level is not None and level not in LEVEL_NAMES:
        return "classification must be normal, internal, sensitive or local-only"
    if "givenKey" not in data and key is not None and key == derive_key(body):
        key = None  # an older export's derived key: derived again, never made a given one
    original = data.get("id")
    return Line(number, kind, body, scope, status, key, level,
                original if isinstance(original, str) else None)


