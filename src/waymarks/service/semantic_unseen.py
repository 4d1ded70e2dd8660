"""Which of the nearest records a one-shot hybrid recall's session may use, read as they
come (:class:`Unseen`), for :func:`waymarks.service.semantic_recall.semantic_side_for`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from waymarks.semantic import Nearest


class Unseen:
    """A one-shot process's records its session may not use (another session's, an
    untrusted project's, or not in effect), flagged as they come among the nearest.

    Reading every record the session may use, to flag the others, cost ~6 ms of CPU at
    10k records on every recall (~8,000 IDs read and looked up), for the ~40 nearest of
    one query. Now the nearest are chosen among the rows not flagged, those not seen yet
    are looked up (one read of a few IDs), the ones the session may not use flagged, and
    the nearest chosen again (the product is not taken again): what is chosen is the
    nearest among the records it may use, as before. Past :data:`ROUNDS` lookups (most
    records another session's), every record it may use is read once, as before; so too
    when none of the lexical candidates has a vector (whether any record the session may
    use has one is what decides whether the query is embedded at all)."""

    #: lookups of the nearest before every record is read
    ROUNDS: Final = 4

    def __init__(self, held: Nearest, seen: Callable[..., list[str]]) -> None:
        self.held, self.seen = held, seen
        self.flags = bytearray()
        #: the IDs looked up (or known to be among the records the session may use)
        self.checked: set[str] = set()
        self.rounds = 0
        #: every record flagged (read whole)
        self.whole = False

    def start(self, lexical_ids: Sequence[str]) -> bytearray:
        """The first flags: none while a lexical candidate with a vector is one the session
        may use (so one has a vector), else every record read."""
        present = [item_id for item_id in lexical_ids if item_id in self.held]
        if not present or not self.seen(among=present):
            self._read_whole()
        self.checked.update(lexical_ids)  # (given their cosines whatever the flags)
        return self.flags

    def found_among(self, ids: Sequence[str]) -> bool:
        """Whether records the session may not use were among ``ids`` (now flagged)."""
        new = [item_id for item_id in ids if item_id not in self.checked]
        if self.whole or not new:
            return False
        self.rounds += 1
        if self.rounds > self.ROUNDS:
            self._read_whole()
            return True
        self.checked.update(new)
        hidden = set(new).difference(self.seen(among=new))
        if hidden:
            self.held.flag(self.flags, hidden)
        return bool(hidden)

    def _read_whole(self) -> None:
        self.flags, self.whole = self.held.flags_except(self.seen()), True
