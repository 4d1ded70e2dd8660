"""Item rows: the ``items`` row of an item state and back, checked on every read.

The row layout is :data:`waymarks.store.integrity.ITEM_COLUMNS`; the checksum covers every
column before it (:mod:`waymarks.store.integrity`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from waymarks.core.model import MemoryItem, PinItem
from waymarks.core.records import json_decoder
from waymarks.core.rules import ItemState
from waymarks.store.integrity import VerifiedMemo, decoding, item_checksum, verify_item

#: the ``seq`` a held-back mutation's row counts on from: it has no place in the replay
#: order (a rebuild numbers 1..n what it applies), and one numbered right after those
#: took the number of the next record applied, which a rebuild then gave it instead
#: (here, not in ``store/rebuild.py``: a hook that rebuilds nothing imports no rebuild)
HELD_SEQ: Final = 1 << 60
_ENCODER: Final = msgspec.json.Encoder()
#: items already decoded from verified rows (an ``ItemState`` is immutable: shared safely)
_STATES: Final = VerifiedMemo[ItemState]()
_PIN_DECODER: Final = json_decoder(PinItem)
_MEMORY_DECODER: Final = json_decoder(MemoryItem)


def item_row(state: ItemState) -> tuple[Any, ...]:
    """The ``items`` row of ``state`` (ITEM_COLUMNS order), its checksum last."""
    item = state.item
    row = (
        state.id, state.kind, item.scope, state.partition, item.project_path, state.key,
        item.classification, state.text, state.norm, state.polarity_base, state.polarity_sign,
        state.status, state.reason, state.superseded_by, state.supersedes,
        json_list(state.conflicts_with), state.session_id, state.entry_id,
        item.branch_leaf_id if isinstance(item, PinItem) else None,
        item.created_at, state.seq, _ENCODER.encode(item),
    )
    return (*row, item_checksum(row))


def state_from_row(row: Sequence[Any], *, verified: bool = False) -> ItemState:
    """The item an ``items`` row holds, after checking it is exactly as written (else
    :class:`ProjectionDamaged`). ``verified``: the caller checked this very row as it read
    it (:mod:`waymarks.store.queries`), so it is not checked twice: past the memo's 8,192
    rows (``--json pins`` of 24,814 pins) the second check was a whole one for each."""
    known = _STATES.get(row[0], row) if row else None
    if known is not None:
        return known
    if not verified:
        verify_item(row)
    with decoding("an items row"):
        item: PinItem | MemoryItem = (
            _PIN_DECODER.decode(row[21]) if row[1] == "pin" else _MEMORY_DECODER.decode(row[21])
        )
        state = ItemState(
            item=item, kind=row[1], session_id=row[16], entry_id=row[17], partition=row[3],
            norm=row[8], key=row[5], polarity_base=row[9], polarity_sign=row[10], seq=row[20],
            status=row[11], reason=row[12], superseded_by=row[13], supersedes=row[14],
            conflicts_with=tuple(msgspec.json.decode(row[15], type=list[str]))
            if row[15] else (),
        )
    _STATES.put(row[0], row, state)
    return state


def json_list(values: tuple[str, ...]) -> str | None:
    """A list column: JSON, or NULL when empty."""
    return _ENCODER.encode(list(values)).decode() if values else None
