"""FTS5's bm25 order of an ``OR`` query, without ranking every row that matches.

``ORDER BY rank LIMIT 100`` makes FTS5 compute bm25 for every row the query matches (a
document-size lookup and the phrases' instances per row) and sort them all: 7,400 rows
for a typical query at 100k claims, 15,000 at the scan budget, 7 ms of CPU per query,
most of a recall. Only the first ``limit`` rows are wanted, and here they can be found
exactly while most rows' scores are never computed:

Every term occurs at most once in a recall document (:meth:`RecallIndex.add` writes each
record's set of terms), so a row's bm25 depends only on *which* query terms it holds (its
mask) and its length ``D``: ``sum(idf_i * (k1 + 1) / (1 + k1 * (1 - b + b * D / avgdl)))``
over the terms it holds. The rows holding a rare term are grouped by mask in Python (the
rarest terms' postings as one string each, then the common terms they also hold from
``common AND (rare ...)`` queries); the rows holding only common terms form one group per
combination of them, which FTS5 finds when asked. Every group has an upper bound on its
rows' scores (the length part is largest for the shortest document: a row holding ``n``
of the terms has ``D >= n``, and none is shorter than the index's shortest record).
Groups are opened from the highest bound down, each read in (length, row ID) order, and a
row is given out once no unopened group can beat it: only the opened groups' lengths are
read, and a large group is sorted only as far as the caller can take.

The scores are computed as FTS5's ``fts5Bm25Function`` computes them (the same
operations in the same order, IEEE doubles both), the IDFs from the same counts (rows
per term) and the same ``N`` and average length (FTS5's averages record), and ties go to
the lower row ID, as FTS5's sorter gives them: ``tests/store/test_recall_rank.py``
compares the order with FTS5's own on random stores.
"""


import heapq
import itertools
import math
import operator
import sqlite3
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence, Set
from typing import Final

import msgspec

from waymarks.store.integrity import STATUSES, require
from waymarks.store.recall_lengths import CHUNK

#: FTS5's bm25 parameters (``fts5_aux.c``)
K1: Final = 1.2
B: Final = 0.75
#: FTS5 stores the row count and total size in this row of its ``_data`` table
_AVERAGES_ROWID: Final = 1
#: a group of at most this many rows is read by ID, a larger one by its terms
_LISTED: Final = 256
#: postings read into Python before the rest are left to FTS5 (the rarest terms' first)
_LISTED_POSTINGS: Final = 2000
#: at most this many terms are left to FTS5 (one query per combination of them)
_COMMON_TERMS: Final = 5
#: a group's order: a varint's bytes sort as its value among varints of its length
_ORDER: Final = " ORDER BY length(sz), sz, id"
#: document sizes fetched at a time from a group's sorted stream
_CHUNK: Final = 64
#: a bound is exact arithmetic; a computed score may differ from it in the last place
_SLACK: Final = 1 + 1e-12
_decode: Final = msgspec.json.Decoder(list[int]).decode
#: a group found by its terms whose rarest term at least this many rows hold is ordered by
#: the packed lengths (``store/recall_lengths.py``), when the caller gives them: reading
#: them all (1 MB at a million claims) pays only for a large group
_PACKED_GROUP: Final = 4096
#: the one-byte lengths (a row of 128 terms or more has a two-byte varint: read from SQL)
_SHORT: Final = bytes(range(128))
#: a listed group's lookup of its rows' document sizes (a statement) costs about as much
#: as reading this many chunks of the packed lengths (``recall_lengths.CHUNK`` rows each)
_CHUNKS_A_LOOKUP: Final = 3


def varints(blob: bytes) -> list[int]:
    """The SQLite varints packed in ``blob`` (FTS5's averages and document sizes)."""
    out: list[int] = []
    value = 0
    used = 0
    for byte in blob:
        used += 1
        if used == 9:  # the ninth byte of a varint holds 8 bits
            out.append((value << 8) | byte)
            value = used = 0
        elif byte & 0x80:
            value = (value << 7) | (byte & 0x7F)
        else:
            out.append((value << 7) | byte)
            value = used = 0
    return out


