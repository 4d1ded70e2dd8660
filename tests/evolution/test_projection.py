"""Incremental projection of the evolution ledger equals a rebuild from it, and both equal
the pure fold (property test on real files and real SQLite; EVOLUTION item 6)."""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
@given(st.lists(st.tuples(records, st.booleans()), max_size=25))
@pytest.mark.slow
def test_incremental_equals_rebuild_equals_the_pure_fold(
        steps: list[tuple[EvolutionRecord, bool]]) -> None:
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
