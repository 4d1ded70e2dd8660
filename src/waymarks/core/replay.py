"""Full replay: the pure fold of every known mutation into item state.

The same set of mutation records always yields the same state, whatever order they are
given in: records are sorted by :attr:`MutationRecord.order` first. Sequence numbers
(``seq``) are positions in that order, starting at 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from waymarks.core.model import Kind, MutationRecord
from waymarks.core.rules import ItemState, MutationEffect, apply_mutation


class MemoryView:
    """An in-memory :class:`~waymarks.core.rules.StateView` with indexes for the rules."""

    def __init__(self) -> None:
        self.items: dict[str, ItemState] = {}
        # (kind, partition, facet, value) -> active items; facets: text, key, polarity base
        self._active: defaultdict[tuple[str, str, str, str], dict[str, ItemState]] = defaultdict(
            dict
        )

    def get(self, item_id: str) -> ItemState | None:
        return self.items.get(item_id)

    def active_matching(
        self, kind: Kind, partition: str, norm: str, key: str | None, polarity_base: str | None
    ) -> Sequence[ItemState]:
        found: dict[str, ItemState] = {}
        for facet in _facets(kind, partition, norm, key, polarity_base):
            found.update(self._active.get(facet, {}))
        return list(found.values())

    def put(self, state: ItemState) -> None:
        previous = self.items.get(state.id)
        if previous is not None:
            for facet in _state_facets(previous):
                self._active[facet].pop(previous.id, None)
        self.items[state.id] = state
        if state.status == "active":
            for facet in _state_facets(state):
                self._active[facet][state.id] = state


def _facets(
    kind: str, partition: str, norm: str, key: str | None, base: str | None
) -> list[tuple[str, str, str, str]]:
    facets = [(kind, partition, "text", norm)]
    if key is not None:
        facets.append((kind, partition, "key", key))
    if base is not None:
        facets.append((kind, partition, "polarity", base))
    return facets


def _state_facets(state: ItemState) -> list[tuple[str, str, str, str]]:
    return _facets(state.kind, state.partition, state.norm, state.key, state.polarity_base)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """Final state plus what each mutation did, in replay order."""

    items: dict[str, ItemState]
    ordered: list[MutationRecord]
    effects: list[MutationEffect]


def replay(records: Iterable[MutationRecord]) -> ReplayResult:
    """Fold all records, in canonical order, into a fresh state."""
    ordered = sorted(records, key=lambda r: r.order)
    view = MemoryView()
    effects = [apply_mutation(view, record, seq) for seq, record in enumerate(ordered, start=1)]
    return ReplayResult(view.items, ordered, effects)
