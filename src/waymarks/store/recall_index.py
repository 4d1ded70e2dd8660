"""The recall index: analysed records in SQLite, so a query never re-reads the whole store.

Each record's features are stored per field, and every feature is also a term of an FTS5
table, so that candidate generation (``MATCH`` ranked by bm25, bounded) and document
frequencies (a table kept beside it: :mod:`waymarks.store.recall_df`) come from SQLite.
Only candidates are scored in Python. A fresh process answering one query therefore reads
a few hundred rows, not the store.

Features are arbitrary strings (paths, CJK words), so each is stored in FTS5 as a short
hash token; a collision can only add a candidate, never change a score, because scoring
compares the features themselves.

Records come either from the projection (memory items, indexed on demand past a
watermark; their lifecycle status is read from ``items`` at query time) or are added
directly (benchmarks, imported corpora).

The features are what the text analysis of the code that indexed a record made of it: a
query analysed by other code (an upgrade that folds "İ" or a curly apostrophe
differently) no longer meets them, and recall found nothing until a rebuild. So the index
keeps a digest of the analysis code beside its watermark (:func:`analysis_fingerprint`),
and an index written by other code is reset and indexed again, once, by the next
:meth:`RecallIndex.catch_up` (:meth:`RecallIndex.behind` says so).

Every record row carries a checksum (see :mod:`waymarks.store.integrity`), checked when it
becomes a candidate; a candidate must also share a feature with the query, so postings
damaged into pointing at other records are noticed rather than scored.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

import msgspec

from waymarks.core import text as _text
from waymarks.core.rules import ItemState
from waymarks.recall import analysis as _analysis
from waymarks.recall import code_flags as _code_flags
from waymarks.recall import vocabulary as _vocabulary
from waymarks.recall.analysis import analyze, origin_features
from waymarks.recall.scoring import Candidate, QueryPlan, Stats
from waymarks.store import recall_df, recall_lengths, recall_rank
from waymarks.store.code_digest import sources_digest
from waymarks.store.integrity import (
    ITEM_CLASS,
    ITEM_COLUMNS,
    VECTORS_DONE,
    checksum,
    integer_meta,
    may_see,
    recall_fields,
    require,
    snapshot,
    valid_status,
    verify_blob_row,
    verify_item,
)
from waymarks.store.memory_seq import last_memory_seq, memory_items_after
from waymarks.store.recall_postings import Memo, analysed, token
from waymarks.store.recall_rank import RETIRED, fts5_ranked, in_effect, ranked, visible_rows

if TYPE_CHECKING:
    from waymarks.store.epoch import Epoch

SCAN_BUDGET: Final = 15000
MIN_SCAN_TERMS: Final = 2
#: records written per statement by :meth:`RecallIndex.add`
ADD_BATCH: Final = 5000
#: bound of the per-call memo of analysed origins
ORIGIN_MEMO: Final = 10_000
#: bound of the memo of document frequencies (:meth:`RecallIndex.stats`)
DF_MEMO: Final = 100_000
CANDIDATE_LIMIT: Final = 100  # 300 cost 3x the p99 with the same digests (LoCoMo, synthetic)
_FIELDS_CODEC: Final = msgspec.json.Encoder()
_FIELDS_DECODER: Final = msgspec.json.Decoder(dict[str, list[str]])
#: a record as read back: the checksummed fields in order, then its checksum
RECORD_COLUMNS: Final = ("r.item_id, r.kind, r.status, r.origin, r.created_at, r.text,"
                          " r.body_count, r.evidence, r.source, r.fields, r.checksum")
#: how many columns :data:`RECORD_COLUMNS` holds
RECORD_WIDTH: Final = 11
#: the joined ``items`` row (alias ``i``), checksum last, as :func:`verify_item` takes it
JOINED_ITEM_COLUMNS: Final = ", ".join("i." + c.strip() for c in ITEM_COLUMNS.split(","))
#: the fewest ranked rows read a query while candidates are taken (:meth:`RecallIndex._take`)
READ_AHEAD: Final = 64
#: ranked rows whose statuses are read at a time once most rows read were retired
STATUS_AHEAD: Final = 1024
#: the ``meta`` name of the digest of the analysis code that indexed the records
ANALYSIS_CODE: Final = "recall_analysis"


class RecordInput(msgspec.Struct, frozen=True):
    id: str
    text: str
    kind: str = "memory"
    status: str = "active"
    origin: str = ""
    created_at: int = 0
    aliases: tuple[str, ...] = ()
    evidence: str = "explicit"
    source: str = ""  # where the record came from (session:entry), shown in digests


def analysis_fingerprint() -> str:
    """A digest of the code that makes a record's features (the analysis, its word lists
    and the text folding it uses), as this process loaded it (:data:`_ANALYSIS`)."""
    return _ANALYSIS


#: taken when this module is imported, right after the analysis: read at the first
#: recall instead, a process started before an upgrade noted the new files' digest for
#: records its old code analysed, and they were never analysed again
_ANALYSIS: Final = sources_digest(_analysis, _code_flags, _vocabulary, _text)


def _note(watermark: object) -> str:
    """What ``meta`` notes of the records up to ``watermark``: the code that indexed them."""
    return f"{analysis_fingerprint()} {watermark}"


def create_tables(db: sqlite3.Connection) -> None:
    """Schema of the recall index (migration 2; its document frequencies, ``recall_df``,
    since migration 25, and its packed lengths, ``recall_lengths``, since 26, each of which
    adds and fills its table for an index made before)."""
    for statement in (
        "CREATE TABLE recall_records (rowid INTEGER PRIMARY KEY, item_id TEXT NOT NULL,"
        " kind TEXT NOT NULL, status TEXT NOT NULL, origin TEXT NOT NULL,"
        " created_at INTEGER NOT NULL, text TEXT NOT NULL, fields BLOB NOT NULL,"
        " body_count INTEGER NOT NULL, evidence TEXT NOT NULL, source TEXT NOT NULL) STRICT",
        "CREATE UNIQUE INDEX recall_records_item ON recall_records (item_id)",
        "CREATE VIRTUAL TABLE recall_terms USING fts5 (terms, content = '',"
        " tokenize = 'ascii')",
        "CREATE VIRTUAL TABLE recall_vocab USING fts5vocab (recall_terms, 'row')",
        recall_df.CREATE,
        recall_lengths.CREATE,
    ):
        db.execute(statement)


def reset(db: sqlite3.Connection) -> None:
    """Forget every indexed record (the projection was rebuilt; items will be re-read)."""
    db.execute("DELETE FROM recall_records")
    db.execute("INSERT INTO recall_terms (recall_terms) VALUES ('delete-all')")
    recall_df.clear(db)
    recall_lengths.clear(db)
    # the vectors' watermarks name these records' row IDs: they go with them
    db.execute("DELETE FROM meta WHERE name IN ('recall_seq', 'recall_shortest', ?)"
               " OR substr(name, 1, ?) = ?", (ANALYSIS_CODE, len(VECTORS_DONE), VECTORS_DONE))
    # in-memory copies (RecallCache) compare generations to know they must start over
    db.execute("INSERT INTO meta (name, value) VALUES ('recall_generation', '1')"
               " ON CONFLICT (name) DO UPDATE SET value = CAST(value AS INTEGER) + 1")


class RecallIndex:
    """Candidate generation and statistics over one SQLite database."""

    def __init__(self, db: sqlite3.Connection, *, items_backed: bool = True,
                 epoch: Epoch | None = None) -> None:
        self.db = db
        self.items_backed = items_backed
        #: the connection's change token, for readers keeping rows between queries
        self.epoch = epoch
        #: document frequencies already read, valid while the index is in ``_df_state``
        #: (its generation and record count: records are only appended, or all removed at
        #: once with a new generation); ``None``: not in the vocabulary
        self._df: dict[str, int | None] = {}
        self._df_state = (-1, -1)

    def add(self, records: Iterable[RecordInput], *, fresh: bool = False) -> int:
        """Analyse and index records not indexed yet (an ID already indexed, or repeated
        among ``records``, keeps its first row); returns how many were added. Call inside a
        transaction: rows are written in batches of ``ADD_BATCH`` with explicit row IDs
        (the next after the largest, as SQLite would pick), one statement per table.

        ``fresh``: the caller knows no record is indexed yet (the index was just reset),
        so the lookup of each batch's IDs among the indexed ones is skipped."""
        count = 0
        # written from empty: the frequencies are read from the index once, at the end
        empty = fresh or not self.db.execute("SELECT max(rowid) FROM recall_records"
                                             ).fetchone()[0]
        origins: dict[str, tuple[str, ...]] = {}  # few distinct origins: analysed once
        memo = Memo()  # each text analysed once (a fork's copy, a repeated claim)
        batch: list[RecordInput] = []
        for record in records:
            batch.append(record)
            if len(batch) >= ADD_BATCH:
                count += self._add_batch(batch, origins, memo, fresh, empty)
                batch = []
        if batch:
            count += self._add_batch(batch, origins, memo, fresh, empty)
        recall_rank.compact(self.db, "recall_terms", count, int(self.db.execute(
            "SELECT coalesce(max(rowid), 0) FROM recall_records").fetchone()[0]))
        if empty and count:
            recall_df.refill(self.db)
        return count

    def _add_batch(self, batch: list[RecordInput], origins: dict[str, tuple[str, ...]],
                   memo: Memo, fresh_index: bool, empty: bool) -> int:
        fresh: dict[str, RecordInput] = {}
        for record in batch:
            fresh.setdefault(record.id, record)
        for chunk in () if fresh_index else _chunks(list(fresh), 500):
            for (known,) in self.db.execute(
                    f"SELECT item_id FROM recall_records WHERE item_id IN"
                    f" ({','.join('?' * len(chunk))})", chunk):
                del fresh[known]
        if not fresh:
            return 0
        rowid = int(self.db.execute(
            "SELECT coalesce(max(rowid), 0) FROM recall_records").fetchone()[0])
        rows: list[tuple[object, ...]] = []
        postings: list[tuple[int, str]] = []
        lengths: list[tuple[int, int]] = []
        encode, texts = _FIELDS_CODEC.encode, memo.texts
        fewest = 0  # the fewest terms of a record with any (for meta recall_shortest)
        for record in fresh.values():
            rowid += 1
            known = None if record.aliases else texts.get(record.text)
            features, aliases, quoted, terms, distinct = known or analysed(
                record.text, record.aliases, memo, analyze)
            origin = origins.get(record.origin)
            if origin is None:
                origin = origin_features(record.origin) if record.origin else ()
                if len(origins) < ORIGIN_MEMO:
                    origins[record.origin] = origin
            blob = encode({"body": features, "aliases": aliases, "quoted": quoted,
                           "origin": origin})
            values = (record.id, record.kind, record.status, record.origin, record.created_at,
                      record.text, len(features), record.evidence, record.source)
            rows.append((rowid, *values, blob, checksum(values, blob)))
            if distinct and (not fewest or distinct < fewest):
                fewest = distinct
            postings.append((rowid, terms))
            lengths.append((rowid, distinct))
        self.db.executemany(
            "INSERT INTO recall_records (rowid, item_id, kind, status, origin, created_at,"
            " text, body_count, evidence, source, fields, checksum)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self.db.executemany("INSERT INTO recall_terms (rowid, terms) VALUES (?, ?)", postings)
        if not empty:
            recall_df.note(self.db, postings)
        recall_lengths.note(self.db, lengths)
        _note_shortest(self.db, first=rows[0][0] == 1, terms=fewest)
        return len(rows)

    def catch_up(self, limit: int | None = None) -> int:
        """Index memory items the projection holds past the watermark; all of them, into
        an index reset first, when it was written by other analysis code. ``limit``: at
        most that many, the watermark just past the last (a long catch-up commits in
        parts, each resumed from the one before)."""
        fresh = not self.current()
        if fresh:
            reset(self.db)
        watermark = integer_meta(self.db, "recall_seq") or 0
        rows = memory_items_after(
            self.db, "id, text, status, scope, coalesce(project_path, session_id), created_at,"
            " seq, session_id || ':' || entry_id", watermark, -1 if limit is None else limit)
        return self._index_items(rows, int(rows[-1][6]) if rows else None, fresh=fresh)

    def current(self) -> bool:
        """Whether the records were analysed by this code: it is the code noted beside
        them, with the watermark it indexed up to, or there is none. An index holding
        records without a note was written before notes were kept, and one whose
        watermark moved past its note was caught up by such code since (a long-lived
        process of an earlier release, an MCP server say, sharing the home)."""
        noted = dict(self.db.execute("SELECT name, value FROM meta WHERE name IN (?, ?)",
                                     (ANALYSIS_CODE, "recall_seq")).fetchall())
        if ANALYSIS_CODE in noted:
            return bool(noted[ANALYSIS_CODE] == _note(noted.get("recall_seq")))
        return not self.db.execute("SELECT 1 FROM recall_records LIMIT 1").fetchone()

    def index_states(self, states: Iterable[ItemState]) -> int:
        """Index the memory items of a projection just written from ``states`` (its every
        item) into an index just reset: exactly the rows :meth:`catch_up` would read back
        from ``items`` and write, without reading them back (a rebuild holds them)."""
        require(integer_meta(self.db, "recall_seq") is None and not self.db.execute(
            "SELECT 1 FROM recall_records LIMIT 1").fetchone(),
            "the recall index is not empty before a full build")
        memories = sorted((s for s in states if s.kind == "memory"), key=lambda s: s.seq)
        # each row made when its batch is analysed, not all of them first (at 1M items)
        rows = ((s.id, s.text, s.status, s.item.scope,
                 s.session_id if s.item.project_path is None else s.item.project_path,
                 s.item.created_at, s.seq, f"{s.session_id}:{s.entry_id}") for s in memories)
        return self._index_items(rows, memories[-1].seq if memories else None, fresh=True)

    def _index_items(self, rows: Iterable[Sequence[Any]], last: int | None, *,
                     fresh: bool) -> int:
        """Index ``items`` rows (as :meth:`catch_up` selects them, in ``seq`` order) and
        move the watermark to ``last`` (the last row's ``seq``; ``None``: no row)."""
        if last is None:
            return 0
        added = self.add((
            RecordInput(id=r[0], text=r[1], status=r[2], origin=f"{r[3]}:{r[4]}",
                        created_at=r[5], source=r[7]) for r in rows), fresh=fresh)
        self.db.executemany(
            "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name)"
            " DO UPDATE SET value = excluded.value",
            [("recall_seq", str(last)), (ANALYSIS_CODE, _note(str(last)))])
        return added

    def stats(self, features: Sequence[str]) -> Stats:
        """Record count and the document frequency of each feature.

        The count is the largest row ID: records are only ever appended with the next row
        ID (:meth:`add`) and removed all at once (:func:`reset`), so the two are equal, and
        ``max`` is one B-tree step where ``count(*)`` reads the whole table (a million rows
        at scale). Each frequency is one primary-key lookup in ``recall_df``
        (:mod:`~waymarks.store.recall_df`; the vocabulary, ``fts5vocab``, read the term's
        whole posting list: 4-10 ms for a common word at a million claims).

        A long-lived process asks for the same words again and again: frequencies are kept
        while the index has neither grown nor been reset (checked on every call; never
        inside a transaction, which may hold rows not committed yet)."""
        records = int(self.db.execute(
            "SELECT coalesce(max(rowid), 0) FROM recall_records").fetchone()[0])
        memo: dict[str, int | None] = {}
        if not self.db.in_transaction:
            memo = self._df
            state = (self.generation(), records)
            if state != self._df_state or len(memo) > DF_MEMO:
                memo.clear()
                self._df_state = state
        df: dict[str, int] = {}
        for feature in dict.fromkeys(features):
            if feature in memo:
                known = memo[feature]
            else:
                known = memo[feature] = recall_df.frequency(self.db, token(feature), records)
            if known is not None:
                df[feature] = known
        return Stats(records, df)

    def candidates(
        self, plan: QueryPlan, limit: int = CANDIDATE_LIMIT,
        visible_to: tuple[str, str | None] | None = None, stats: Stats | None = None,
        classes: dict[str, str | None] | None = None, active_only: bool = False,
    ) -> list[Candidate]:
        """Records sharing a feature with the plan, the best ``limit`` by bm25.

        ``stats``: :meth:`stats` of the plan's features, when the caller has them already.

        For a projection-backed index, ``visible_to`` = (session ID, trusted project path or
        ``None``) keeps only items that session may see: its own, and its trusted project's.

        ``classes`` (projection-backed only): filled with each candidate's explicit
        classification, read from its verified ``items`` row in the same query, so that the
        egress admission needs no query of its own (what
        :meth:`~waymarks.store.reads.Reads.classifications` would return for them).

        ``active_only``: only records in effect (status ``active``: of their items, for a
        projection-backed index) are candidates, the best ``limit`` of them. The index keeps
        every record a claim ever was, and ranked with them, 100 superseded versions of a
        claim (or 100 retired claims sharing its words) took every place and the claim in
        effect was never found.
        """
        features = [*plan.focus, *plan.context]
        if stats is None:
            stats = self.stats(features)
        chosen = scan_features(features, stats)
        if not chosen:
            return []
        df = {token(f): stats.df.get(f, 0) for f in chosen}
        terms = sorted(df)
        classify = classes is not None and self.items_backed
        rows = self._ranked_rows(terms, limit, visible_to if self.items_backed else None,
                                 classify, [df[t] for t in terms], stats.records, active_only)
        out = []
        wanted = set(chosen)
        for row in rows:
            verify_blob_row(row[:RECORD_WIDTH], "recall_records")
            item_id, kind, _stored, origin, created, text, count, evidence, source, fields = (
                row[:10])
            raw_status = row[RECORD_WIDTH]
            status = valid_status(raw_status) if self.items_backed else str(raw_status)
            parts = recall_fields(_FIELDS_DECODER.decode, fields)
            # the full-text index named this record for one of the chosen features
            require(not wanted.isdisjoint((*parts["body"], *parts["aliases"], *parts["quoted"])),
                    "the recall index points at a record without the feature")
            if classify:
                assert classes is not None
                item = row[RECORD_WIDTH + 1:]
                verify_item(item)
                classes[item_id] = item[ITEM_CLASS]
            out.append(Candidate(
                id=item_id, kind=kind, status=status, origin=origin,
                created_at=created, text=text, body=frozenset(parts["body"]),
                sequence=tuple(parts["body"]),
                aliases=frozenset(parts["aliases"]), quoted=frozenset(parts["quoted"]),
                origin_features=frozenset(parts["origin"]), body_count=count,
                evidence=evidence, source=source))
        return out

    def _ranked_rows(self, terms: list[str], limit: int,
                     visible_to: tuple[str, str | None] | None,
                     classify: bool, counts: list[int], records: int,
                     active_only: bool = False) -> list[tuple[Any, ...]]:
        """The first ``limit`` rows (records joined with their items, as
        :meth:`candidates` reads them) in FTS5's bm25 order of ``terms`` (see
        :mod:`waymarks.store.recall_rank`), skipping rows ``visible_to`` may not see.

        A posting without its record, or a record without its item, is let through to be
        found damaged by the caller, never silently dropped.

        The ranking reads the index in several statements: they share one read transaction,
        so that a writer committing meanwhile cannot make its parts disagree. ``counts``
        (each term's document count) come with the plan's statistics, read before: the
        scores and the ranking use the same frequencies, and none is counted twice. Inside a
        transaction of the caller's, rows it wrote may not be counted in FTS5's averages yet
        (FTS5 writes them at the commit): there FTS5 ranks, as before. ``active_only``: rows
        of retired records are skipped as those the session may not see are.

        When the session may see few of the ``records`` (:meth:`_visible_rows`), the
        ranking gives out only those: rows of other sessions are then never read, nor is a
        posting pointing at a missing record seen among them (any read of that row finds
        it)."""
        if self.db.in_transaction:
            allowed = self._visible_rows(visible_to, limit, sum(counts), records, active_only)
            return self._take(fts5_ranked(self.db, "recall_terms", terms, allowed), limit,
                              visible_to, classify, active_only)
        with snapshot(self.db):
            allowed = self._visible_rows(visible_to, limit, sum(counts), records, active_only)
            ranking = ranked(self.db, "recall_terms", terms, shortest(self.db), limit, counts,
                             allowed, recall_lengths.reader(self.db))
            try:
                return self._take(ranking, limit, visible_to, classify, active_only)
            finally:
                ranking.close()  # its statements end before the read transaction does

    def _visible_rows(self, visible_to: tuple[str, str | None] | None, limit: int,
                      matched: int, records: int, active_only: bool = False
                      ) -> frozenset[int] | None:
        """The rows of the records ``visible_to`` may see, when listing them pays
        (:func:`~waymarks.store.recall_rank.visible_rows`); ``None`` otherwise."""
        return visible_rows(self.db, visible_to, limit, matched, records, active_only)

    def _take(self, ranking: Iterator[int], limit: int,
              visible_to: tuple[str, str | None] | None,
              classify: bool, active_only: bool = False) -> list[tuple[Any, ...]]:
        backed = self.items_backed
        item_columns = (f", i.status, {JOINED_ITEM_COLUMNS}" if classify
                        else ", i.status" if backed else ", r.status")
        visibility = ", i.id, i.scope, i.project_path, i.session_id" if backed else ""
        join = " LEFT JOIN items i ON i.id = r.item_id" if backed else ""
        session_id, project = visible_to if visible_to is not None else (None, None)
        width = RECORD_WIDTH + 1 + (len(ITEM_COLUMNS.split(",")) if classify else 0)
        missing = (None,) * (width + (4 if backed else 0))
        out: list[tuple[Any, ...]] = []
        # once most rows of a read were retired (a claim superseded 10,000 times ranks its
        # versions together), the next rows' statuses are read first, many at a time, and
        # only the others' whole rows: reading each retired row whole was most of a recall
        lean = False
        # rows whose status was read ahead and found in effect, not yet read whole (in the
        # ranking's order): read whole before any further row, their statuses never read
        # again (put back in front of the ranking, each was read again at every turn, up
        # to 16 times, under chains wrapping chains)
        ahead: list[int] = []
        while len(out) < limit:
            # at least READ_AHEAD rows a query: when rows are skipped (retired, another
            # session's), asking only for the places left made it a query a row at the end
            wanted = max(READ_AHEAD, limit - len(out))
            if lean:
                if len(ahead) < wanted:
                    ranked_ahead = list(itertools.islice(ranking, STATUS_AHEAD))
                    if not ranked_ahead and not ahead:
                        break
                    ahead.extend(self._in_effect(ranked_ahead))
                batch, ahead = ahead[:wanted], ahead[wanted:]
                if not batch:  # every one retired: read on
                    continue
            else:
                batch = list(itertools.islice(ranking, wanted))
                if not batch:
                    break
            found = {row[0]: row[1:] for row in self.db.execute(
                f"SELECT r.rowid, {RECORD_COLUMNS}{item_columns}{visibility}"
                f" FROM recall_records r{join}"
                f" WHERE r.rowid IN ({','.join('?' * len(batch))})", batch)}
            retired = 0
            for rowid in batch:
                row = found.get(rowid, missing)
                # (a status outside the grammar is let through, to be found damaged)
                if active_only and row[RECORD_WIDTH] in RETIRED:
                    retired += 1
                    continue
                if backed:
                    item_id, scope, path, owner = row[width:]
                    if not (session_id is None or item_id is None
                            or may_see(scope, path, owner, session_id, project)):
                        continue
                out.append(row[:width])
                if len(out) == limit:
                    break
            lean = lean or 2 * retired > len(batch)
        return out

    def _in_effect(self, rowids: list[int]) -> list[int]:
        """``rowids`` but those of records whose status is retired (:func:`in_effect`)."""
        return in_effect(self.db, self.items_backed, rowids)

    def generation(self) -> int:
        """Bumped each time the index is reset; 0 before the first reset."""
        return integer_meta(self.db, "recall_generation") or 0

    def lag(self) -> int:
        """At most how many memory items :meth:`catch_up` would index now: the item numbers
        past the watermark, or all of them when the records were analysed by other code
        (one seek: a caller decides whether it has the time before it reads any)."""
        top = last_memory_seq(self.db)
        if not self.current():
            return top
        return max(0, top - (integer_meta(self.db, "recall_seq") or 0))

    def behind(self) -> bool:
        """Whether the projection holds memory items not yet indexed, or the records were
        analysed by other code (:meth:`catch_up` indexes them again)."""
        if not self.current():
            return True
        top = last_memory_seq(self.db)
        watermark = integer_meta(self.db, "recall_seq") or 0
        # indexed past the last item: the watermark is damaged, and items would be skipped
        require(watermark <= top, "meta recall_seq is past the last item")
        return top > watermark


def _note_shortest(db: sqlite3.Connection, *, first: bool, terms: int) -> None:
    """Keep ``meta.recall_shortest``, the fewest terms a record holds (a bound of the
    ranking: :func:`~waymarks.store.recall_rank.ranked`), when records were added. Known
    only for an index filled since it was empty (a database from before it has none)."""
    if not terms:
        return
    if first:
        db.execute("INSERT INTO meta (name, value) VALUES ('recall_shortest', ?)"
                   " ON CONFLICT (name) DO UPDATE SET value = excluded.value", (str(terms),))
    else:
        db.execute("UPDATE meta SET value = min(CAST(value AS INTEGER), ?)"
                   " WHERE name = 'recall_shortest'", (terms,))


def shortest(db: sqlite3.Connection) -> int:
    """The fewest terms a record of the index holds, as far as known (at least 1)."""
    return max(1, integer_meta(db, "recall_shortest") or 1)


def scan_features(features: Sequence[str], stats: Stats) -> list[str]:
    """The features to match: all of them, or, when together they would make SQLite rank
    more than ``SCAN_BUDGET`` rows, the rarest ones within the budget (at least two).
    The in-memory index (:class:`~waymarks.store.recall_cache.RecallCache`) matches the
    same ones.

    A record that shares only common words with the query cannot pass the gates
    anyway; ranking every one of them was most of a query's time at 100k records.
    """
    df = stats.df
    ordered = sorted(dict.fromkeys(features), key=lambda f: (df.get(f, 0), f))
    chosen: list[str] = []
    scanned = 0
    for feature in ordered:
        rows = df.get(feature, 0)
        if len(chosen) >= MIN_SCAN_TERMS and scanned + rows > SCAN_BUDGET:
            break
        chosen.append(feature)
        scanned += rows
    return chosen


def _chunks(values: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]