def averages(db: sqlite3.Connection, table: str) -> tuple[int, int]:
    """FTS5's row count and total token count of ``table`` (0, 0 when it is empty)."""
    row = db.execute(f"SELECT block FROM {table}_data WHERE id = ?",
                     (_AVERAGES_ROWID,)).fetchone()
    if row is None or not row[0]:
        return 0, 0
    values = varints(bytes(row[0]))
    require(len(values) >= 2, f"{table}'s averages record is malformed")
    return values[0], values[1]


def fts5_ranked(db: sqlite3.Connection, table: str, terms: Sequence[str],
                allowed: Set[int] | None = None) -> Iterator[int]:
    """The same order, ranked by FTS5 itself (every matching row; of ``allowed`` only,
    when given)."""
    for (rowid,) in db.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?"
                               " ORDER BY rank", (" OR ".join(terms),)):
        if allowed is None or rowid in allowed:
            yield rowid


def compact(db: sqlite3.Connection, table: str, added: int, records: int) -> None:
    """Merge ``table``'s segments into one after an add that wrote at least a quarter of
    its ``records`` (a rebuild, a first catch-up): every term a query names is looked up
    in each segment, and a 100k build left 7 (84 of a query's 107 statements, CPU p99
    7.9 ms against 6.7 merged, the same rows in the same order). The merge reads the whole
    index (0.13 s CPU at 100k), so a smaller add leaves it to FTS5's own merging."""
    if added and 4 * added >= records:
        db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


class Shape(msgspec.Struct, frozen=True):
    """What every score and bound of one query depends on."""

    terms: Sequence[str]
    idfs: list[float]
    avgdl: float
    shortest: int  # no row holds fewer terms
    want: int  # rows the caller takes at most (unless it asks for more after all)
    allowed: Set[int] | None = None  # the only rows given out, when not None
    counts: Sequence[int] = ()  # rows holding each term
    lengths: Callable[[], bytes] | None = None  # every row's length byte, by row ID
    #: the listed groups' size lookups made so far, and the chunks of packed lengths worth
    #: as many (:meth:`_Stream._listed`)
    lookups: list[int] | None = None


