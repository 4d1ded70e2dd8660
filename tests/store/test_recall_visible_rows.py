"""A session that may see few of the recall index's records ranks only those
(``RecallIndex._visible_rows``): the records of other sessions are never read, and what it
recalls is what skipping them one by one recalled."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.store.recall_index import RecallIndex

QUERY = "which worker uses Kafka for event fan-out?"


def _records_read(app: Waymarks, query: str) -> tuple[list[str], int]:
    """The recalled IDs, in order, and how many recall records the query read."""
    statements: list[str] = []
    app.projection.db.set_trace_callback(statements.append)
    try:
        result = app.recall(query)
    finally:
        app.projection.db.set_trace_callback(None)
    read = 0
    for sql in statements:
        if "FROM recall_records r" in sql and "r.rowid IN (" in sql:
            listed = re.search(r"r\.rowid IN \(([^)]*)\)", sql)
            assert listed is not None
            read += len(listed.group(1).split(","))
    return [s.candidate.id for s in result.scored], read


@pytest.mark.parametrize("trusted", [True, False])
def test_a_new_session_reads_only_the_records_it_may_see(
        home: Path, project: Path, trusted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        for n in range(40):  # an earlier session's own memory
            assert app.remember(f"Worker w{n} uses Kafka for event fan-out in build {n}."
                                ).outcome == "committed"
        for n in range(3):
            assert app.remember(f"Worker p{n} uses Kafka for event fan-out on host h{n}.",
                                scope="project").outcome == "committed"
        app.session_new()
        for n in range(2):
            assert app.remember(f"Worker s{n} uses Kafka for event fan-out in zone z{n}."
                                ).outcome == "committed"
        if not trusted:
            app.untrust(str(project))
        listed, read = _records_read(app, QUERY)
        # what skipping the others one row at a time recalls
        monkeypatch.setattr(RecallIndex, "_visible_rows", lambda *_a, **_k: None)
        skipped, read_before = _records_read(app, QUERY)
    assert listed == skipped
    assert len(listed) == (5 if trusted else 2)
    assert read == len(listed)
    assert read_before == 45  # every record matched, the earlier session's 40 too


def test_a_session_that_may_see_nothing_reads_no_record(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(30):
            app.remember(f"Worker w{n} uses Kafka for event fan-out in build {n}.")
        app.session_new()
        recalled, read = _records_read(app, QUERY)
    assert (recalled, read) == ([], 0)


def test_a_session_seeing_most_records_skips_the_others_as_before(
        home: Path, project: Path) -> None:
    """Listing what a session may see pays only when that is little: a session that
    owns most of the matching records reads them as the ranking gives them out."""
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(3):
            app.remember(f"Worker w{n} uses Kafka for event fan-out in build {n}.")
        app.session_new()
        for n in range(60):
            app.remember(f"Worker s{n} uses Kafka for event fan-out in zone z{n}.")
        calls: list[object] = []
        original = RecallIndex._visible_rows

        def spy(self: RecallIndex, *args: object) -> frozenset[int] | None:
            calls.append(answer := original(self, *args))  # type: ignore[arg-type]
            return answer

        RecallIndex._visible_rows = spy  # type: ignore[method-assign]
        try:
            recalled, read = _records_read(app, QUERY)
        finally:
            RecallIndex._visible_rows = original  # type: ignore[method-assign]
    assert calls == [None]
    assert read == 63 and len(recalled) == 60
