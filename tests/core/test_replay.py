"""Full replay: determinism, conflicts, supersession and lifecycle rules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.core.model import (
    MemoryItem,
    MemoryMutation,
    MutationRecord,
    PinItem,
    PinMutation,
)
from waymarks.core.replay import MemoryView, ReplayResult, replay, replay_each
from waymarks.core.rules import (
    MAX_CONFLICTS_NAMED,
    Applied,
    Ignored,
    ItemState,
    apply_mutation,
    copy_id,
)
from waymarks.store.projection import Projection

SESSION = "11111111-1111-4111-8111-111111111111"
OTHER_SESSION = "22222222-2222-4222-8222-222222222222"
PROJECT = "/home/u/proj"


class Ledger:
    """Builds mutation records with increasing timestamps and entry indexes."""

    def __init__(self, session_id: str = SESSION, start_ms: int = 1_000) -> None:
        self.session_id = session_id
        self.clock = start_ms
        self.index = 0
        self.records: list[MutationRecord] = []

    def _record(self, mutation: PinMutation | MemoryMutation, ts: int | None) -> MutationRecord:
        self.clock += 10
        record = MutationRecord(
            session_id=self.session_id,
            entry_id=f"e{self.index:07x}",
            entry_index=self.index,
            timestamp_ms=self.clock if ts is None else ts,
            mutation=mutation,
        )
        self.index += 1
        self.records.append(record)
        return record

    def _mid(self) -> str:
        return f"{self.session_id[:4]}-m{self.index}"

    def memory(
        self,
        item_id: str,
        claim: str,
        *,
        scope: str = "session",
        key: str | None = None,
        previous: str | None = None,
        ts: int | None = None,
    ) -> MutationRecord:
        item = MemoryItem(
            id=item_id,
            scope=scope,  # type: ignore[arg-type]
            claim=claim,
            created_at=self.clock,
            source_entry_ids=(),
            project_path=PROJECT if scope == "project" else None,
            key=key,
        )
        operation = "supersede" if previous else "add"
        mutation = MemoryMutation(
            1, self._mid(), self.clock, operation, item=item, previous_id=previous
        )
        return self._record(mutation, ts)

    def memory_status(
        self, item_id: str, status: str, reason: str | None = None, ts: int | None = None
    ) -> MutationRecord:
        mutation = MemoryMutation(
            1,
            self._mid(),
            self.clock,
            "status",
            memory_id=item_id,
            status=status,
            reason=reason,  # type: ignore[arg-type]
        )
        return self._record(mutation, ts)

    def pin(
        self,
        item_id: str,
        content: str,
        *,
        scope: str = "session",
        previous: str | None = None,
        ts: int | None = None,
    ) -> MutationRecord:
        item = PinItem(
            id=item_id,
            scope=scope,  # type: ignore[arg-type]
            content=content,
            created_at=self.clock,
            project_path=PROJECT if scope == "project" else None,
            branch_leaf_id="leaf0001" if scope == "branch" else None,
        )
        operation = "supersede" if previous else "add"
        mutation = PinMutation(
            1, self._mid(), self.clock, operation, item=item, previous_id=previous
        )
        return self._record(mutation, ts)

    def pin_status(self, item_id: str, status: str = "deleted") -> MutationRecord:
        mutation = PinMutation(1, self._mid(), self.clock, "status", pin_id=item_id, status=status)  # type: ignore[arg-type]
        return self._record(mutation, None)


def effect_of(result: ReplayResult, record: MutationRecord) -> Applied | Ignored:
    return result.effects[result.ordered.index(record)]


def snapshot(result: ReplayResult) -> dict[str, tuple[object, ...]]:
    return {
        item_id: (
            state.status,
            state.reason,
            state.superseded_by,
            state.supersedes,
            state.conflicts_with,
            state.seq,
            state.key,
            state.item,
        )
        for item_id, state in result.items.items()
    }


# -- basics -------------------------------------------------------------------------------


def test_empty_replay() -> None:
    result = replay([])
    assert result.items == {}
    assert result.effects == []


def test_add_creates_active_items() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Package export mode defaults to PerEndpoint.")
    ledger.pin("p1", "Always run the tests")
    result = replay(ledger.records)
    memory, pin = result.items["m1"], result.items["p1"]
    assert memory.status == pin.status == "active"
    assert memory.kind == "memory" and pin.kind == "pin"
    assert memory.key == "package-export-mode"
    assert pin.key is None
    assert memory.seq == 1 and pin.seq == 2
    assert memory.session_id == SESSION
    assert memory.partition == f"session:{SESSION}"
    assert all(isinstance(e, Applied) for e in result.effects)


def test_explicit_key_is_normalized() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Exports are per endpoint", key="Package Export Mode")
    assert replay(ledger.records).items["m1"].key == "package-export-mode"


def test_project_items_are_partitioned_by_project() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is pnpm", scope="project")
    assert replay(ledger.records).items["m1"].partition == f"project:{PROJECT}"


def test_records_are_ordered_by_timestamp_not_input_order() -> None:
    ledger = Ledger()
    late = ledger.memory("late", "Build tool is npm", ts=5_000)
    early = ledger.memory("early", "Build tool is pnpm", ts=1_000)
    result = replay(ledger.records)
    assert result.ordered == [early, late]
    assert result.items["early"].status == "active"
    assert result.items["late"].status == "invalid"


def test_ties_are_broken_by_session_then_entry_order() -> None:
    a, b = Ledger(SESSION), Ledger(OTHER_SESSION)
    second = b.memory("b1", "Build tool is npm", ts=1_000)
    first = a.memory("a1", "Build tool is pnpm", ts=1_000)
    result = replay([second, first])
    assert result.ordered == [first, second]  # SESSION sorts before OTHER_SESSION
    # different sessions: session-scoped memories do not conflict
    assert result.items["a1"].status == result.items["b1"].status == "active"


# -- determinism --------------------------------------------------------------------------


def scenario() -> list[MutationRecord]:
    a, b = Ledger(SESSION), Ledger(OTHER_SESSION, start_ms=1_005)
    a.memory("m1", "Package export mode defaults to PerEndpoint.", scope="project")
    b.memory("m2", "Package export mode defaults to SingleFile.", scope="project")
    a.memory("m3", "Package export mode defaults to Bundle.", scope="project", previous="m1")
    b.memory("m4", "Telemetry enabled")
    b.memory("m5", "Telemetry disabled")
    a.memory_status("m3", "expired", "stale")
    a.memory_status("m3", "invalid")
    b.pin("p1", "Use pnpm", scope="branch")
    b.pin("p2", "Use yarn", previous="p1")
    a.pin("p3", "Never push to main", scope="project")
    a.pin_status("p3")
    a.pin_status("p3")
    b.memory("m1", "Duplicate id in another session")
    return a.records + b.records


def test_scenario_outcome() -> None:
    result = replay(scenario())
    items = result.items
    assert items["m1"].status == "superseded" and items["m1"].superseded_by == "m3"
    assert items["m2"].status == "invalid" and items["m2"].conflicts_with == ("m1",)
    assert items["m3"].status == "expired" and items["m3"].reason == "stale"
    assert items["m3"].supersedes == "m1"
    assert items["m4"].status == "active"
    assert items["m5"].status == "invalid" and items["m5"].conflicts_with == ("m4",)
    assert items["p1"].status == "superseded" and items["p2"].supersedes == "p1"
    assert items["p3"].status == "deleted"
    assert items["m1"].item.claim.startswith("Package")  # type: ignore[union-attr]
    ignored = [e for e in result.effects if isinstance(e, Ignored)]
    assert len(ignored) == 2  # second m3 status, second p3 delete
    # a session claim whose ID another session's project claim holds is its own copy (it
    # "already existed" and vanished)
    assert items[copy_id("m1", OTHER_SESSION)].text == "Duplicate id in another session"


@settings(max_examples=60)
@given(st.randoms(use_true_random=False))
def test_shuffled_scenario_is_deterministic(rng: random.Random) -> None:
    records = scenario()
    expected = replay(records)
    shuffled = list(records)
    rng.shuffle(shuffled)
    result = replay(shuffled)
    assert result.ordered == expected.ordered
    assert snapshot(result) == snapshot(expected)
    assert list(result.items) == list(expected.items)
    assert result.effects == expected.effects


CLAIMS = [
    "Build tool is pnpm",
    "Build tool is npm",
    "build tool is PNPM.",
    "Telemetry enabled",
    "Telemetry disabled",
    "Telemetry not enabled",
    "Use tabs",
    "Max retries = 3",
    "Max retries = 4",
]


@st.composite
def record_sets(draw: st.DrawFn) -> list[MutationRecord]:
    ledgers = [Ledger(SESSION), Ledger(OTHER_SESSION)]
    ids = [f"i{n}" for n in range(6)]
    for _ in range(draw(st.integers(min_value=1, max_value=25))):
        ledger = draw(st.sampled_from(ledgers))
        ts = draw(st.integers(min_value=0, max_value=40))  # frequent timestamp ties
        kind = draw(st.sampled_from(["memory", "supersede", "status", "pin", "unpin"]))
        item_id = draw(st.sampled_from(ids))
        if kind in ("memory", "supersede"):
            ledger.memory(
                item_id,
                draw(st.sampled_from(CLAIMS)),
                scope=draw(st.sampled_from(["session", "project"])),
                previous=draw(st.sampled_from(ids)) if kind == "supersede" else None,
                ts=ts,
            )
        elif kind == "status":
            status = draw(st.sampled_from(["invalid", "expired", "deleted"]))
            ledger.memory_status(item_id, status, ts=ts)
        elif kind == "pin":
            ledger.pin(item_id, draw(st.sampled_from(CLAIMS)), ts=ts)
        else:
            ledger.pin_status(item_id)
    return [r for ledger in ledgers for r in ledger.records]


def replay_is_order_independent(records: list[MutationRecord], rng: random.Random) -> None:
    expected = replay(records)
    shuffled = list(records)
    rng.shuffle(shuffled)
    result = replay(shuffled)
    assert snapshot(result) == snapshot(expected)
    assert result.effects == expected.effects


@lanes(quick=10, long=100)
def test_replay_is_order_independent(examples: int) -> None:
    run_property(examples, replay_is_order_independent,
                 record_sets(), st.randoms(use_true_random=False))


def replay_invariants(records: list[MutationRecord]) -> None:
    result = replay(records)
    assert len(result.effects) == len(records)
    assert [r.order for r in result.ordered] == sorted(r.order for r in records)
    for item_id, state in result.items.items():
        assert state.id == item_id
        if state.status == "superseded":
            assert state.superseded_by in result.items
            assert result.items[state.superseded_by].supersedes == item_id
        if state.kind == "pin":
            assert state.status in ("active", "superseded", "deleted", "invalid")
        else:
            assert state.status in ("active", "superseded", "invalid", "expired")
    # active memories of one partition that share a key are duplicates (same normal form)
    seen: dict[tuple[str, str], str] = {}
    for state in result.items.values():
        if state.kind == "memory" and state.status == "active" and state.key:
            assert seen.setdefault((state.partition, state.key), state.norm) == state.norm
    # and no two active memories of one partition contradict each other in polarity
    signs: dict[tuple[str, str], int] = {}
    for state in result.items.values():
        if state.kind == "memory" and state.status == "active" and state.polarity_base:
            sign = signs.setdefault((state.partition, state.polarity_base), state.polarity_sign)
            assert sign == state.polarity_sign


@lanes(quick=10, long=100)
def test_replay_invariants(examples: int) -> None:
    run_property(examples, replay_invariants, record_sets())


def replay_each_is_replay(records: list[MutationRecord]) -> None:
    """The rebuild's fold, one record at a time, gives what :func:`replay` gives."""
    expected = replay(records)
    view = MemoryView()
    steps = list(replay_each(sorted(records, key=lambda r: r.order), view))
    assert [seq for seq, _, _ in steps] == list(range(1, len(records) + 1))
    assert [record for _, record, _ in steps] == expected.ordered
    assert [effect for _, _, effect in steps] == expected.effects
    assert list(view.items) == list(expected.items)
    assert snapshot(ReplayResult(view.items, expected.ordered, expected.effects)) == snapshot(
        expected)