def ranked(db: sqlite3.Connection, table: str, terms: Sequence[str],
           shortest: int = 1, want: int = 100, counts: Sequence[int] | None = None,
           allowed: Set[int] | None = None, lengths: Callable[[], bytes] | None = None,
           ) -> Generator[int, None, None]:
    """Row IDs matching any of ``terms`` in the order of FTS5's
    ``WHERE table MATCH 't1 OR t2 ...' ORDER BY rank`` (``terms`` in the query's order,
    distinct), produced lazily: stop reading when enough rows were taken. ``shortest``:
    no row holds fewer terms (a tighter bound: fewer groups are read); ``want``: how many
    rows the caller means to take (more are given, at a cost, if it takes more).

    ``counts``: how many rows hold each term, when the caller read them already (the
    vocabulary's document counts: a ``count(*)`` of a term FTS5 matches reads its whole
    posting list, ~3 ms for a term 15 % of a million rows hold).

    ``allowed``: give out only these rows (the same order with the others left out). The
    scores still use every row's counts, as FTS5's do; a row left out is never looked at
    again (its document size is not read, nor is it merged).

    ``lengths``: every row's length, one byte a row by row ID
    (:func:`waymarks.store.recall_lengths.reader`): a large group found by its terms is
    ordered from them instead of a document-size lookup per row.

    Read in several statements: call it inside one read transaction. Not inside a write
    transaction that added rows to ``table``: FTS5 counts them in its averages record only
    at the commit (:func:`fts5_ranked` ranks there)."""
    rows, tokens = averages(db, table)
    if not rows or (allowed is not None and not allowed):
        return
    avgdl = tokens / rows
    if counts is None:
        counts = [int(db.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?",
                                 (term,)).fetchone()[0]) for term in terms]
    counts = list(counts)
    idfs = [idf(rows, n) for n in counts]
    common = _common(counts)
    rare = [place for place in range(len(terms)) if place not in common]
    # the rows holding a rare term, with every term they hold
    masks: dict[int, int] = {}
    for place in rare:
        bit = 1 << place
        ids: Iterable[int] = _rowids(db, table, terms[place])
        if allowed is not None:
            ids = filter(allowed.__contains__, ids)
        if not masks:  # (the first term's rows in one step, in C)
            masks = dict.fromkeys(ids, bit)
            continue
        get = masks.get
        for rowid in ids:
            masks[rowid] = get(rowid, 0) | bit
    if masks and common:
        any_rare = " OR ".join(terms[place] for place in rare)
        for place in common:
            bit = 1 << place
            ids = _rowids(db, table, f"{terms[place]} AND ({any_rare})")
            if allowed is not None:
                ids = filter(allowed.__contains__, ids)
            try:
                for rowid in ids:
                    masks[rowid] |= bit
            except KeyError:
                require(False, f"{table} does not match itself")
    groups: dict[int, list[int] | None] = {}
    for rowid, mask in masks.items():
        members = groups.get(mask)
        if members is None:
            groups[mask] = [rowid]
        else:
            members.append(rowid)
    # the rows holding common terms only: one group per combination, found by FTS5
    for size in range(1, len(common) + 1):
        for chosen in itertools.combinations(common, size):
            groups[sum(1 << place for place in chosen)] = None
    chunks = -(-rows // CHUNK)
    shape = Shape(terms, idfs, avgdl, shortest, max(1, want), allowed, counts, lengths,
                  [0, chunks])
    bounds = {mask: _bound(mask, shape) for mask in groups}
    order = sorted(groups, key=bounds.__getitem__, reverse=True)
    yield from _merge(db, table, order, groups, bounds, shape)


def _rowids(db: sqlite3.Connection, table: str, match: str) -> list[int]:
    """The row IDs of ``table`` matching the FTS5 query ``match``, in the index's order,
    read as one JSON array (one value to fetch and decode in C, not a row each)."""
    found = db.execute(f"SELECT '[' || group_concat(rowid) || ']' FROM {table}"
                       f" WHERE {table} MATCH ?", (match,)).fetchone()[0]
    return _decode(found) if found else []


def idf(rows: int, matching: int) -> float:
    """FTS5's IDF of a term that ``matching`` of the index's ``rows`` rows hold."""
    return max(math.log((rows - matching + 0.5) / (matching + 0.5)), 0.0) or 1e-6


def _common(counts: list[int]) -> set[int]:
    """The terms whose rows are not listed in Python (the most frequent, up to
    ``_COMMON_TERMS`` of them, past the first ``_LISTED_POSTINGS`` postings): the rows that
    hold only such terms are found by FTS5 queries, one per combination, when needed."""
    by_count = sorted(range(len(counts)), key=lambda place: counts[place])
    listed = 0
    common: set[int] = set()
    for position, place in enumerate(by_count):
        listed += counts[place]
        if listed > _LISTED_POSTINGS and len(by_count) - position <= _COMMON_TERMS:
            common.add(place)
    return common


def _merge(db: sqlite3.Connection, table: str, order: list[int],
           groups: dict[int, list[int] | None], bounds: dict[int, float],
           shape: Shape) -> Iterator[int]:
    """The groups' rows merged best first. Within a group the score falls as the length
    grows, so each group is a stream read in (length, row ID) order, sorted by SQLite; a
    group is opened only when its bound could beat the best row given out so far, and read
    only as far as its rows are given out."""
    heap: list[tuple[float, int, int]] = []  # (-score, row ID, stream): best, lower ID first
    streams: list[_Stream] = []
    for mask in order:
        limit = bounds[mask] * _SLACK
        while heap and -heap[0][0] > limit:
            yield _pop(heap, streams)
        stream = _Stream(db, table, mask, groups[mask], shape)
        head = stream.next()
        if head is not None:
            heapq.heappush(heap, (-head[0], head[1], len(streams)))
        streams.append(stream)
    while heap:
        yield _pop(heap, streams)


def _pop(heap: list[tuple[float, int, int]], streams: "list[_Stream]") -> int:
    _, rowid, place = heapq.heappop(heap)
    head = streams[place].next()
    if head is not None:
        heapq.heappush(heap, (-head[0], head[1], place))
    return rowid


class _Stream:
    """The rows of one mask with their scores, best first (shortest, then lower ID).

    A group found by its terms is read a page first: the ``want`` rows the caller takes
    at most, and the next (the merge looks at the row after the last it gives out), which
    SQLite finds keeping only that many while it reads the group (sorting all of them was
    half the cost of a group of 64,000 rows); only if more are taken after all, the rest
    after the page's last row."""

    def __init__(self, db: sqlite3.Connection, table: str, mask: int,
                 members: list[int] | None, shape: Shape) -> None:
        """``members``: the group's rows, or ``None`` to find them by their terms."""
        self.db, self.table, self.mask, self.shape = db, table, mask, shape
        self.expected = None if members is None else len(members)
        self.seen = 0  # rows read
        self.kept = 0  # rows given out (the allowed ones)
        self.scores: dict[int, float] = {}
        self.last: tuple[int, bytes, int] = (0, b"", 0)  # the last row given out
        self.match = ""
        self.rest: str | None = None  # the query for the rows after the first page
        # one more than wanted: the merge looks at the row after the last one it gives out
        self.page = shape.want + 1
        self.cursor: sqlite3.Cursor | _Listed
        if members is not None and len(members) <= _LISTED:
            if not self._listed(members):
                self.cursor = db.execute(
                    f"SELECT length(sz), sz, id FROM {table}_docsize"
                    f" WHERE id IN ({','.join('?' * len(members))}){_ORDER}", members)
        else:  # the full-text index finds a large group's rows faster than a list of IDs
            self.match = _exactly(mask, shape.terms)
            query = (f"SELECT length(sz), sz, id FROM {table}"
                     f" JOIN {table}_docsize ON id = {table}.rowid WHERE {table} MATCH ?")
            self.rest = f"{query} AND (length(sz), sz, id) > (?, ?, ?){_ORDER}"
            if not self._packed(mask):
                self.cursor = db.execute(f"{query}{_ORDER} LIMIT ?", (self.match, self.page))
        self.buffer: list[tuple[int, bytes, int]] = []

    def _listed(self, members: list[int]) -> bool:
        """Order a listed group by the packed lengths (``shape.lengths``) once the query's
        size lookups cost as much as reading them all (at 10k records, three chunks: from
        the first group on; the packed lengths are read once a query); ``False``
        (nothing changed: a lookup, counted) before, or when a row's length is not known
        there or is 128 terms or more. A query of several common words opened 20-35 such
        groups, a statement each for a few rows."""
        shape = self.shape
        lookups = shape.lookups
        if shape.lengths is None or lookups is None:
            return False
        if (lookups[0] + 1) * _CHUNKS_A_LOOKUP < lookups[1]:
            lookups[0] += 1
            return False
        packed = shape.lengths()
        ids = sorted(members)
        if not ids or ids[-1] >= len(packed):
            return False
        sizes = bytes(operator.itemgetter(*ids)(packed)) if len(ids) > 1 else bytes(
            (packed[ids[0]],))
        if 0 in sizes or sizes.translate(None, _SHORT):
            return False
        self.cursor = _Listed(_shortest_first(sizes, ids))
        return True

    def _packed(self, mask: int) -> bool:
        """Order a large group by the packed lengths (``shape.lengths``): its rows of
        fewer than 128 terms, shortest first, then the rest from SQL after them (a longer
        varint sorts after); ``False`` (nothing changed) for a small group or when a row's
        length is not known there."""
        shape = self.shape
        if shape.lengths is None or min(
                (n for place, n in enumerate(shape.counts) if mask >> place & 1),
                default=0) < _PACKED_GROUP:
            return False
        packed = shape.lengths()
        found = self.db.execute(f"SELECT group_concat(rowid) FROM {self.table}"
                                f" WHERE {self.table} MATCH ?", (self.match,)).fetchone()[0]
        ids = list(map(int, found.split(","))) if found else []
        if ids and ids[-1] >= len(packed):
            return False
        sizes = bytes(operator.itemgetter(*ids)(packed)) if len(ids) > 1 else bytes(
            packed[rowid] for rowid in ids)
        if 0 in sizes:
            return False
        longer = len(sizes.translate(None, _SHORT))
        self.page = len(sizes) - longer  # after the short rows, the long ones from SQL
        if not longer:
            self.rest = None
        self.cursor = _Listed(_shortest_first(sizes, ids))
        return True

    def next(self) -> tuple[float, int] | None:
        allowed = self.shape.allowed
        while True:
            if not self.buffer and not self._fill():
                return None
            length_bytes, size, rowid = self.buffer.pop()
            self.seen += 1
            self.last = (length_bytes, size, rowid)
            if allowed is None or rowid in allowed:
                self.kept += 1
                break
        length = size[0] if length_bytes == 1 else varints(bytes(size))[0]
        score = self.scores.get(length)
        if score is None:
            # the bounds assumed no row is shorter: one that is means they were wrong
            require(length >= self.shape.shortest,
                    f"{self.table} holds a row shorter than known")
            score = self.scores[length] = bm25(self.mask, length, self.shape)
        return score, rowid

    def _fill(self) -> bool:
        self.buffer = self.cursor.fetchmany(_CHUNK)
        if not self.buffer and self.rest is not None and self.seen == self.page:
            # the rows after the first page: (length, size, ID) is the order itself
            self.cursor = self.db.execute(self.rest, (self.match, *self.last))
            self.rest = None
            self.buffer = self.cursor.fetchmany(_CHUNK)
        self.buffer.reverse()
        if not self.buffer:
            require(self.expected in (None, self.kept),
                    f"{self.table} has a row without its size")
        return bool(self.buffer)


class _Listed:
    """Rows made in Python, read as a cursor's are."""

    def __init__(self, rows: Iterator[tuple[int, bytes, int]]) -> None:
        self.rows = rows

    def fetchmany(self, size: int) -> list[tuple[int, bytes, int]]:
        return list(itertools.islice(self.rows, size))


def _shortest_first(sizes: bytes, ids: list[int]) -> Iterator[tuple[int, bytes, int]]:
    """The rows of ``ids`` (ascending) whose ``sizes`` byte is below 128, in (length,
    row ID) order, as the SQL order gives them: (varint bytes, varint, row ID)."""
    for length in sorted(set(sizes)):
        if length >= 128:
            return
        byte = bytes((length,))
        place = sizes.find(byte)
        while place >= 0:
            yield 1, byte, ids[place]
            place = sizes.find(byte, place + 1)


def _exactly(mask: int, terms: Sequence[str]) -> str:
    """The FTS5 query for the rows holding the terms of ``mask`` and none of the others."""
    held = [t for place, t in enumerate(terms) if mask >> place & 1]
    others = [t for place, t in enumerate(terms) if not mask >> place & 1]
    query = "(" + " AND ".join(held) + ")"
    return f"{query} NOT ({' OR '.join(others)})" if others else query


def bm25(mask: int, length: int, shape: Shape) -> float:
    """bm25 as ``fts5Bm25Function`` computes it for a row holding the terms of ``mask``
    (each once) with ``length`` tokens (sign aside: FTS5 returns the negation)."""
    score = 0.0
    document = float(length)
    avgdl = shape.avgdl
    for place, idf in enumerate(shape.idfs):
        freq = 1.0 if mask >> place & 1 else 0.0
        score += idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * document / avgdl)))
    return score


