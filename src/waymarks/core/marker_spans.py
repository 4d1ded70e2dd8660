"""Where a text's classification markers are, for code that cuts or splits the text
(:mod:`waymarks.core.privacy` defines the markers and what they mean).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import bisect

from waymarks.core.privacy import (
    Classification,
    classify,
    highest,
    levels_up_to,
    parse_marked,
    tag_spans,
)


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


def marked_runs(text: str, base: str | None = None
                ) -> list[tuple[int, int, frozenset[Classification]]]:
    """Where :func:`parse_marked`'s segments are in ``text``: ``(start, end, levels)`` of
    each run between working tags, in order, ``levels`` being every level that applies to
    it (the floor's and each enclosing marker's: :attr:`~waymarks.core.privacy.Segment.
    levels`, not their highest, which let an ``internal`` span inside a ``sensitive`` one
    pass as ``sensitive``). Unbalanced text is one run, all of it, at every level up to
    its highest (as its one segment is)."""
    tags = tag_spans(text)
    marked = parse_marked(text, base) if tags else None
    if marked is None:  # no tag: one run at the floor (one scan of a long file, not three)
        return [(0, len(text), frozenset((classify("", base),)))] if text else []
    if not marked.balanced:
        return [(0, len(text), levels_up_to(marked.level))]
    runs: list[tuple[int, int]] = []
    position = 0
    for start, stop in tags:
        if start > position:
            runs.append((position, start))
        position = stop
    if position < len(text):
        runs.append((position, len(text)))
    return [(start, stop, segment.levels)
            for (start, stop), segment in zip(runs, marked.segments, strict=True)]


class SpanLevels:
    """The :func:`marked_runs` of a text, to ask which levels apply to parts of it (a docs
    passage, a fact of a file): a part is only where every one may go. A binary search,
    then the runs the part overlaps (a file of thousands of sections is cut into thousands
    of parts); one lookup for a text whose runs are all at the same levels."""

    def __init__(self, text: str, base: str | None = None) -> None:
        runs = marked_runs(text, base)
        self._runs = runs
        self._ends = [end for _start, end, _levels in runs]
        distinct = {levels for _start, _end, levels in runs}
        #: the levels of every run, when they are the same (``None``: they differ)
        self._same = next(iter(distinct)) if len(distinct) == 1 else None
        #: the highest level of the text (its floor, with no run)
        self.top: Classification = highest(classify("", base),
                                           *(level for levels in distinct for level in levels))

    def within(self, start: int, end: int) -> frozenset[Classification]:
        """Every level of the runs that overlap ``text[start:end]``."""
        if self._same is not None:
            return self._same
        runs, found = self._runs, set[Classification]()
        at = bisect.bisect_right(self._ends, start)  # the first run ending past ``start``
        while at < len(runs) and runs[at][0] < end:
            found.update(runs[at][2])
            at += 1
        return frozenset(found)
