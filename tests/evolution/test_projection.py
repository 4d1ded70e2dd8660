"""Incremental projection of the evolution ledger equals a rebuild from it, and both equal
the pure fold (property test on real files and real SQLite; EVOLUTION item 6)."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import asdict

from tests.conftest import CountingIds, StepClock
from waymarks.core.evolution.fold import MemoryEvoView, fold
from waymarks.core.evolution.model import (
    EVOLUTION_CUSTOM_TYPE,
    SCHEMA_VERSION,
    ClaimRecord,
    Evidence,
    EvolutionRecord,
    ForgetRecord,
    RefusalRecord,
    SettledRecord,
    SourceRecord,
    claim_id,
    encode_record,
)
from waymarks.service.evolution import Evolution
from waymarks.store.evolution import EvolutionStore

ORIGINS = ["/w/a", "/w/b"]
CONTENTS = ["port is 8080", "port is 9090", "prefers tabs", "uses postgres"]
KINDS = ["fact", "preference"]
SOURCES = ["s1", "s2", "s3"]
T = "2026-12-01T10:00:00.000Z"


def _claim(origin: str, kind: str, content: str, replaces: int | None,
           state: str) -> ClaimRecord:
    target = None
    if replaces is not None:
        o, k, c = ORIGINS[replaces % 2], KINDS[replaces % 2], CONTENTS[replaces % 4]
        target = claim_id(o, k, c)
    return ClaimRecord(SCHEMA_VERSION, claim_id(origin, kind, content), origin, kind,  # type: ignore[arg-type]
                       content, Evidence("user_statement", "model", "s1", T), state,  # type: ignore[arg-type]
                       target, None, ("alias",))


records = st.one_of(
    st.builds(lambda s, o: SourceRecord(SCHEMA_VERSION, s, o, "statement", "user_statement",
                                        "text", "normal", T),
              st.sampled_from(SOURCES), st.sampled_from(ORIGINS)),
    st.builds(_claim, st.sampled_from(ORIGINS), st.sampled_from(KINDS),
              st.sampled_from(CONTENTS), st.none() | st.integers(0, 7),
              st.sampled_from(["provisional", "provisional", "conflicted"])),
    st.builds(lambda s, c: SettledRecord(SCHEMA_VERSION, s, c, T),
              st.sampled_from(SOURCES), st.sampled_from(["applied", "timeout"])),
    st.builds(lambda s: RefusalRecord(SCHEMA_VERSION, s, "x" * 24, "pinned", T),
              st.sampled_from(SOURCES)),
    st.builds(lambda o, k, c: ForgetRecord(SCHEMA_VERSION, claim_id(o, k, c), T),
              st.sampled_from(ORIGINS), st.sampled_from(KINDS), st.sampled_from(CONTENTS)),
)


def _dump(store: EvolutionStore) -> tuple[object, ...]:
    return (store.claims(), store.sources(), [e[2:] for e in store.events()],
            store.suppressions())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(records, st.booleans()), max_size=25), st.integers(1, 4))
@pytest.mark.slow
def test_incremental_equals_rebuild_equals_the_pure_fold(
        steps: list[tuple[EvolutionRecord, bool]], part: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        evo = Evolution(home, clock=StepClock(), ids=CountingIds(3))
        memory = MemoryEvoView()
        for seq, (record, sync_now) in enumerate(steps, start=1):
            fold(memory, record, seq)
            with evo.ledger.locked():
                stamp = "2026-12-01T10:00:00.000Z"
                evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                                   "data": encode_record(record), "timestamp": stamp},
                                  evo.ids.entry_id)
            if sync_now:
                evo.sync()
        evo.sync()
        incremental = _dump(evo.store)
        evo.close()
        rebuilt_store = EvolutionStore(home / "other.db", 0)
        with rebuilt_store.transaction():
            rebuilt_store.sync(evo.ledger)
        assert _dump(rebuilt_store) == incremental
        rebuilt_store.close()
        in_parts = EvolutionStore(home / "parts.db", 0)  # a first fold, ``part`` at a time
        while True:
            with in_parts.transaction():
                if in_parts.sync(evo.ledger, part) < part:
                    break
        assert _dump(in_parts) == incremental
        in_parts.close()
        assert sorted(asdict(c)["id"] for c in memory.claims.values()) == sorted(
            c.id for c in incremental[0])  # type: ignore[attr-defined]
        assert sorted(memory.claims.values(), key=lambda c: c.id) == sorted(
            incremental[0], key=lambda c: c.id)  # type: ignore[arg-type]
        assert sorted(memory.suppressions) == incremental[3]


def test_a_replaced_ledger_is_folded_again_from_the_start(tmp_path: Path) -> None:
    evo = Evolution(tmp_path, clock=StepClock(), ids=CountingIds(4))
    assert evo.capture("/w/a", "statement", "Remember we use uv", session="s", key="1")
    evo.close()
    ledger = tmp_path / "evolution" / "ledger.jsonl"
    ledger.unlink()
    again = Evolution(tmp_path, clock=StepClock(), ids=CountingIds(5))
    assert again.capture("/w/a", "statement", "Remember we use pip", session="s", key="2")
    assert [s.text for s in again.store.sources()] == ["Remember we use pip"]
    again.close()


def _folded(home: Path) -> int:
    """The records the projection's committed checkpoint vouches for (another reader)."""
    with sqlite3.connect(home / "waymarks.db") as db:
        row = db.execute("SELECT value FROM evo_meta WHERE name = 'folded'").fetchone()
    return 0 if row is None else int(row[0])