@lanes(quick=10, long=100)
def test_replay_each_is_replay(examples: int) -> None:
    run_property(examples, replay_each_is_replay, record_sets())


def test_items_of_one_partition_share_its_name() -> None:
    # a fold holds a state per item: one string per partition, not a copy in each (80 MB
    # of a rebuild's peak memory at 1M items)
    ledger, other = Ledger(SESSION), Ledger(OTHER_SESSION)
    for n in range(6):
        ledger.memory(f"m{n}", f"The service {n} uses Redis")
        ledger.memory(f"p{n}", f"The worker {n} uses Kafka", scope="project")
        other.pin(f"o{n}", f"Always run check {n}")
    states = replay(ledger.records + other.records).items.values()
    names = {(s.partition, id(s.partition)) for s in states}
    assert {name for name, _ in names} == {f"session:{SESSION}", f"project:{PROJECT}",
                                           f"session:{OTHER_SESSION}"}
    assert len(names) == 3


# -- conflicts ----------------------------------------------------------------------------


def test_same_key_conflict_invalidates_the_later_record() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Package export mode defaults to PerEndpoint.")
    later = ledger.memory("m2", "Package export mode defaults to SingleFile.")
    result = replay(ledger.records)
    assert result.items["m1"].status == "active"
    m2 = result.items["m2"]
    assert m2.status == "invalid"
    assert m2.conflicts_with == ("m1",)
    assert m2.reason is not None and "m1" in m2.reason
    assert isinstance(effect_of(result, later), Applied)


