"""A query's slice of the learned claims: the corpus one query needs, read from SQLite.

A process that holds no corpus (a Claude Code hook without its helper, a ``recall``, a
``plan``) built one of every recallable learned claim for one query: at 60k claims that
read, decoded and hashed every row and built every posting (5-10 s on a loaded machine),
the hook past Claude Code's 10 s limit. What ranking reads of a corpus for a query
(:func:`~waymarks.service.evolution_rank.rank`, its Python pass) is: the number of claims,
each query feature's document frequency, the length of each focus feature's strong
postings, and the claims of the postings it walks, all of them among
:meth:`Corpus.generators` with no cutoff (the cutoff only leaves more out; the rarest
feature walked first is one of them). The postings table
(:mod:`waymarks.store.evolution_postings`) answers the first three by SQL; only the
claims of the walked postings are read. The result ranks exactly as the whole corpus
(``tests/evolution/test_slice.py`` compares them query for query).

A slice is not taken (``None``: build the whole corpus, which posts every claim) when
the postings were written by another analyser, when more than :data:`MAX_UNPOSTED`
recallable claims are not posted (else the few new ones are analysed and posted here),
or when a posted claim no longer reads well formed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.evolution.model import RECALLABLE_STATES
from waymarks.service.evolution_rank import Corpus
from waymarks.store import evolution_postings as postings

if TYPE_CHECKING:
    from waymarks.core.evolution.rows import Analysis, ClaimRow
    from waymarks.recall.scoring import Candidate, QueryPlan
    from waymarks.service.evolution import Evolution
    from waymarks.store.evolution import EvolutionStore

#: claims learned since the postings were written that a slice analyses and posts itself
MAX_UNPOSTED: Final = 256


class _Lazy(Sequence[int]):
    """A focus feature's strong postings: their length from SQL, their claims read the
    first time the ranking walks them."""

    def __init__(self, corpus: Slice, feature: str, length: int) -> None:
        self.corpus, self.feature, self.length = corpus, feature, length
        self.slots: list[int] | None = None

    def __len__(self) -> int:
        return self.length

    def _read(self) -> list[int]:
        if self.slots is None:
            self.slots = self.corpus.read(self.feature)
        return self.slots

    def __iter__(self) -> Iterator[int]:
        return iter(self._read())

    def __getitem__(self, index: Any) -> Any:
        return self._read()[index]


class Slice(Corpus):
    """A corpus holding the claims of the postings its query walked (read in one read
    transaction of the store, open while the query is ranked), with the whole store's
    claim count and document frequencies: it ranks as the corpus of every claim."""

    def __init__(self, store: EvolutionStore, to_ms: Callable[[str], int],
                 states: list[str], plan: QueryPlan) -> None:
        super().__init__([], dense=False)
        self.store, self.to_ms, self.states = store, to_ms, states
        db = store.db
        self.live = postings.posted(db, states)
        self.df = postings.counts(db, [*plan.focus, *plan.context], states, strong=False)
        lengths = postings.counts(db, plan.focus, states, strong=True)
        self.strong = {f: _Lazy(self, f, n) for f, n in lengths.items()}  # type: ignore[misc]
        self.levels: dict[str, str] | None = None
        #: analyses found stale and computed again (stored once the query is done)
        self.computed: list[tuple[str, Analysis]] = []

    def read(self, feature: str) -> list[int]:
        """The slots of the claims holding ``feature`` strongly, read when first walked."""
        from waymarks.service.evolution_analysis import stored_candidate

        ids = postings.holding(self.store.db, feature)
        new = [cid for cid in ids if cid not in self.position]
        if new:
            rows = self.store.readable_by_id(new, self.states)[0]
            stored = self.store.analyses([r.id for r in rows])
            if self.levels is None:
                self.levels = self.store.source_levels()
            for row in sorted(rows, key=lambda r: r.seq):  # as the whole corpus's slots
                base, fresh = stored_candidate(row, self.levels.get(row.source_id),
                                               self.to_ms(row.updated_at), stored.get(row.id))
                if fresh is not None:
                    self.computed.append((row.id, fresh))
                self.position[row.id] = len(self.pairs)
                self.pairs.append((row, base))
                self.alive.append(True)
        return sorted(self.position[cid] for cid in ids if cid in self.position)


def persist(evo: Evolution, computed: Sequence[tuple[str, Analysis]],
            pairs: Sequence[tuple[ClaimRow, Candidate]] = ()) -> None:
    """Store the analyses computed now and post their claims; with ``pairs`` (a whole
    corpus just built), post every claim when the postings are not all there. A cache:
    a database busy past its timeout or read-only leaves it as it was."""
    import sqlite3

    from waymarks.service.evolution_analysis import _analyser

    store = evo.store
    if computed:
        store.put_analyses(computed)
    mine = _analyser()
    states = sorted(RECALLABLE_STATES)
    try:
        with store.reading():
            whole = bool(pairs) and (postings.analyser(store.db) != mine
                                     or postings.posted(store.db, states) != len(pairs))
        claims: list[postings.Posted]
        if whole:
            claims = [(b.id, b.body | b.aliases, b.quoted) for _r, b in pairs]
        else:
            claims = [(cid, (*a.body, *a.aliases), a.quoted) for cid, a in computed]
        store.write_in_parts(claims, lambda db, part: postings.put(db, mine, part))
    except sqlite3.OperationalError:
        return


@contextmanager
def sliced(evo: Evolution, plan: QueryPlan, to_ms: Callable[[str], int]
           ) -> Iterator[Slice | None]:
    """The corpus ``plan`` needs from ``evo``'s projection (synced by the caller), to rank
    inside this block; ``None`` when the postings cannot vouch for it (build the whole
    corpus)."""
    from waymarks.service.evolution_analysis import _analyser, stored_candidate

    store, mine = evo.store, _analyser()
    states = sorted(RECALLABLE_STATES)
    with store.reading():
        if postings.analyser(store.db) != mine or postings.more_unposted(
                store.db, states, MAX_UNPOSTED):
            missing = None
        else:
            missing = postings.unposted(store.db, states)
        rows = store.readable_by_id(missing, states)[0] \
            if missing and len(missing) <= MAX_UNPOSTED else []
        levels = store.source_levels() if rows else {}
    if missing is None or len(missing) > MAX_UNPOSTED:
        yield None
        return
    if rows:  # learned since: analysed and posted once, here
        computed = []
        for row in rows:
            _base, analysis = stored_candidate(row, levels.get(row.source_id),
                                               to_ms(row.updated_at), None)
            if analysis is not None:
                computed.append((row.id, analysis))
        persist(evo, computed)
    with store.reading():
        if postings.analyser(store.db) != mine or \
                store.readable_by_id(postings.unposted(store.db, states), states)[0]:
            found = None  # (a claim written meanwhile: the whole corpus)
        else:
            found = Slice(store, to_ms, states, plan)
        yield found
    if found is not None and found.computed:
        persist(evo, found.computed)
