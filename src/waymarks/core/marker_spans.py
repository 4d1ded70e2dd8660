"""Where a text's classification markers are, for code that cuts or splits the text
(:mod:`waymarks.core.privacy` defines the markers and what they mean).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from waymarks.core.privacy import Classification, parse_marked, tag_spans


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


def marked_runs(text: str, base: str | None = None) -> list[tuple[int, int, Classification]]:
    """Where :func:`parse_marked`'s segments are in ``text``: ``(start, end, level)`` of
    each run between working tags, in order. Unbalanced text is one run, all of it, at
    its highest level (as its one segment is)."""
    marked = parse_marked(text, base)
    if not marked.balanced:
        return [(0, len(text), marked.level)]
    runs: list[tuple[int, int]] = []
    position = 0
    for start, stop in tag_spans(text):
        if start > position:
            runs.append((position, start))
        position = stop
    if position < len(text):
        runs.append((position, len(text)))
    return [(start, stop, segment.level)
            for (start, stop), segment in zip(runs, marked.segments, strict=True)]
