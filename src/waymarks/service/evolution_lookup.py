"""What a learning decision may know about the records a model's reply names
(:class:`ReplyLookup`, the ``lookup`` of :func:`waymarks.core.evolution.decide.decide`),
and whether the person marked a text incorrect in an origin (:func:`disputed`): reads of
the evolution projection, apart from the :class:`~waymarks.service.evolution.Evolution`
that appends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from waymarks.core.codec import utc_clamped
from waymarks.service.ports import iso

if TYPE_CHECKING:
    from waymarks.core.evolution.decide import Target
    from waymarks.store.evolution import EvolutionStore


class ReplyLookup:
    """What the decision may know about the records a reply names."""

    def __init__(self, store: EvolutionStore, proposed: Sequence[object]) -> None:
        self.store = store
        names = [getattr(p, "replaces", None) for p in proposed]
        self.explicit = store.explicit_targets([n for n in names if n])
        self.indexes: dict[str, dict[str, list[str]]] = {}

    def target(self, record_id: str) -> Target | None:
        explicit = self.explicit.get(record_id)
        if explicit is not None:
            kind, status, owner, created_ms = explicit
            namespace = "pin" if kind == "pin" else "memory"
            at = iso(utc_clamped(created_ms))  # a ledger may say any number
            from waymarks.core.evolution.decide import Target
            return Target(namespace, owner, kind, status, at)
        claim = self.store.view.claim(record_id)
        if claim is None:
            return None
        from waymarks.core.evolution.decide import Target
        return Target("evolved", claim.origin, claim.kind, claim.state, claim.updated_at,
                      claim.basis, claim.pinned, accurate=claim.accuracy is not None
                      and claim.accuracy[0] == "accurate")

    def exists(self, claim_id: str) -> bool:
        return self.store.view.claim(claim_id) is not None

    def _index(self, origin: str) -> dict[str, list[str]]:  # once a reply, for 16 claims
        found = self.indexes.get(origin)
        return found if found is not None else self.indexes.setdefault(
            origin, self.store.view.worded_index(origin))

    def forgotten(self, origin: str, content: str) -> bool:
        return self.store.view.forgotten(origin, content, self._index(origin))

    def disputed(self, origin: str, content: str) -> bool:
        return disputed(self.store, origin, content, self._index(origin))


def disputed(store: EvolutionStore, origin: str, content: str,
             index: dict[str, list[str]] | None = None) -> bool:
    """Whether the person marked a claim of ``content`` in ``origin`` incorrect (and it
    stands quarantined): that text is not learned there again, under any kind."""
    return any(c.state == "conflicted" and c.accuracy is not None
               and c.accuracy[0] == "incorrect"
               for c in store.view.worded(origin, content, index=index))
