"""The recall index held in memory, for long-lived processes answering many queries.

A fresh process (a hook) asks SQLite for candidates; a long-lived one (an MCP server, a
host bridge) loads the index once into postings lists and keeps it current by reading
only rows past the last one it holds. Candidates are then found without SQL, and they are
the SQLite path's: the same features are matched (``scan_features``, the same scan budget)
and the rows holding them are ranked by FTS5's bm25 as :mod:`waymarks.store.recall_rank`
computes it (each row's terms and length, the IDFs from the same counts, the same average
length, ties to the lower row ID), so a long-lived process and a one-shot one choose the
same ``limit`` rows for full scoring. Summing each feature's weight instead (no length
norm, ties in posting order) chose different rows for 24 % of queries at 100k claims, and
with them a different digest, depending on which process answered.

Only what ranking needs stays in memory: the postings (an array of row IDs per feature)
and, per row, which of a few distinct owners may see it (an array index). The records
themselves (text, fields) are read from SQLite for the chosen ``limit`` rows only, and
checked against their checksums there: keeping every row in memory cost 1.4 GB at a
million records. Every row is still checked once when it is loaded.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, compress, islice
from typing import Final

from waymarks.recall.scoring import Candidate, QueryPlan, Stats
from waymarks.store.epoch import Token
from waymarks.store.integrity import (
    VerifiedMemo,
    may_see,
    recall_fields,
    valid_scope,
    verify_blob_row,
)
from waymarks.store.recall_index import (
    CANDIDATE_LIMIT,
    READ_AHEAD,
    RECORD_COLUMNS,
    RecallIndex,
    scan_features,
)
from waymarks.store.recall_postings import token
from waymarks.store.recall_rank import RETIRED, Shape, bm25, ceiling, idf
from waymarks.store.recall_rows import FIELDS_DECODER, read_rows, to_candidates

#: the matched features' postings past which SQLite ranks instead (its full-text index
#: leaves the rows of common words to FTS5, which finds the shortest without reading all):
#: at a million records, matched postings of 50-100k rows cost 43 ms on average in memory
#: against 10 ms in SQLite, equal at 20-50k (500 queries, ``recall_latency.py``'s store)
SQLITE_PAST: Final = 50_000
#: a term held by more rows than this is only looked up for the rows of the rarer terms
#: (when those fill the candidates; most rows of a common word never would)
COMMON_PAST: Final = 4 * CANDIDATE_LIMIT
#: a common term's postings are made a set to look rows up in while they are at most so
#: many times the rows looked up (a bisection costs about as much as that many set items)
SET_LOOKUP_PAST: Final = 16
#: the most row IDs the sets of common terms' postings hold together, kept between queries
#: (~40 bytes each): past it they are all made again as queries ask
KEPT_SET_ROWS: Final = 200_000
#: who may see a row: (scope, owning session, project path) of its item
Owner = tuple[str | None, str | None, str | None]
_NO_OWNER: Final = -1
#: rows kept between queries while nothing changes (a query reads at most 100)
KEPT_ROWS: Final = 8192
#: the statuses of an item no longer in effect, as SQL (a status outside the grammar is
#: not one: its row is read, to be found damaged)
_RETIRED_SQL: Final = ", ".join(f"'{status}'" for status in sorted(RETIRED))
#: the retired rows among the new rows' and the rows they superseded (:meth:`refresh`)
_RETIRED_ROWS: Final = (
    "SELECT r.rowid FROM recall_records r JOIN items i ON i.id = r.item_id"
    f" WHERE r.rowid > ?1 AND i.status IN ({_RETIRED_SQL})"
    " UNION SELECT p.rowid FROM recall_records r JOIN items i ON i.id = r.item_id"
    " JOIN items o ON o.id = i.supersedes JOIN recall_records p ON p.item_id = o.id"
    f" WHERE r.rowid > ?1 AND o.status IN ({_RETIRED_SQL})")


class RecallCache:
    """Postings and owners of a :class:`RecallIndex`, refreshed incrementally."""

    def __init__(self, index: RecallIndex) -> None:
        self.index = index
        self.count = 0
        self.postings: dict[str, array[int]] = {}
        # each row's owner, as an index into the few distinct owners (``_NO_OWNER``: none)
        self._owner_of: array[int] = array("i")
        self._owners: list[Owner] = []
        self._owner_ids: dict[Owner, int] = {}
        #: each row's FTS5 document size (its distinct terms) and their sum: bm25's lengths
        self._lengths: array[int] = array("i")
        self._terms = 0
        self.watermark = 0
        self.generation = 0
        #: the projection's change token when the index was last found up to date and
        #: refreshed from (:func:`waymarks.service.recall_query.recall`; ``None``: ask)
        self.checked: Token | None = None
        #: candidates built from rows already verified (a popular record is read again and
        #: again): reused while the row is unchanged, see ``VerifiedMemo``
        self._known = VerifiedMemo[Candidate](8192)
        #: rows read as candidates (by whether classifications were read, who asked and
        #: row ID), kept while the projection's change token stays what it was
        self._rows: dict[tuple[bool, tuple[str, str | None] | None],
                         dict[int, tuple[Candidate | None, str | None]]] = {}
        self._rows_token: Token | None = None
        #: 1 for each row whose item is known to be no longer in effect (by row ID). An
        #: item leaves ``active`` once and never comes back (the fold changes only active
        #: items; a rebuild starts a new generation), so a row found retired stays so:
        #: a query wanting claims in effect never ranks it again (a key corrected 10,000
        #: times held 10,000 rows, each read and skipped, for every query about it)
        self._retired = bytearray()
        self._retired_count = 0
        #: each feature's postings without the retired rows, with the retired count and
        #: the postings' length when they were made (made again, in C, once rows retired
        #: since; the rows appended since added: a claim added after a retirement was
        #: left out of every recall whose features had been listed before)
        self._live: dict[str, tuple[int, int, array[int]]] = {}
        #: the rows of a feature the query being answered lists (set by :meth:`candidates`)
        self._listing: Callable[[str], Sequence[int]] = self._all
        #: a common term's postings as a set (:meth:`_posting_set`), with the array and its
        #: length it was made from: the same few common words ("service") are looked up
        #: query after query, and the set was made again each time (1k ints per plan at 1k
        #: claims, 10k at 10k)
        self._sets: dict[str, tuple[array[int], int, set[int]]] = {}
        self._set_rows = 0

    def refresh(self) -> int:
        """Load rows added since the last refresh; returns how many."""
        self._reset_if_shrunk()
        loaded = 0
        owner_columns = ("i.scope, i.session_id, i.project_path" if self.index.items_backed
                         else "NULL, NULL, NULL")
        join = " LEFT JOIN items i ON i.id = r.item_id" if self.index.items_backed else ""
        postings = self.postings
        start = self.watermark
        for rowid, *rest in self.index.db.execute(
            f"SELECT r.rowid, {RECORD_COLUMNS}, {owner_columns}"
            f" FROM recall_records r{join} WHERE r.rowid > ? ORDER BY r.rowid",
            (self.watermark,),
        ):
            verify_blob_row(rest[:11], "recall_records")  # loaded once: checked once
            if rest[11] is not None:
                valid_scope(rest[11])
            self.set_owner(rowid, (rest[11], rest[12], rest[13]))
            loaded += 1
            parts = recall_fields(FIELDS_DECODER.decode, rest[9])
            features = {*parts["body"], *parts["aliases"], *parts["quoted"]}
            self._set_length(rowid, len(features))
            for feature in features:
                found = postings.get(feature)
                if found is None:
                    postings[feature] = array("i", (rowid,))
                else:
                    found.append(rowid)
            self.watermark = rowid
        self.count += loaded
        if loaded and self.index.items_backed:
            # the new rows of retired items, and the rows a new one superseded
            self._retire(rowid for (rowid,) in self.index.db.execute(_RETIRED_ROWS, (start,)))
        return loaded

    def _retire(self, rowids: Iterable[int]) -> None:
        """Note rows whose items are no longer in effect (read from ``items``)."""
        retired = self._retired
        for rowid in rowids:
            if rowid >= len(retired):
                retired.extend(bytes(rowid + 1 - len(retired)))
            if not retired[rowid]:
                retired[rowid] = 1
                self._retired_count += 1

    @property
    def retired(self) -> bytearray:
        """1 at the row ID of each record known to be no longer in effect (the flags a
        query for claims in effect leaves out: its postings here, and the records
        nearest in meaning, :mod:`waymarks.service.semantic_recall`)."""
        return self._retired

    def retire_items(self, item_ids: Sequence[str]) -> int:
        """Note the records of ``item_ids``, found no longer in effect where they were
        read (by the semantic side); how many were not known so before."""
        before = self._retired_count
        if item_ids and self.index.items_backed:
            self._retire(rowid for (rowid,) in self.index.db.execute(
                "SELECT rowid FROM recall_records WHERE item_id IN"
                f" ({','.join('?' * len(item_ids))})", list(item_ids)))
        return self._retired_count - before

    def live(self, feature: str) -> array[int]:
        """The postings of ``feature`` without the rows known to be retired."""
        postings = self.postings.get(feature)
        if postings is None or not self._retired_count:
            return postings if postings is not None else array("i")
        known = self._live.get(feature)
        length = len(postings)
        if known is not None and known[0] == self._retired_count and known[1] == length:
            return known[2]
        retired = self._retired
        if len(retired) <= self.watermark:
            retired.extend(bytes(self.watermark + 1 - len(retired)))
        if known is not None and known[0] == self._retired_count:
            # only rows appended since (postings only grow within a generation)
            kept = known[2]
            tail = postings[known[1]:]
        else:
            kept, tail = array("i"), postings
        kept.extend(compress(tail, map((1).__sub__, map(retired.__getitem__, tail))))
        self._live[feature] = (self._retired_count, length, kept)
        return kept

    def set_owner(self, rowid: int, owner: Owner) -> None:
        """Record who may see row ``rowid``."""
        index = self._owner_ids.get(owner)
        if index is None:
            index = self._owner_ids[owner] = len(self._owners)
            self._owners.append(owner)
        if rowid >= len(self._owner_of):  # row IDs are dense: grow by what is missing
            self._owner_of.extend([_NO_OWNER] * (rowid + 1 - len(self._owner_of)))
        self._owner_of[rowid] = index

    def _set_length(self, rowid: int, length: int) -> None:
        if rowid >= len(self._lengths):
            self._lengths.extend([0] * (rowid + 1 - len(self._lengths)))
        self._lengths[rowid] = length
        self._terms += length

    def owner(self, rowid: int) -> Owner:
        index = self._owner_of[rowid] if rowid < len(self._owner_of) else _NO_OWNER
        return (None, None, None) if index == _NO_OWNER else self._owners[index]

    def _reset_if_shrunk(self) -> None:
        """Start over if the index was reset (the projection was rebuilt)."""
        generation = self.index.generation()
        if generation != self.generation:
            self.count = 0
            self.postings.clear()
            self._owner_of = array("i")
            self._owners.clear()
            self._owner_ids.clear()
            self._lengths = array("i")
            self._terms = 0
            self.watermark = 0
            self.generation = generation
            self._sets.clear()
            self._set_rows = 0
            self._known.clear()
            self._retired = bytearray()
            self._retired_count = 0
            self._live.clear()

    def _visibility(
        self, visible_to: tuple[str, str | None] | None
    ) -> Callable[[int], bool] | None:
        """A filter keeping rows the session may see (before the candidate cut), or
        ``None`` when it would keep every row.

        Who may see a row depends only on its owner, and the owners are few: each is
        judged once per query, not once per row (a check per row was a tenth of a
        plan's candidate search). When the session may see every owner, every row
        ranked passes (each row in the postings was given its owner when it was
        loaded), and no filter is needed."""
        if not self.index.items_backed or visible_to is None:
            return None
        session_id, project = visible_to
        allowed = [may_see(scope, path, owner, session_id, project)
                   for scope, owner, path in self._owners]
        if all(allowed):
            return None
        allowed.append(False)  # a row without an owner (_NO_OWNER, -1: the last)
        owner_of = self._owner_of
        end = len(owner_of)

        def visible(rowid: int) -> bool:
            return rowid < end and allowed[owner_of[rowid]]

        return visible

    def _ranked(self, levels: dict[float, list[list[int]]],
                visible_to: tuple[str, str | None] | None) -> Iterator[tuple[int, float]]:
        """The visible rows, best first, equal scores in ascending row ID (FTS5's order),
        each with its score; ``levels``: the rows of each score, in groups each ascending.

        Visibility is checked from the best down, only as far as rows are taken: the
        same rows in the same order as filtering every posting first (a row's score does
        not depend on the others), at the cost of a check per row taken instead of one per
        posting."""
        visible = self._visibility(visible_to)
        for score in sorted(levels, reverse=True):
            groups = levels[score]
            rows = groups[0] if len(groups) == 1 else sorted(chain.from_iterable(groups))
            for rowid in rows if visible is None else filter(visible, rows):
                yield rowid, score

    def _best(self, ranking: Iterator[tuple[int, float]], limit: int,
              visible_to: tuple[str, str | None] | None, full: bool, active_only: bool
              ) -> tuple[list[tuple[Candidate, str | None]], float]:
        """The first ``limit`` rows of ``ranking`` read as candidates (:meth:`_records`),
        and the score of the last; a row the session may not see is skipped, and with
        ``active_only`` one no longer in effect (its status is its item's, read with it:
        the postings keep every record a claim ever was), the rows after them read in its
        place, as the SQLite path reads them."""
        out: list[tuple[Candidate, str | None]] = []
        last = 0.0
        while len(out) < limit:
            # (at least READ_AHEAD rows a read: see RecallIndex._take)
            batch = list(islice(ranking, max(READ_AHEAD, limit - len(out))))
            if not batch:
                break
            read = self._records([rowid for rowid, _ in batch], visible_to, full)
            for (rowid, score), (candidate, item_class) in zip(batch, read, strict=True):
                if candidate is not None and candidate.status != "active" and (
                        self.index.items_backed):
                    self._retire([rowid])
                if candidate is None or (active_only and candidate.status != "active"):
                    continue
                out.append((candidate, item_class))
                last = score
                if len(out) == limit:
                    break
        return out, last

    def stats(self, features: Sequence[str]) -> Stats:
        return Stats(self.count,
                     {f: len(self.postings[f]) for f in features if f in self.postings})

    def candidates(
        self, plan: QueryPlan, stats: Stats, limit: int = CANDIDATE_LIMIT,
        visible_to: tuple[str, str | None] | None = None,
        classes: dict[str, str | None] | None = None, active_only: bool = False,
    ) -> list[Candidate]:
        """The best ``limit`` visible records for ``plan`` (in effect, ``active_only``).
        ``classes``: filled with each candidate's explicit classification (see
        :meth:`RecallIndex.candidates`)."""
        chosen = scan_features((*plan.focus, *plan.context), stats)
        # the rows listed (:meth:`_levels`): those in effect only, when only those are wanted
        rows_of = self._listing = self.live if active_only and self._retired_count else (
            self._all)
        if sum(len(rows_of(f)) for f in chosen) > SQLITE_PAST:
            # the same candidates (the same features, the same ranking), found faster
            return self.index.candidates(plan, limit, visible_to, stats, classes,
                                         active_only)
        terms = sorted({token(f) for f in chosen})  # the SQLite path's terms, in its order
        place = {term: at for at, term in enumerate(terms)}
        counts = [0] * len(terms)
        for feature in chosen:
            counts[place[token(feature)]] += len(self.postings.get(feature, ()))
        if not any(counts):
            return []
        shape = Shape(terms, [idf(self.count, n) for n in counts], self._terms / self.count,
                      1, limit)
        common = sum(1 << at for at, n in enumerate(counts) if n > COMMON_PAST)
        full = classes is not None
        if common and self._rarer_likely_win(counts, common, shape, limit):
            # the rows of the rarer terms first: when ``limit`` of them outscore any row
            # holding only common terms, those rows (most of them) are never listed; the
            # scores tell first, before any row is read, whether they may
            bar = ceiling(common, shape)
            ranking = self._ranked(self._levels(chosen, place, shape, common), visible_to)
            first = list(islice(ranking, limit))
            if len(first) >= limit and first[-1][1] > bar:
                found, last = self._best(chain(first, ranking), limit, visible_to, full,
                                         active_only)
                if len(found) >= limit and last > bar:
                    return to_candidates(found, classes)
        found, _ = self._best(self._ranked(self._levels(chosen, place, shape, 0), visible_to),
                              limit, visible_to, full, active_only)
        return to_candidates(found, classes)

    @staticmethod
    def _rarer_likely_win(counts: list[int], common: int, shape: Shape, limit: int) -> bool:
        """Whether the rows of the rarer terms are worth ranking alone first: enough of
        them to fill the candidates, and one of average length holding only the least
        rare of them outscores what a row of common terms alone can reach. Only a guess
        (an exact check follows), but a wrong one ranks the rows twice."""
        rarer = [at for at in range(len(counts)) if not common >> at & 1]
        return (bool(rarer) and sum(counts[at] for at in rarer) >= limit
                and min(shape.idfs[at] for at in rarer) > ceiling(common, shape))

    def _all(self, feature: str) -> array[int] | tuple[()]:
        return self.postings.get(feature, ())

    def _levels(self, chosen: list[str], place: dict[str, int], shape: Shape,
                common: int) -> dict[float, list[list[int]]]:
        """The rows holding ``chosen`` features by score (bm25 over the terms at
        ``place``), in groups each ascending. ``common``: terms whose postings are not
        listed, only looked up for the rows the others list (a row holding nothing but
        them is left out). The rows of a feature listed are the query's ``_listing`` (every
        posting, or only those in effect: :meth:`live`); a row is looked up in every
        posting."""
        listed: list[tuple[Sequence[int], int]] = []
        lookups: list[tuple[str, array[int], int]] = []
        for feature in chosen:
            postings = self.postings.get(feature)
            if postings is None:
                continue
            bit = 1 << place[token(feature)]
            if bit & common:
                lookups.append((feature, postings, bit))
            else:
                listed.append((self._listing(feature), bit))
        masks: dict[int, int] = {}  # row -> the query terms it holds
        if listed:  # the longest postings in one step (in C), the others row by row
            longest = max(range(len(listed)), key=lambda at: len(listed[at][0]))
            masks = dict.fromkeys(*listed.pop(longest))
        get = masks.get
        for rows, bit in listed:
            for rowid in rows:
                masks[rowid] = get(rowid, 0) | bit
        for feature, postings, bit in lookups:
            kept = self._posting_set(feature, postings, len(masks))
            if kept is not None:
                # one probe a row: a bisection of an array makes an int object per step
                # (0.5 us a row, ~100 us a plan)
                for rowid in masks.keys() & kept:
                    masks[rowid] |= bit
                continue
            end = len(postings)  # row IDs are ascending in every postings array
            for rowid in masks:
                at = bisect_left(postings, rowid)
                if at < end and postings[at] == rowid:
                    masks[rowid] |= bit
        lengths = self._lengths
        shift = len(shape.terms)
        # rows of one length holding the same terms score the same: grouped, each group
        # scored once, and only the best levels' rows are looked at again
        groups: dict[int, list[int]] = {}
        for rowid, mask in masks.items():
            key = lengths[rowid] << shift | mask
            group = groups.get(key)
            if group is None:
                groups[key] = [rowid]
            else:
                group.append(rowid)
        held = (1 << shift) - 1
        levels: dict[float, list[list[int]]] = {}
        for key, rows in groups.items():
            rows.sort()  # ascending: equal scores go to the lower row ID
            levels.setdefault(bm25(key & held, key >> shift, shape), []).append(rows)
        return levels

    def _posting_set(self, feature: str, postings: array[int], rows: int) -> set[int] | None:
        """``feature``'s postings as a set, kept for the next query (the rows appended
        since added: postings only grow within a generation); ``None`` (bisect instead)
        when none is kept and they are more than ``SET_LOOKUP_PAST`` times the ``rows``
        looked up."""
        kept = self._sets.get(feature)
        if kept is not None and kept[0] is postings:
            if kept[1] != len(postings):
                kept[2].update(postings[kept[1]:])
                self._set_rows += len(postings) - kept[1]
                kept = self._sets[feature] = (postings, len(postings), kept[2])
            return kept[2]
        if len(postings) > SET_LOOKUP_PAST * rows:
            return None
        if self._set_rows + len(postings) > KEPT_SET_ROWS:
            self._sets.clear()
            self._set_rows = 0
        made = set(postings)  # (made in C)
        if kept is not None:
            self._set_rows -= kept[1]
        self._sets[feature] = (postings, len(postings), made)
        self._set_rows += len(postings)
        return made

    def _records(self, rowids: list[int], visible_to: tuple[str, str | None] | None,
                 full: bool) -> list[tuple[Candidate | None, str | None]]:
        """The chosen rows as candidates, in order, each with its explicit classification
        (``full``: read), ``(None, None)`` for a row the session may not see. Rows read
        since the projection last changed are not read again (see
        :mod:`waymarks.store.epoch`: a popular record is chosen query after query)."""
        if not rowids:
            return []
        epoch = self.index.epoch
        now = epoch.token() if epoch is not None else None
        held = sum(map(len, self._rows.values()))  # (a dict per caller's view: a few)
        if now is None or now != self._rows_token or held > KEPT_ROWS:
            self._rows.clear()
            self._rows_token = now
        kept = self._rows.setdefault((full, visible_to), {}) if now is not None else {}
        missing = [rowid for rowid in rowids if rowid not in kept]
        if missing:
            kept.update(self._read(missing, visible_to, full))
        return [kept[rowid] for rowid in rowids]

    def _read(self, rowids: list[int], visible_to: tuple[str, str | None] | None,
              full: bool) -> dict[int, tuple[Candidate | None, str | None]]:
        """Rows ``rowids`` read from SQLite and checked there (:func:`read_rows`)."""
        return read_rows(self.index, self._known, rowids, visible_to, full)