def test_conflict_names_every_earlier_item_earliest_first() -> None:
    ledger = Ledger()
    ledger.memory("a", "Telemetry enabled", key="telemetry-x")
    ledger.memory("b", "Telemetry is on for CI", key="telemetry-y")
    ledger.memory("c", "Telemetry disabled", key="telemetry-y")
    result = replay(ledger.records)
    c = result.items["c"]
    assert c.status == "invalid"
    assert c.conflicts_with == ("a", "b")  # a by polarity, b by key
    assert c.reason is not None and "a" in c.reason


def test_explicit_and_derived_keys_conflict() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Package export mode defaults to PerEndpoint.")
    ledger.memory("m2", "Exports go to one file", key="Package export mode")
    assert replay(ledger.records).items["m2"].conflicts_with == ("m1",)


def test_opposite_polarity_conflict_without_key() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Telemetry enabled")
    ledger.memory("m2", "Telemetry not enabled")
    result = replay(ledger.records)
    assert result.items["m1"].key is None
    assert result.items["m2"].status == "invalid"
    assert result.items["m2"].conflicts_with == ("m1",)


def test_same_polarity_and_duplicates_do_not_conflict() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Telemetry disabled")
    ledger.memory("m2", "Telemetry not enabled")
    ledger.memory("m3", "Build tool is pnpm")
    ledger.memory("m4", "  build TOOL is pnpm. ")
    result = replay(ledger.records)
    assert {s.status for s in result.items.values()} == {"active"}


