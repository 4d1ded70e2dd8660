"""A fold in parts (and a cache written in parts) lets a thread of the same process that
waits for the writer's turn go before its next part, even one run later than the pause.

Pi's bridge and the Claude Code helper fold the evolution ledger and write its postings
on a thread of their own as they start, while their requests plan, and a plan writes its
manifest in the writer's turn. The parts paused 10 ms for a waiter to take the turn: on a
busy machine (load 6-8 on 2 cores) the waiting thread was not run within it, the next
part took the turn again, and a Pi plan at 60k learned claims waited 3.0 s for it (4.6 s
in all; 8.2 s for one in ``benchmarks/pi_learned_plan.py``, past the extension's 5 s:
that prompt got no context, pins included)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import CountingIds, StepClock
from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    SourceRecord,
    encode_record,
)
from waymarks.service.evolution import Evolution
from waymarks.store import writer_lock

T = "2026-12-01T10:00:00.000Z"
#: how late the waiting thread runs (a scheduling delay on a busy machine; longer than
#: the 10 ms pause the parts had)
LATE_S = 0.05


def _folded(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT value FROM evo_meta WHERE name = 'folded'").fetchone()
    return 0 if row is None else int(row[0])


def test_a_thread_waiting_for_the_writers_turn_goes_between_two_parts_of_a_fold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(6))
    with evo.ledger.locked():
        for n in range(12):
            evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                               "data": encode_record(SourceRecord(
                                   SCHEMA_VERSION, f"s{n}", "/w/a", "statement",
                                   "user_statement", f"text {n}", "normal", T)),
                               "timestamp": T}, evo.ids.entry_id)
    evo.close()
    import waymarks.store.evolution as store_module

    monkeypatch.setattr(store_module, "FOLD_CHUNK", 2)
    waiter = "waymarks-test-waiter"
    in_second_part, waiting = threading.Event(), threading.Event()
    real_flock, real_fold = writer_lock.flock_within, store_module.fold

    def flock_within(fd: int, timeout_s: float) -> bool:
        if threading.current_thread().name == waiter:
            waiting.set()
            time.sleep(LATE_S)  # (run late: the scheduling delay itself, not a wait)
        return real_flock(fd, timeout_s)

    def fold(view: object, record: object, seq: int) -> object:
        if seq == 3:  # the second part holds the turn: the waiter comes now
            in_second_part.set()
            assert waiting.wait(10)
        return real_fold(view, record, seq)  # type: ignore[arg-type]

    monkeypatch.setattr(writer_lock, "flock_within", flock_within)
    monkeypatch.setattr(store_module, "fold", fold)
    db_path = home / "waymarks.db"
    seen: list[int] = []

    def wait_for_the_turn() -> None:
        assert in_second_part.wait(10)
        with writer_lock.writer_turn(db_path, 10):
            seen.append(_folded(db_path))

    thread = threading.Thread(target=wait_for_the_turn, name=waiter)
    thread.start()
    folding = Evolution(home, clock=StepClock(), ids=CountingIds(7))
    try:
        assert folding.sync() == 12
    finally:
        folding.close()
        thread.join(10)
    assert seen == [4]  # right after the second part, not after a later one


def test_a_pause_between_parts_waits_for_no_one_while_its_own_thread_holds_the_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A part that pauses with the writer's turn still held by its thread (a caller
    inside a transaction) can let no waiter in: the waiter blocks on this very thread, so
    the pause waited out the whole second of :data:`YIELD_LIMIT_S` for nothing, then
    went on. It goes on at once."""
    import types

    import waymarks.store.evolution as store_module

    db = tmp_path / "waymarks.db"
    waiting = threading.Event()
    real_flock = writer_lock.flock_within

    def flock(fd: int, timeout_s: float) -> bool:
        if threading.current_thread().name == "waymarks-test-waiter":
            waiting.set()  # (counted by waited_for before it tries)
        return real_flock(fd, timeout_s)

    monkeypatch.setattr(writer_lock, "flock_within", flock)
    pauses: list[float] = []
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(sleep=pauses.append))

    def wait_for_the_turn() -> None:
        with writer_lock.writer_turn(db, 30):
            pass

    with writer_lock.writer_turn(db, 30):
        waiter = threading.Thread(target=wait_for_the_turn, name="waymarks-test-waiter")
        waiter.start()
        assert waiting.wait(30)
        assert writer_lock.waited_for(db)
        store_module.let_waiters_in(db)
    waiter.join(30)
    assert not waiter.is_alive()
    assert pauses == []
