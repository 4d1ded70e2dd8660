"""Where a text's classification markers are, for code that cuts or splits the text
(:mod:`waymarks.core.privacy` defines the markers and what they mean).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from waymarks.core.privacy import tag_spans


def cut_before_marker(text: str, end: int) -> int:
    """Where to cut ``text`` to keep at most ``end`` characters without cutting a marker tag
    in two: ``end``, or the start of the tag (its escaping backslash too) standing across
    it. Half a tag marks nothing: a name cut at ``[ds`` left the span's text unmarked in
    what followed it (``4:local-only]my salary…``), and it went to remote models."""
    if end >= len(text):
        return end
    for start, stop in tag_spans(text, escaped=True):
        if start >= end:
            break
        if stop > end:
            return start
    return end