def ceiling(mask: int, shape: Shape) -> float:
    """A score no row holding only terms of ``mask`` (any of them, at any length) can
    pass: bm25 of all of them at the shortest length. Each term's share only falls as a
    row grows, and this is computed as :func:`bm25` computes every row's score (the same
    operations in the same order, and rounding is monotone), so no such row's score
    exceeds it, to the last bit. Linear in the terms: a bound over every part of ``mask``
    took 2^k steps, hours for a long prompt's twenty common words."""
    return bm25(mask, max(1, shape.shortest), shape)


def _bound(mask: int, shape: Shape) -> float:
    """The largest score a row of ``mask`` can have: it holds at least its terms, and at
    least as many as the shortest row."""
    held = max(mask.bit_count(), shape.shortest)
    total = sum(idf for place, idf in enumerate(shape.idfs) if mask >> place & 1)
    return total * (K1 + 1.0) / (1 + K1 * (1 - B + B * held / shape.avgdl))


#: the statuses of a record no longer in effect (superseded, invalid, expired, deleted):
#: never a candidate of a caller wanting claims in effect (``active_only``)
RETIRED: Final = STATUSES - {"active"}


def in_effect(db: sqlite3.Connection, items_backed: bool, rowids: list[int]) -> list[int]:
    """``rowids`` but those of records whose status is retired (their item's, for a
    projection-backed index), read without the rest of their rows; a row without its
    record or item is kept, to be found damaged when read whole."""
    if not rowids:
        return []
    status, join = ("i.status", " LEFT JOIN items i ON i.id = r.item_id") if (
        items_backed) else ("r.status", "")
    statuses = dict(db.execute(
        f"SELECT r.rowid, {status} FROM recall_records r{join}"
        f" WHERE r.rowid IN ({','.join('?' * len(rowids))})", rowids).fetchall())
    return [rowid for rowid in rowids if statuses.get(rowid) not in RETIRED]


