"""Claims no longer in effect never take a candidate's place.

The recall index keeps every record a claim ever was (superseded, invalid, expired), and
candidates are the best ``CANDIDATE_LIMIT`` records by bm25: once a claim had been
superseded 100 times, or 100 retired claims shared its words, all 100 places went to
records the status gate then refused, and recall, ``memory search``, the MCP
``memory_find`` and plans found nothing. Candidates are now the best records *in effect*
(``memory search --all`` still asks for every status), on the SQLite path and in the
in-memory index alike.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.cli.main import main
from waymarks.recall.plan import direct_plan
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.search import find_items
from waymarks.store.migrations import migrate
from waymarks.store.recall_cache import COMMON_PAST, RecallCache
from waymarks.store.recall_index import CANDIDATE_LIMIT, RecallIndex, RecordInput

QUESTION = "when does the release train leave?"


def chain(app: Waymarks, links: int) -> list[str]:
    """A claim superseded ``links`` times; the IDs, oldest first."""
    first = app.remember("The release train leaves at 1 pm.")
    assert isinstance(first, Committed), first
    ids = [first.id]
    for n in range(2, links + 2):
        outcome = app.supersede_memory(ids[-1], f"The release train leaves at {n} pm.")
        assert isinstance(outcome, Committed), outcome
        ids.append(outcome.id)
    return ids


@pytest.mark.slow  # 0.3 s of CPU or more in two lane runs (0.4-0.6 s, loaded machine): scale
def test_a_claim_superseded_more_times_than_the_candidate_limit_is_still_found(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = make_app()
    ids = chain(app, CANDIDATE_LIMIT + 1)
    current, retired = ids[-1], set(ids[:-1])
    warm = make_app(keep_recall_index=True)
    for reader in (app, warm, make_app()):
        result = reader.recall(QUESTION)
        assert result.selected == [current]
        assert {s.candidate.id for s in result.scored} == {current}  # explain's candidates
        found = find_items(reader, "memory", "release train", active_only=True, limit=5,
                           admits=lambda _view: True)  # memory_find
        assert [v.id for v in found] == [current]
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def search(*args: str) -> list[dict[str, object]]:
        assert main(["--json", "memory", "search", *args, "release", "train"]) == 0
        return list(json.loads(capsys.readouterr().out)["results"])

    assert [(r["id"], r["status"]) for r in search()] == [(current, "active")]
    # --all shows the versions no longer in effect too, and still the one in effect
    every = search("--all", "--limit", "200")
    assert current in {r["id"] for r in every}
    assert {r["status"] for r in every} == {"active", "superseded"}
    assert {str(r["id"]) for r in every} <= retired | {current}
    assert len(every) == CANDIDATE_LIMIT + 1


def test_retired_claims_sharing_words_do_not_crowd_out_the_one_in_effect(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a chain: many distinct claims, invalidated or expired, sharing the question's
    words, ranked ahead of the live one (shorter, and older: ties go to the lower row)."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = make_app()
    for n in range(CANDIDATE_LIMIT + 20):
        outcome = app.remember(f"Release train {n} leaves.")
        assert isinstance(outcome, Committed), outcome
        status = app.set_memory_status(outcome.id, "invalid" if n % 2 else "expired")
        assert isinstance(status, Committed), status
    live = app.remember("The release train now leaves from platform nine on Fridays.")
    assert isinstance(live, Committed), live
    for reader in (app, make_app(keep_recall_index=True)):
        assert reader.recall("release train leaves?").selected == [live.id]


def store(path: Path, retired: int) -> tuple[RecallIndex, RecallCache]:
    """An index (not backed by items: each record's own status) of ``retired`` superseded
    records ranked ahead of the one active record, and the in-memory index of it."""
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    records = [RecordInput(id=f"old{n:04d}", text=f"Release train {n}.", status="superseded")
               for n in range(retired)]
    records.append(RecordInput(id="live", text="The release train leaves from platform nine."))
    db.execute("BEGIN")
    index.add(records)
    db.execute("COMMIT")
    cache = RecallCache(index)
    cache.refresh()
    return index, cache


@pytest.mark.parametrize("retired", [CANDIDATE_LIMIT + 5, COMMON_PAST + 50])
def test_both_indexes_give_the_best_records_in_effect(tmp_path: Path, retired: int) -> None:
    """The SQLite path and the in-memory index (its path for common words too) skip the
    retired rows, and still give them when every status is asked for."""
    index, cache = store(tmp_path / "recall.db", retired)
    try:
        plan = direct_plan("release train?")
        stats = index.stats([*plan.focus, *plan.context])
        for candidates in (index.candidates(plan, stats=stats, active_only=True),
                           cache.candidates(plan, stats, active_only=True)):
            assert [(c.id, c.status) for c in candidates] == [("live", "active")]
        every = [index.candidates(plan, stats=stats), cache.candidates(plan, stats)]
        assert every[0] == every[1]
        assert len(every[0]) == CANDIDATE_LIMIT
        assert {c.status for c in every[0]} == {"superseded"}
    finally:
        index.db.close()


def test_retired_rows_after_the_first_places_are_read_in_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-read: with the places nearly filled by records in effect, each read asked only
    for the places left, so every retired record ranked after them cost a query of its
    own (1,501 reads for 1,500 expired records), on every prompt."""
    db = sqlite3.connect(tmp_path / "recall.db", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    live = [RecordInput(id=f"a{n:03d}", text=f"Release train {n}.")
            for n in range(CANDIDATE_LIMIT - 1)]
    retired = [RecordInput(id=f"r{n:04d}", text=f"Release train {n} left from the old yard.",
                           status="expired") for n in range(300)]
    last = RecordInput(id="zlast", text="The release train leaves from platform nine in "
                                        "the new station building on every weekday morning.")
    db.execute("BEGIN")
    index.add([*live, *retired, last])
    db.execute("COMMIT")
    cache = RecallCache(index)
    cache.refresh()
    plan = direct_plan("release train?")
    stats = index.stats([*plan.focus, *plan.context])
    reads: list[str] = []
    db.set_trace_callback(lambda sql: reads.append(sql) if "recall_records r" in sql else None)
    found = index.candidates(plan, stats=stats, active_only=True)
    db.set_trace_callback(None)
    batches = []
    real = cache._records
    monkeypatch.setattr(cache, "_records", lambda ids, *rest: (batches.append(len(ids)),
                                                              real(ids, *rest))[1])
    cached = cache.candidates(plan, stats, active_only=True)
    try:
        assert [c.id for c in found] == [c.id for c in cached]
        assert len(found) == CANDIDATE_LIMIT and found[-1].id == "zlast"
        assert len(reads) <= 10 and len(batches) <= 10, (len(reads), batches)
    finally:
        db.close()
