"""Full replay: the pure fold of every known mutation into item state.

The same set of mutation records always yields the same state, whatever order they are
given in: records are sorted by :attr:`MutationRecord.order` first. Sequence numbers
(``seq``) are positions in that order, starting at 1.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

import msgspec

from waymarks.core.contradiction import parts, subject_keys
from waymarks.core.model import Kind, MutationRecord, status_target
from waymarks.core.rules import (
    Ignored,
    ItemState,
    MutationEffect,
    StateView,
    apply_mutation,
    copy_id,
)


class MemoryView:
    """An in-memory :class:`~waymarks.core.rules.StateView` with indexes for the rules.

    The key and polarity facets are kept by text and by sign within them: a conflict
    needs another text under the same key, or the opposite sign, and a ledger holding
    thousands of copies of one claim made every add scan all of them (12k copies: 16 s)."""

    def __init__(self) -> None:
        self.items: dict[str, ItemState] = {}
        # one index per facet of the rules: (kind, partition, value) -> active items by ID
        self._by_norm: dict[tuple[str, str, str], dict[str, ItemState]] = {}
        # (kind, partition, key) -> norm -> active items by ID
        self._by_key: dict[tuple[str, str, str], dict[str, dict[str, ItemState]]] = {}
        # (kind, partition, polarity base) -> sign -> active items by ID
        self._by_polarity: dict[tuple[str, str, str], dict[int, dict[str, ItemState]]] = {}
        # (partition, subject key) -> memory item IDs (any status), as the store's
        # claim_subjects keeps them: built by the first question about a subject (a fold
        # that is never asked works out no signature), then kept up by ``put``
        self._by_subject: dict[tuple[str, str], dict[str, None]] | None = None

    def get(self, item_id: str) -> ItemState | None:
        return self.items.get(item_id)

    def active_matching(
        self, kind: Kind, partition: str, norm: str, key: str | None, polarity_base: str | None
    ) -> Sequence[ItemState]:
        found = dict(self._by_norm.get((kind, partition, norm), _EMPTY))
        if key is not None:
            for group in self._by_key.get((kind, partition, key), _NONE).values():
                found.update(group)
        if polarity_base is not None:
            for group in self._by_polarity.get((kind, partition, polarity_base),
                                               _NONE).values():
                found.update(group)
        return list(found.values())

    def active_with_norms(self, kind: Kind, partition: str, norms: Sequence[str]
                          ) -> Sequence[ItemState]:
        found = {i: s for norm in norms
                 for i, s in self._by_norm.get((kind, partition, norm), _EMPTY).items()}
        return sorted(found.values(), key=lambda s: s.seq)

    def active_conflicting(
        self, kind: Kind, partition: str, norm: str, key: str | None,
        polarity_base: str | None, polarity_sign: int, limit: int,
    ) -> Sequence[ItemState]:
        # a group holds its items in the order they became active, which is ``seq``
        # order: a fold puts each item active once, as it is added in order, and a later
        # change only takes it out (no rule puts an active item again): the first
        # ``limit`` of each group are its earliest
        found: dict[str, ItemState] = {}
        if key is not None:
            for other_norm, group in self._by_key.get((kind, partition, key), _NONE).items():
                if other_norm != norm:
                    found.update(islice(group.items(), limit))
        if polarity_base is not None:
            signs = self._by_polarity.get((kind, partition, polarity_base), _NONE)
            found.update(islice(((i, s) for i, s in signs.get(-polarity_sign, _EMPTY).items()
                                 if s.norm != norm), limit))
        return list(found.values())

    def active_texts(self, partition: str, subject: frozenset[str] | None = None,
                     most: int | None = None) -> Sequence[tuple[str, str]]:
        if subject is None:
            states: Iterable[ItemState] = self.items.values()
        elif not subject:
            return []  # as the store answers: no subject, nothing it may contradict
        else:  # the claims holding its rarest term, and those whose subject is a part of
            # it (store.claim_subjects: an import's dry run read every claim per line)
            index = self._subjects()
            rarest = min(sorted(subject), key=lambda term: len(index.get(
                (partition, "t:" + term), _NO_IDS)))
            if most is not None and len(index.get((partition, "t:" + rarest), _NO_IDS)) > most:
                return []
            found: dict[str, None] = {}
            for key in ("t:" + rarest, *parts(subject)):
                found.update(index.get((partition, key), _NO_IDS))
            states = [self.items[item_id] for item_id in found]
        return self._active_texts(partition, states)

    def active_texts_holding(self, partition: str, terms: Collection[str], most: int
                             ) -> Sequence[tuple[str, str]]:
        index = self._subjects()
        found: dict[str, None] = {}
        for term in terms:
            ids = index.get((partition, "t:" + term), _NO_IDS)
            if len(ids) <= most:
                found.update(ids)
        return self._active_texts(partition, (self.items[item_id] for item_id in found))

    def _active_texts(self, partition: str, states: Iterable[ItemState]
                      ) -> list[tuple[str, str]]:
        return [(s.id, s.text) for s in sorted(states, key=lambda s: s.seq)
                if s.kind == "memory" and s.status == "active" and s.partition == partition]

    def _subjects(self) -> dict[tuple[str, str], dict[str, None]]:
        if self._by_subject is None:
            self._by_subject = {}
            for state in self.items.values():
                self._index_subject(state)
        return self._by_subject

    def _index_subject(self, state: ItemState) -> None:
        if state.kind == "memory" and self._by_subject is not None:
            for key in subject_keys(state.text):
                self._by_subject.setdefault((state.partition, key), {})[state.item.id] = None

    def put(self, state: ItemState) -> None:
        # the facets spelled out, not looped over (this runs once per mutation replayed)
        item_id = state.item.id
        previous = self.items.get(item_id)
        if previous is not None and previous.status == "active":
            self._unindex(previous)
        self.items[item_id] = state
        if previous is None and self._by_subject is not None:
            self._index_subject(state)
        if state.status == "active":
            kind, partition = state.kind, state.partition
            self._by_norm.setdefault((kind, partition, state.norm), {})[item_id] = state
            if state.key is not None:
                self._by_key.setdefault((kind, partition, state.key), {}).setdefault(
                    state.norm, {})[item_id] = state
            if state.polarity_base is not None:
                self._by_polarity.setdefault((kind, partition, state.polarity_base),
                                             {}).setdefault(state.polarity_sign,
                                                            {})[item_id] = state

    def _unindex(self, state: ItemState) -> None:
        """Take an active ``state`` out of the facet indexes, and a group it leaves empty
        with it: ``active_conflicting`` walks every group under a key, and a supersede
        chain leaves one per text it ever held (a chain of 8,000 rebuilt in 10.8 s)."""
        kind, partition, item_id = state.kind, state.partition, state.item.id
        _drop(self._by_norm, (kind, partition, state.norm), item_id)
        if state.key is not None:
            by_norm = self._by_key[(kind, partition, state.key)]
            _drop(by_norm, state.norm, item_id)
            if not by_norm:
                del self._by_key[(kind, partition, state.key)]
        if state.polarity_base is not None:
            signs = self._by_polarity[(kind, partition, state.polarity_base)]
            _drop(signs, state.polarity_sign, item_id)
            if not signs:
                del self._by_polarity[(kind, partition, state.polarity_base)]


def _drop(groups: dict[Any, dict[str, ItemState]], group: Any, item_id: str) -> None:
    """Take ``item_id`` out of ``groups[group]``, and the group out once it is empty."""
    members = groups[group]
    members.pop(item_id, None)
    if not members:
        del groups[group]


class OverlayView:
    """A :class:`~waymarks.core.rules.StateView` of ``base`` with states put on top and
    ``base`` left untouched: what a sequence of writes would see, each after the ones
    before it applied (an import's dry run). A state put here hides ``base``'s state of
    the same item; the rules read both through the same methods, so nothing of them is
    repeated here."""

    def __init__(self, base: StateView) -> None:
        self.base = base
        self.top = MemoryView()

    def _under(self, states: Iterable[ItemState]) -> list[ItemState]:
        return [s for s in states if s.item.id not in self.top.items]

    def get(self, item_id: str) -> ItemState | None:
        return self.top.get(item_id) or self.base.get(item_id)

    def active_matching(
        self, kind: Kind, partition: str, norm: str, key: str | None, polarity_base: str | None
    ) -> Sequence[ItemState]:
        return [*self._under(self.base.active_matching(kind, partition, norm, key,
                                                       polarity_base)),
                *self.top.active_matching(kind, partition, norm, key, polarity_base)]

    def active_with_norms(self, kind: Kind, partition: str, norms: Sequence[str]
                          ) -> Sequence[ItemState]:
        return [*self._under(self.base.active_with_norms(kind, partition, norms)),
                *self.top.active_with_norms(kind, partition, norms)]

    def active_conflicting(
        self, kind: Kind, partition: str, norm: str, key: str | None,
        polarity_base: str | None, polarity_sign: int, limit: int,
    ) -> Sequence[ItemState]:
        # the base's earliest ``limit`` once those the top hides are left out
        below = self.base.active_conflicting(kind, partition, norm, key, polarity_base,
                                             polarity_sign, limit + len(self.top.items))
        return [*self._under(below)[:limit], *self.top.active_conflicting(
            kind, partition, norm, key, polarity_base, polarity_sign, limit)]

    def active_texts(self, partition: str, subject: frozenset[str] | None = None,
                     most: int | None = None) -> Sequence[tuple[str, str]]:
        return [*((i, t) for i, t in self.base.active_texts(partition, subject, most)
                  if i not in self.top.items), *self.top.active_texts(partition, subject, most)]

    def active_texts_holding(self, partition: str, terms: Collection[str], most: int
                             ) -> Sequence[tuple[str, str]]:
        return [*((i, t) for i, t in self.base.active_texts_holding(partition, terms, most)
                  if i not in self.top.items),
                *self.top.active_texts_holding(partition, terms, most)]

    def put(self, state: ItemState) -> None:
        self.top.put(state)


_EMPTY: dict[str, ItemState] = {}
_NO_IDS: dict[str, None] = {}
_NONE: dict[Any, dict[str, ItemState]] = {}


class ReplayResult(msgspec.Struct, frozen=True):
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


def replay_each(ordered: Iterable[MutationRecord], view: MemoryView
                ) -> Iterator[tuple[int, MutationRecord, MutationEffect]]:
    """:func:`replay` one record at a time: ``ordered`` (sorted by
    :attr:`MutationRecord.order`) folded into a fresh ``view``, each record yielded with
    its ``seq`` and effect as it is applied and none of them kept. A rebuild writes each
    one's row and needs only the final states (``view.items``): the list of every effect,
    and the states only it still named, were a tenth of its peak memory at 1M records."""
    for seq, record in enumerate(ordered, start=1):
        yield seq, record, apply_mutation(view, record, seq)


#: why a mutation of an excluded source is kept but not applied
SOURCE_EXCLUDED = Ignored("source excluded by local policy")


def hold_back(records: Sequence[MutationRecord], excluded: Collection[str]
              ) -> tuple[list[MutationRecord], list[MutationRecord]]:
    """Split ``records`` into those that contribute and those an exclusion holds back.

    Excluding a session withdraws only its *project* contributions: adds and supersedes of
    project-scoped items, and status changes aimed at project-scoped items. Its session
    and branch items stay, since only that session ever sees them.
    """
    if not excluded:
        return list(records), []
    project_ids = _project_ids(records)
    kept: list[MutationRecord] = []
    held: list[MutationRecord] = []
    for record in records:
        mutation = record.mutation
        project = (mutation.item.scope == "project" if mutation.item is not None
                   else status_target(mutation) in project_ids)
        (held if project and record.session_id in excluded else kept).append(record)
    return kept, held


def _project_ids(records: Sequence[MutationRecord]) -> set[str]:
    """The IDs a status change aimed at a project item may name: each project item's, and,
    when another session's item holds that ID too, those of its copies (:func:`copy_id`:
    the item may be kept as its session's copy, whose ID can be worked out, and an
    excluded session unpinned such a copy by it, not held back)."""
    writers: dict[str, set[str]] = {}
    for record in records:
        if record.mutation.item is not None:
            writers.setdefault(record.mutation.item.id, set()).add(record.session_id)
    found: set[str] = set()
    for record in records:
        item = record.mutation.item
        if item is None or item.scope != "project":
            continue
        found.add(item.id)
        if len(writers[item.id]) > 1:  # its ID taken by another session's item
            copy = copy_id(item.id, record.session_id)
            found.add(copy)
            while copy in writers:  # the copy's ID taken too: the copy's copy
                copy = copy_id(copy, record.session_id)
                found.add(copy)
    return found