#: reading a ranked row a session may not see costs about as much as listing this many
#: rows it may see (:func:`visible_rows`: 15 against 2.5 us here)
_READ_COST: Final = 6


def visible_rows(db: sqlite3.Connection, visible_to: tuple[str, str | None] | None,
                 limit: int, matched: int, records: int, active_only: bool = False
                 ) -> frozenset[int] | None:
    """The rows of the records ``visible_to`` may see, when listing them costs less
    than reading, one by one, the rows it may not see that the ranking gives out
    before ``limit`` visible ones; ``None`` otherwise (``RecallIndex._take`` skips
    those).

    A new session of a project whose earlier sessions kept their memory to
    themselves sees none of it, and read every one of the ``matched`` rows to keep
    none (2,600 at 10k records: most of a one-shot recall). The items it may see are
    counted on their indexes, only as far as listing them could pay: up to
    ``sqrt(limit * records)`` (past it, the rows skipped before ``limit`` visible ones,
    if those are spread evenly, are fewer than the rows to list)."""
    if visible_to is None:
        return None
    session_id, project = visible_to
    bound = min(math.isqrt(limit * records), matched * _READ_COST)
    count = ("SELECT count(*) FROM (SELECT 1 FROM items WHERE {} = ? LIMIT ?)")
    visible = int(db.execute(count.format("session_id"),
                                  (session_id, bound + 1)).fetchone()[0])
    if project is not None and visible <= bound:
        visible += int(db.execute(count.format("project_path"),
                                       (project, bound + 1 - visible)).fetchone()[0])
    if visible > bound:
        return None
    # rows read until ``limit`` visible ones are found, if they are spread evenly, and
    # how many of those the session may not see
    read = min(matched, min(limit, visible) * records // max(1, visible))
    if visible > read * max(0, records - visible) // max(1, records) * _READ_COST:
        return None
    # (only the rows in effect, when only those are wanted)
    alive = " AND i.status = 'active'" if active_only else ""
    query = ("SELECT r.rowid FROM items i JOIN recall_records r ON r.item_id = i.id"
             f" WHERE i.session_id = ? AND i.scope != 'project'{alive}")
    arguments: tuple[str, ...] = (session_id,)
    if project is not None:
        query += (" UNION ALL SELECT r.rowid FROM items i JOIN recall_records r"
                  " ON r.item_id = i.id WHERE i.project_path = ? AND i.scope = 'project'"
                  + alive)
        arguments += (project,)
    return frozenset(rowid for (rowid,) in db.execute(query, arguments))