def test_conflicts_are_per_partition() -> None:
    a, b = Ledger(SESSION), Ledger(OTHER_SESSION)
    a.memory("s1", "Build tool is pnpm")
    b.memory("s2", "Build tool is npm")
    a.memory("p1", "Build tool is yarn", scope="project")
    b.memory("p2", "Build tool is bun", scope="project")
    result = replay(a.records + b.records)
    assert result.items["s1"].status == "active"
    assert result.items["s2"].status == "active"  # other session
    assert result.items["p1"].status == "active"  # project partition differs from session
    assert result.items["p2"].status == "invalid"  # same project, across sessions
    assert result.items["p2"].conflicts_with == ("p1",)


def test_pins_never_conflict() -> None:
    ledger = Ledger()
    ledger.pin("p1", "Feature is enabled")
    ledger.pin("p2", "Feature is disabled")
    result = replay(ledger.records)
    assert result.items["p1"].status == result.items["p2"].status == "active"


def test_inactive_items_do_not_conflict() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory_status("m1", "invalid")
    ledger.memory("m2", "Build tool is pnpm")
    assert replay(ledger.records).items["m2"].status == "active"


def test_invalid_conflicting_item_blocks_nothing() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory("m2", "Build tool is pnpm")
    ledger.memory_status("m1", "expired")
    ledger.memory("m3", "Build tool is bun")
    result = replay(ledger.records)
    assert result.items["m2"].status == "invalid"
    assert result.items["m3"].status == "active"


