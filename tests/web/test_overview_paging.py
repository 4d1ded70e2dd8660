"""The inspector's overview reads the rows of the pages it shows, not every item.

It read every pin, and every memory row checked for ``status``'s tally by status, to show
50 of each (100k items: 1.2 s a page, 1.5 s for page 2). The totals are now counted in
SQL and only the rows up to the page are read; the pages hold what they held: the slice
of the whole listing (pins oldest first, memory newest first).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_limited_listing import busy_sessions, rows_verified
from waymarks.service.app import Waymarks
from waymarks.web.reads import overview

PER_PAGE = 4


def test_each_page_is_the_listings_slice_and_reads_only_up_to_it(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app, _other = busy_sessions(make_app, project, 21)
    pins, memory = app.items("pin"), app.items("memory")[::-1]  # as the pages show them
    session = app.current_session().path  # type: ignore[union-attr]
    read = rows_verified(monkeypatch)
    pages = -(-len(memory) // PER_PAGE)
    for page in (1, 2, 3, pages, pages + 3):
        fresh = make_app(session=session)  # a fresh process: nothing kept from before
        read["rows"] = 0
        shown = overview(fresh, page, page, PER_PAGE)
        assert (shown.pin_page.total, shown.memory_page.total) == (len(pins), len(memory))
        for got, every, at in ((shown.pins, pins, shown.pin_page.offset),
                               (shown.memory, memory, shown.memory_page.offset)):
            assert [v.id for v in got] == [v.id for v in every[at:at + PER_PAGE]]
            assert got == every[at:at + PER_PAGE]
        # the rows up to each page (each side of a listing one row ahead), not every item
        pin_rows = shown.pin_page.offset + PER_PAGE
        memory_rows = shown.memory_page.offset + PER_PAGE
        assert read["rows"] <= 2 * (pin_rows + memory_rows) + 4, (page, read["rows"])
        if page == 1:
            assert read["rows"] < (len(pins) + len(memory)) // 2


def test_a_deep_page_reads_its_own_rows_alone(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page of the overview read, verified and decoded every item before it, then
    cut to the page: ?memory=300 at 20k memories read 15,000 rows to show 50 (1.1 s).
    The items before a page are now counted on the indexes, and a page of any depth
    reads about as many rows as it shows; it still holds the listing's slice, the
    session's own project items (on both sides of the listing) once."""
    app, _other = busy_sessions(make_app, project, 21)
    pins, memory = app.items("pin"), app.items("memory")[::-1]  # as the pages show them
    session = app.current_session().path  # type: ignore[union-attr]
    read = rows_verified(monkeypatch)
    last = -(-max(len(pins), len(memory)) // PER_PAGE)
    for page in range(2, last + 1):
        fresh = make_app(session=session)  # a fresh process: nothing kept from before
        read["rows"] = 0
        shown = overview(fresh, page, page, PER_PAGE)
        for got, every, at in ((shown.pins, pins, shown.pin_page.offset),
                               (shown.memory, memory, shown.memory_page.offset)):
            assert got == every[at:at + PER_PAGE], page
        # each side of each listing one row ahead of the page at most
        assert read["rows"] <= 2 * (2 * PER_PAGE + 2), (page, read["rows"])
