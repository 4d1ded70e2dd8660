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

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.marker_spans import SpanLevels
from waymarks.core.privacy import LEVELS, Classification, highest, strip_markers

#: a list item's marker: ``-``, ``*``, ``+`` or a number (``1.``, ``2)``), then space
_ITEM = lazy(r"(?:[-*+]|\d{1,4}[.)])\s+(\S.*)")


class Fact(msgspec.Struct, frozen=True):
    text: str
    #: the highest level of the marked spans around it in the file (its own tags, kept
    #: in its text, count there, as do those of the others it keeps); ``None``: in none
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
    at its highest level, and every level below it, throughout). A span within one line
    of a fact is in its text and classifies that part of it alone, as in any entry. A
    fact in spans of levels other than its highest (``internal`` inside ``sensitive``)
    keeps their tags around its text: as an entry classified only by its highest, it went
    to a provider allowed ``["normal", "sensitive"]``."""
    # a line end before the first line and after the last: every line has one each side
    text = "\n" + "\n".join(lines) + "\n"
    spans = SpanLevels(text)
    ends = [0]  # where each line end is in ``text``: the one before line n is ends[n]
    for line in lines:
        ends.append(ends[-1] + len(line) + 1)
    at_ends = [spans.within(end, end + 1) for end in ends]  # a line end is in no tag
    facts = []
    for fact, first, last in _located(lines):
        levels = frozenset[Classification]().union(*at_ends[first:last + 2])
        top = highest("normal", *levels)
        inner = [level for level in LEVELS if level in levels and level not in (top, "normal")]
        marked = "".join(f"[ds4:{level}]" for level in inner) + fact + "".join(
            f"[/ds4:{level}]" for level in reversed(inner))
        facts.append(Fact(marked, None if top == "normal" else top))
    return facts


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