# -- supersession -------------------------------------------------------------------------


def test_supersede_links_old_and_new() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Package export mode defaults to PerEndpoint.")
    record = ledger.memory("m2", "Package export mode defaults to SingleFile.", previous="m1")
    result = replay(ledger.records)
    old, new = result.items["m1"], result.items["m2"]
    assert old.status == "superseded"
    assert old.superseded_by == "m2"
    assert old.reason is not None and "m2" in old.reason
    assert new.status == "active"
    assert new.supersedes == "m1"
    assert new.conflicts_with == ()
    effect = effect_of(result, record)
    assert isinstance(effect, Applied)
    assert {s.id for s in effect.changed} == {"m1", "m2"}
    assert old.item.claim == "Package export mode defaults to PerEndpoint."  # type: ignore[union-attr]


def test_supersede_chain() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory("m2", "Build tool is yarn", previous="m1")
    ledger.memory("m3", "Build tool is pnpm", previous="m2")
    items = replay(ledger.records).items
    assert [items[i].status for i in ("m1", "m2", "m3")] == ["superseded", "superseded", "active"]
    assert items["m1"].superseded_by == "m2" and items["m2"].superseded_by == "m3"


def test_supersede_of_superseded_item_is_invalid() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory("m2", "Build tool is yarn", previous="m1")
    ledger.memory("m3", "Build tool is pnpm", previous="m1")
    items = replay(ledger.records).items
    assert items["m1"].status == "superseded" and items["m1"].superseded_by == "m2"
    assert items["m2"].status == "active"
    assert items["m3"].status == "invalid"
    assert items["m3"].reason is not None and "m1" in items["m3"].reason
    assert items["m3"].supersedes is None


def test_supersede_of_unknown_item_is_invalid() -> None:
    ledger = Ledger()
    ledger.memory("m2", "Build tool is pnpm", previous="missing")
    state = replay(ledger.records).items["m2"]
    assert state.status == "invalid"
    assert state.reason is not None and "missing" in state.reason


def test_supersede_across_kinds_is_invalid() -> None:
    ledger = Ledger()
    ledger.pin("p1", "Use pnpm")
    ledger.memory("m1", "Build tool is pnpm", previous="p1")
    items = replay(ledger.records).items
    assert items["p1"].status == "active"
    assert items["m1"].status == "invalid"


def test_supersede_of_expired_item_is_invalid() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory_status("m1", "expired")
    ledger.memory("m2", "Build tool is pnpm", previous="m1")
    items = replay(ledger.records).items
    assert items["m1"].status == "expired"
    assert items["m2"].status == "invalid"


def test_supersede_still_conflicts_with_third_items() -> None:
    a = Ledger(SESSION)
    a.memory("m1", "Build tool is npm")
    a.memory("m2", "Build tool is yarn")  # invalid: conflicts with m1
    a.memory("m3", "Telemetry enabled")
    a.memory("m4", "Telemetry disabled, build tool is pnpm", key="build-tool", previous="m1")
    items = replay(a.records).items
    assert items["m4"].status == "active"  # m2 is invalid, so nothing else is active
    a.memory("m5", "Telemetry is on", key="build-tool", previous="m3")
    items = replay(a.records).items
    assert items["m5"].status == "invalid"
    assert items["m5"].conflicts_with == ("m4",)
    assert items["m3"].status == "active"


