"""What a provider may see of a marked text: the segments its allowance admits, one
``WITHHELD`` for each run of the others, no marker left (:mod:`waymarks.core.privacy`
parses the markers and defines the levels).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from waymarks.core.privacy import WITHHELD, Classification, MarkedText, has_markers, parse_marked


class FilteredText(msgspec.Struct, frozen=True):
    """A text as a provider may see it."""

    #: None when nothing of it may be sent
    text: str | None
    level: Classification
    #: prohibited spans replaced by ``WITHHELD`` (1 when the whole text is withheld)
    dropped: int
    #: marker tags removed
    markers: int


def filter_marked(marked: MarkedText, allowed: Collection[str]) -> FilteredText:
    """Keep allowed segments, put one ``WITHHELD`` per run of prohibited ones; the whole
    text is withheld when nothing but whitespace would be left of it."""
    parts: list[str] = []
    dropped = 0
    kept = False
    previous_dropped = False
    for segment in marked.segments:
        if all(level in allowed for level in segment.levels):
            parts.append(segment.text)
            kept = kept or bool(segment.text.strip())
            previous_dropped = False
        elif not previous_dropped:
            parts.append(WITHHELD)
            dropped += 1
            previous_dropped = True
    if dropped and not kept:
        return FilteredText(None, marked.level, 1, marked.markers)
    text = "".join(parts)
    if dropped and has_markers(text):  # cannot happen by construction; fail closed anyway
        return FilteredText(None, marked.level, 1, marked.markers)
    return FilteredText(text, marked.level, dropped, marked.markers)


def filter_text(text: str, allowed: Collection[str], base: str | None = None) -> FilteredText:
    """``text`` with its prohibited spans withheld and every marker removed."""
    return filter_marked(parse_marked(text, base), allowed)