def test_a_first_fold_commits_in_parts_and_a_killed_one_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first fold of a large ledger held the writer's turn until its end (~70 s at 60k
    learned claims: every prompt's hook got no context, pins included), and a fold killed
    in the middle had committed nothing: it commits in parts, readers see each, and a
    killed one resumes from the last part committed."""
    home = tmp_path / "home"
    evo = Evolution(home, clock=StepClock(), ids=CountingIds(6))
    with evo.ledger.locked():
        for n in range(10):
            evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                               "data": encode_record(SourceRecord(
                                   SCHEMA_VERSION, f"s{n}", "/w/a", "statement",
                                   "user_statement", f"text {n}", "normal", T)),
                               "timestamp": T}, evo.ids.entry_id)
    evo.close()
    monkeypatch.setattr("waymarks.store.evolution.FOLD_CHUNK", 3, raising=False)
    import waymarks.store.evolution as store_module

    seen: list[tuple[int, int]] = []
    real_fold = store_module.fold

    def killed_at_eight(view: object, record: EvolutionRecord, seq: int) -> object:
        seen.append((seq, _folded(home)))  # what another reader sees meanwhile
        if seq == 8:
            raise KeyboardInterrupt  # killed in the third part
        return real_fold(view, record, seq)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "fold", killed_at_eight)
    first = Evolution(home, clock=StepClock(), ids=CountingIds(7))
    with pytest.raises(KeyboardInterrupt):
        first.sync()
    first.close()
    assert (4, 3) in seen and (7, 6) in seen  # each part visible once committed
    assert _folded(home) == 6
    monkeypatch.setattr(store_module, "fold", real_fold)
    again = Evolution(home, clock=StepClock(), ids=CountingIds(8))
    assert again.sync() == 4  # resumed, not restarted
    rebuilt = EvolutionStore(tmp_path / "rebuilt.db", 0)
    with rebuilt.transaction():
        rebuilt.sync(again.ledger)
    assert _dump(rebuilt) == _dump(again.store)
    assert [s.source_id for s in again.store.sources()] == [f"s{n}" for n in range(10)]
    rebuilt.close()
    again.close()


def test_a_fold_in_parts_reads_the_ledger_a_window_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each part read only what it folds, a window at a time (reading and splitting all
    the rest of a 72 MB ledger for each of 180 parts cost more than the fold), lines
    longer than a window included: the same records, the same checkpoint."""
    monkeypatch.setattr("waymarks.ledger.entries.LINES_WINDOW", 64)
    monkeypatch.setattr("waymarks.store.evolution.FOLD_CHUNK", 2)
    evo = Evolution(tmp_path, clock=StepClock(), ids=CountingIds(9))
    for n in range(7):
        assert evo.capture("/w/a", "statement", f"Remember rule {n} " + "x" * 40 * n,
                           session="s", key=str(n))
    whole = EvolutionStore(tmp_path / "whole.db", 0)
    with whole.transaction():
        whole.sync(evo.ledger)
    parts = EvolutionStore(tmp_path / "parts.db", 0)
    assert parts.fold_in_parts(evo.ledger) == len(whole.events())
    assert _dump(parts) == _dump(whole) == _dump(evo.store)
    assert parts.signature() == whole.signature()
    whole.close()
    parts.close()
    evo.close()


def _sources(evo: Evolution, names: list[str]) -> None:
    with evo.ledger.locked():
        for name in names:
            evo.ledger.append({"type": "custom", "customType": EVOLUTION_CUSTOM_TYPE,
                               "data": encode_record(SourceRecord(
                                   SCHEMA_VERSION, name, "/w/a", "statement",
                                   "user_statement", f"text {name}", "normal", T)),
                               "timestamp": T}, evo.ids.entry_id)


def test_a_fold_in_parts_reads_on_past_what_another_process_folded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two parts of a long fold another process appended a record and folded
    everything, past what this fold's reader had read: taken for a shorter ledger, the
    projection was emptied and folded again from the start (~70 s at 60k claims)."""
    import waymarks.store.evolution as store_module

    home = tmp_path / "home"
    first = Evolution(home, clock=StepClock(), ids=CountingIds(10))
    _sources(first, [f"s{n}" for n in range(6)])
    monkeypatch.setattr(store_module, "FOLD_CHUNK", 2)
    resets: list[int] = []
    real_reset = EvolutionStore.reset
    monkeypatch.setattr(EvolutionStore, "reset",
                        lambda self: (resets.append(1), real_reset(self))[1])
    other = Evolution(home, clock=StepClock(), ids=CountingIds(11))

    appended: list[str] = []

    class Meanwhile:
        @staticmethod
        def sleep(_seconds: float) -> None:  # between two parts of the first fold
            if not appended:
                appended.append("late")
                _sources(other, appended)
                other.sync()

    monkeypatch.setattr(store_module, "time", Meanwhile)
    first.sync()
    assert resets == []
    assert [s.source_id for s in first.store.sources()] == [
        *(f"s{n}" for n in range(6)), "late"]
    rebuilt = EvolutionStore(tmp_path / "rebuilt.db", 0)
    with rebuilt.transaction():
        rebuilt.sync(first.ledger)
    assert _dump(rebuilt) == _dump(first.store)
    for store in (rebuilt, other, first):
        store.close()