def test_pin_supersede() -> None:
    ledger = Ledger()
    ledger.pin("p1", "Use pnpm")
    ledger.pin("p2", "Use pnpm 9", previous="p1")
    items = replay(ledger.records).items
    assert items["p1"].status == "superseded" and items["p1"].superseded_by == "p2"
    assert items["p2"].status == "active" and items["p2"].supersedes == "p1"


# -- status and duplicates ----------------------------------------------------------------


def test_memory_status_applies_with_reason() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    record = ledger.memory_status("m1", "invalid", "wrong")
    result = replay(ledger.records)
    assert result.items["m1"].status == "invalid"
    assert result.items["m1"].reason == "wrong"
    assert isinstance(effect_of(result, record), Applied)


def test_pin_delete() -> None:
    ledger = Ledger()
    ledger.pin("p1", "Use pnpm")
    ledger.pin_status("p1")
    assert replay(ledger.records).items["p1"].status == "deleted"


def test_status_on_unknown_id_is_ignored() -> None:
    ledger = Ledger()
    memory = ledger.memory_status("nope", "expired")
    pin = ledger.pin_status("nope")
    result = replay(ledger.records)
    assert result.items == {}
    assert isinstance(effect_of(result, memory), Ignored)
    assert isinstance(effect_of(result, pin), Ignored)


def test_status_on_other_kind_is_ignored() -> None:
    ledger = Ledger()
    ledger.pin("p1", "Use pnpm")
    record = ledger.memory_status("p1", "expired")
    result = replay(ledger.records)
    assert isinstance(effect_of(result, record), Ignored)
    assert result.items["p1"].status == "active"


@pytest.mark.parametrize("first", ["expired", "invalid"])
def test_status_on_non_active_is_ignored(first: str) -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory_status("m1", first, "first")
    record = ledger.memory_status("m1", "invalid", "second")
    result = replay(ledger.records)
    effect = effect_of(result, record)
    assert isinstance(effect, Ignored)
    assert first in effect.reason
    assert result.items["m1"].status == first
    assert result.items["m1"].reason == "first"


def test_status_on_superseded_is_ignored() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    ledger.memory("m2", "Build tool is pnpm", previous="m1")
    record = ledger.memory_status("m1", "expired")
    result = replay(ledger.records)
    assert isinstance(effect_of(result, record), Ignored)
    assert result.items["m1"].status == "superseded"
    assert result.items["m1"].superseded_by == "m2"


def test_deleting_a_deleted_pin_is_ignored() -> None:
    ledger = Ledger()
    ledger.pin("p1", "Use pnpm")
    ledger.pin_status("p1")
    record = ledger.pin_status("p1")
    assert isinstance(effect_of(replay(ledger.records), record), Ignored)


@pytest.mark.parametrize("status", ["deleted", "superseded", "active"])
def test_memory_status_not_allowed(status: str) -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    record = ledger.memory_status("m1", status)
    result = replay(ledger.records)
    effect = effect_of(result, record)
    assert isinstance(effect, Ignored)
    assert status in effect.reason
    assert result.items["m1"].status == "active"


@pytest.mark.parametrize("status", ["invalid", "expired", "superseded"])
def test_pin_status_not_allowed(status: str) -> None:
    ledger = Ledger()
    ledger.pin("p1", "Use pnpm")
    record = ledger.pin_status("p1", status)
    result = replay(ledger.records)
    assert isinstance(effect_of(result, record), Ignored)
    assert result.items["p1"].status == "active"


def test_duplicate_item_id_add_is_ignored() -> None:
    ledger = Ledger()
    ledger.memory("m1", "Build tool is npm")
    record = ledger.memory("m1", "Something else entirely")
    result = replay(ledger.records)
    effect = effect_of(result, record)
    assert isinstance(effect, Ignored)
    assert "m1" in effect.reason
    assert result.items["m1"].item.claim == "Build tool is npm"  # type: ignore[union-attr]
    assert result.items["m1"].seq == 1


