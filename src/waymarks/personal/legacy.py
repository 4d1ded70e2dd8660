"""The facts of a legacy single-file ``memory.md`` (``- YYYY-MM-DD — text`` lines, or any
hand-written list and paragraphs), each with the level it has in the file, for
:meth:`waymarks.personal.store.PersonalStore.migrate_legacy` to write as one entry each.

A ``[ds4:LEVEL]`` … ``[/ds4:LEVEL]`` pair may span several facts (the tags on lines of
their own): each fact keeps the level of the spans it sits in as its classification, and a
line holding nothing but tags is no fact. Converted one by one without it, each fact was
an unmarked entry (and each tag line an entry named ``entry``), and a plan for a remote
provider sent them.
"""

from __future__ import annotations

import re

import msgspec

from waymarks.core.marker_spans import marked_runs
from waymarks.core.privacy import Classification, highest, level_rank, strip_markers

#: a list item's marker: ``-``, ``*``, ``+`` or a number (``1.``, ``2)``), then space
_ITEM = re.compile(r"(?:[-*+]|\d{1,4}[.)])\s+(\S.*)")


class Fact(msgspec.Struct, frozen=True):
    text: str
    #: the level of the marked spans around it in the file (its own tags, kept in its
    #: text, count there); ``None`` when it is in none
    level: Classification | None = None


def legacy_facts(lines: list[str]) -> list[str]:
    """The facts of a legacy ``memory.md``: each list item (any marker; its indented lines
    after it continue it) and each paragraph of other text (its lines joined). Headings,
    blank lines and lines with no letter or digit outside marker tags end a fact and are
    none; so are a leading front-matter block, fenced code blocks, HTML comments and table
    rows (text about the file, or code, not a fact), each only when it is closed: a lone
    ``---`` or an unclosed fence skips itself alone (it skipped the rest of the file, every
    fact of it lost). Before, only ``- `` items were facts: ``* …``, numbered items and
    paragraphs were dropped in silence (kept only in the backup)."""
    return [text for text, _first, _last in _located(lines)]


def leveled_facts(lines: list[str]) -> list[Fact]:
    """:func:`legacy_facts`, each with its level in the file: the highest level in force
    at the line ends around and within it (the file read as one text, so a span opened
    on a line of its own covers the facts up to its closing tag; an unbalanced file is
    at its highest level throughout). A span within one line of a fact is in its text
    and classifies that part of it alone, as in any entry."""
    # a line end before the first line and after the last: every line has one each side
    text = "\n" + "\n".join(lines) + "\n"
    runs = marked_runs(text)
    ends = [0]  # where each line end is in ``text``: the one before line n is ends[n]
    for line in lines:
        ends.append(ends[-1] + len(line) + 1)
    levels = [_level_at(runs, end) for end in ends]
    facts = []
    for fact, first, last in _located(lines):
        found = max(levels[first:last + 2], key=level_rank)
        facts.append(Fact(fact, None if found == "normal" else found))
    return facts


def _level_at(runs: list[tuple[int, int, frozenset[Classification]]],
              offset: int) -> Classification:
    """The level of the run holding ``offset`` (a line end: never inside a tag)."""
    return next((highest(*levels) for start, end, levels in runs if start <= offset < end),
                "normal")


def _located(lines: list[str]) -> list[tuple[str, int, int]]:
    """Each fact with its first and last line's number."""
    facts: list[tuple[str, int, int]] = []
    going: str | None = None  # what the last fact is while it may go on: item, paragraph
    number = 0
    while number < len(lines):
        raw = lines[number]
        line = raw.strip()
        number += 1
        block_end = _block_end(lines, number - 1)
        if block_end is not None:
            number = block_end + 1
            going = None
            continue
        if not line or line.startswith(("#", "|", "<!--", "```", "~~~")) or \
                not any(c.isalnum() for c in strip_markers(line)):
            going = None
            continue
        item = _ITEM.fullmatch(line)
        if item is not None:
            facts.append((item.group(1).strip(), number - 1, number - 1))
            going = "item"
        elif going == "paragraph" or (going == "item" and raw[:1].isspace()):
            text, first, _last = facts[-1]
            facts[-1] = (f"{text} {line}", first, number - 1)
        else:
            facts.append((line, number - 1, number - 1))
            going = "paragraph"
    return facts


def _block_end(lines: list[str], start: int) -> int | None:
    """The line that closes the block ``lines[start]`` opens (a fence, front matter's
    ``---`` on the first line, an HTML comment; one closed on its own line ends there),
    else ``None``: not a block, or one never closed."""
    line = lines[start].strip()
    if line.startswith(("```", "~~~")):
        closing = line[:3]
        if len(line) > 3 and line.endswith(closing) and line[3:].strip(closing[0]).strip():
            return start  # ```npm run dev```: opened and closed on one line
    elif start == 0 and line == "---":
        closing = "---"
    elif line.startswith("<!--"):
        if "-->" in line[4:]:
            return start
        closing = "-->"
    else:
        return None
    for number in range(start + 1, len(lines)):
        found = lines[number].strip()
        if found.startswith(closing) if closing != "-->" else closing in found:
            return number
    return None