def test_another_sessions_copy_of_a_session_item_is_its_own() -> None:
    """Pi's /fork copies the branch into a new session, item IDs and all: the copy is the
    fork's own item under an ID of its own, and the fork's changes naming the original ID
    change its copy, never the original (before: the copy was ignored, or, sorting
    first, took the ID from the session that wrote it)."""
    a, b = Ledger(SESSION), Ledger(OTHER_SESSION)
    a.pin("p1", "Use pnpm")
    b.pin("p1", "Use pnpm")  # the fork's copy, as Pi writes it
    b.clock += 1_000
    unpin = b.pin_status("p1")
    result = replay(a.records + b.records)
    copy = result.items[copy_id("p1", OTHER_SESSION)]
    assert result.items["p1"].session_id == SESSION and result.items["p1"].status == "active"
    assert copy.session_id == OTHER_SESSION and copy.status == "deleted"
    assert isinstance(effect_of(result, unpin), Applied)


def test_duplicate_item_id_across_kinds_and_sessions_is_a_copy() -> None:
    """Another session's item of another kind under the ID took it: the later session's
    item vanished as "already existing" (a backdated session could make a person's
    session claim or pin vanish so). It is its session's copy, as a fork's is."""
    a, b = Ledger(SESSION), Ledger(OTHER_SESSION, start_ms=2_000)
    a.pin("x", "Use pnpm")
    late_memory = b.memory("x", "Build tool is pnpm")
    late_supersede = b.memory("x", "Build tool is npm", previous="x")
    result = replay(a.records + b.records)
    assert result.items["x"].kind == "pin"
    assert isinstance(effect_of(result, late_memory), Applied)
    assert result.items[copy_id("x", OTHER_SESSION)].text == "Build tool is pnpm"
    assert isinstance(effect_of(result, late_supersede), Ignored)  # its copy's ID, again
    assert result.items["x"].status == "active"


# -- the conflict lookup ----------------------------------------------------------------


class _ByTheOldRule(MemoryView):
    """Conflicts found as replay found them before: every item sharing a facet, then
    the ones of another text that share the key or hold the opposite polarity."""

    def active_conflicting(self, kind: Any, partition: str, norm: str, key: str | None,
                           polarity_base: str | None, polarity_sign: int,
                           limit: int) -> list[ItemState]:
        return [o for o in self.active_matching(kind, partition, norm, key, polarity_base)
                if o.norm != norm and ((key is not None and o.key == key) or (
                    polarity_base is not None and o.polarity_base == polarity_base
                    and o.polarity_sign == -polarity_sign))]


def fold(view: Any, records: list[MutationRecord]) -> list[Any]:
    ordered = sorted(records, key=lambda r: r.order)
    return [apply_mutation(view, record, seq) for seq, record in enumerate(ordered, 1)]


def lookups_agree(records: list[MutationRecord], tmp: Path) -> None:
    old, new = _ByTheOldRule(), MemoryView()
    effects = fold(old, records)
    assert fold(new, records) == effects and new.items == old.items
    store = Projection(tmp / f"{len(list(tmp.iterdir()))}.db", 1)
    try:
        with store.transaction():  # the SQLite view's own lookup, the same records
            assert fold(store.view, records) == effects
    finally:
        store.close()


@lanes(quick=10, long=150)
def test_the_conflict_lookups_agree_with_the_old_rule(
        examples: int, tmp_path: Path) -> None:
    run_property(examples, lambda records: lookups_agree(records, tmp_path), record_sets(),
                 base=settings(deadline=None))


def test_many_copies_of_one_claim_are_folded_without_rescanning_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand-written ledger may hold thousands of copies of one claim, all active: each
    add scanned every copy under the shared key (12k copies: 16 s)."""
    ledger = Ledger()
    for n in range(2000):
        ledger.memory(f"copy-{n}", "The deploy target is staging")
    ledger.memory("other", "The deploy target is production")
    looked = {"items": 0}
    real = MemoryView.active_conflicting

    def counted(self: MemoryView, *args: Any) -> Any:
        found = real(self, *args)
        looked["items"] += len(found)
        return found

    monkeypatch.setattr(MemoryView, "active_conflicting", counted)
    result = replay(ledger.records)
    # only the last add meets other texts, and only the earliest few copies are named
    assert looked["items"] == MAX_CONFLICTS_NAMED + 1
    assert result.items["other"].status == "invalid"
    assert result.items["other"].conflicts_with == tuple(
        f"copy-{n}" for n in range(MAX_CONFLICTS_NAMED))


def test_both_lookups_leave_the_same_sign_and_the_same_text_out(tmp_path: Path) -> None:
    ledger = Ledger()
    ledger.memory("off-1", "Telemetry disabled")
    ledger.memory("off-2", "Telemetry not enabled")  # the same sign, another text
    ledger.memory("off-3", "Telemetry disabled")  # the same text
    on = ledger.memory("on", "Telemetry enabled")
    ledger.memory("pnpm-1", "Build tool is pnpm")
    ledger.memory("pnpm-2", "build tool is PNPM.")  # the same text once normalized
    ledger.memory("npm", "Build tool is npm")  # the same key, another text
    lookups_agree(ledger.records, tmp_path)
    result = replay(ledger.records)
    assert [result.items[i].status for i in ("pnpm-1", "pnpm-2")] == ["active"] * 2
    assert result.items["npm"].conflicts_with == ("pnpm-1", "pnpm-2")
    assert [result.items[i].status for i in ("off-1", "off-2", "off-3")] == ["active"] * 3
    assert result.items["on"].conflicts_with == ("off-1", "off-2", "off-3")
    assert effect_of(result, on) == Applied((result.items["on"],))


def test_a_project_item_whose_id_another_session_took_first_still_applies() -> None:
    """Item IDs are one namespace for the home: a session (another, untrusted project's)
    holding session items with a project's pin and claim IDs, dated earlier, made the
    project's items "already exist", and they vanished. The project's item is its
    session's own copy now, which its session can change by the ID it wrote."""
    thief, owner = Ledger(OTHER_SESSION, start_ms=500), Ledger(SESSION, start_ms=2_000)
    thief.pin("x", "Nothing to see")
    thief.memory("y", "Nothing here either")
    pin = owner.pin("x", "Run the tests before every commit", scope="project")
    claim = owner.memory("y", "The database port is 5433", scope="project")
    owner.clock += 1_000
    unpin = owner.pin_status("x")
    result = replay(thief.records + owner.records)
    assert isinstance(effect_of(result, pin), Applied)
    assert isinstance(effect_of(result, claim), Applied)
    mine = result.items[copy_id("y", SESSION)]
    assert (mine.item.scope, mine.status, mine.text) == ("project", "active",
                                                        "The database port is 5433")
    assert isinstance(effect_of(result, unpin), Applied)
    assert result.items[copy_id("x", SESSION)].status == "deleted"
    assert result.items["x"].status == "active"  # the other session's own, untouched


def test_a_long_supersede_chain_leaves_no_empty_groups_to_walk() -> None:
    """Each supersede of a chain takes the old text out of the indexes: the group it
    left empty stayed, under the same key, and every later write walked all of them, so
    rebuilding a chain was quadratic (4,000 links: 3 s, 8,000: 10.8 s)."""
    ledger = Ledger()
    ledger.memory("c1", "The release train leaves at 1 pm.", key="release train")
    for n in range(2, 302):
        ledger.memory(f"c{n}", f"The release train leaves at {n} pm.",
                      key="release train", previous=f"c{n - 1}")
    view = MemoryView()
    fold(view, ledger.records)
    assert view.items["c301"].status == "active"
    assert [s.status for s in view.items.values()].count("active") == 1
    indexes: list[dict[Any, Any]] = [view._by_norm, view._by_key, view._by_polarity]
    groups = [g for index in indexes for g in index.values()]
    groups += [inner for index in indexes[1:] for g in index.values() for inner in g.values()]
    assert all(groups), "an empty group is left in an index"
    assert len(view._by_norm) == 1 and len(view._by_key) == 1
    assert [len(g) for g in view._by_key.values()] == [1]
