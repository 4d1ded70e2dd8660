"""A listed group (the rows holding a rare term, grouped by the query terms they hold) is
ordered by the packed lengths (``recall_lengths``) once its size lookups would cost as much
as reading them, and the ranking stays FTS5's own.

Before, every listed group the merge opened was a statement of its own on FTS5's
``_docsize`` (``WHERE id IN (...)``, a few rows each): a query of several common words
opened 20-35 of them at 10k claims, 3.8 M of its 32 M instructions. The order must be the
one that statement gave: ties to the lower row ID, documents of 128 terms or more (read
from SQL), a subset of the rows allowed, and a row whose length is not packed.
"""

from __future__ import annotations

import itertools
import random
import sqlite3

import pytest

from tests.store.test_recall_lengths import packed
from tests.store.test_recall_rank import FILLER, TERMS, fts, fts5_order
from waymarks.store import recall_rank
from waymarks.store.recall_rank import ranked


def _counts(db: sqlite3.Connection, terms: list[str]) -> list[int]:
    return [int(db.execute("SELECT count(*) FROM idx WHERE idx MATCH ?", (t,)).fetchone()[0])
            for t in terms]


@pytest.mark.parametrize("seed", range(10))
def test_listed_groups_ordered_by_the_packed_lengths_keep_fts5s_order(seed: int) -> None:
    rng = random.Random(seed)
    rows = [rng.sample(TERMS, rng.randint(1, 5)) + FILLER[:rng.randint(0, 6)]
            for _ in range(rng.randint(40, 400))]
    for n in rng.sample(range(len(rows)), min(len(rows), rng.randint(0, 5))):
        rows[n] = rows[n] + FILLER  # 128 terms or more: a two-byte size, read from SQL
    db = fts(rows)
    lengths = bytearray(packed(db))
    if seed % 3 == 0:  # a row whose length was never packed: its group the old way
        lengths[rng.randrange(1, len(lengths))] = 0
    read: list[int] = []

    def reader() -> bytes:
        read.append(1)
        return bytes(lengths)

    for size in (2, 3, 4, 6):
        terms = sorted(rng.sample([*TERMS, "unseen"], size))
        counts = _counts(db, terms)
        every = fts5_order(db, terms, len(rows))
        for allowed in (None, frozenset(rng.sample(range(1, len(rows) + 1), len(rows) // 3))):
            expected = [rowid for rowid in every if allowed is None or rowid in allowed]
            for want, limit in ((1, 1), (7, 40), (100, 100), (100, len(rows))):
                assert list(itertools.islice(ranked(
                    db, "idx", terms, 1, want, counts, allowed, lengths=reader),
                    limit)) == expected[:limit], (terms, want, limit, allowed is None)
    assert read  # the packed lengths were read


def _store() -> tuple[sqlite3.Connection, list[str], list[int]]:
    rng = random.Random(5)
    rows = [rng.sample(TERMS[:6], rng.randint(1, 4)) + FILLER[:rng.randint(0, 9)]
            for _ in range(300)]
    db = fts(rows)
    terms = TERMS[:6]
    return db, terms, _counts(db, terms)


def test_a_query_opening_many_listed_groups_reads_no_size_a_group() -> None:
    db, terms, counts = _store()
    lengths = packed(db)
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    mine = list(itertools.islice(ranked(db, "idx", terms, 1, 100, counts,
                                        lengths=lambda: lengths), 100))
    db.set_trace_callback(None)
    assert mine == fts5_order(db, terms, 100)
    # (the groups: every combination of the six terms that rows hold, many opened)
    assert not any("_docsize WHERE id IN" in s for s in statements), statements


def test_while_reading_every_length_costs_more_the_groups_look_their_sizes_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    db, terms, counts = _store()
    lengths = packed(db)
    monkeypatch.setattr(recall_rank, "CHUNK", 1)  # as many chunks as rows: 300
    read: list[int] = []
    statements: list[str] = []

    def reader() -> bytes:
        read.append(1)
        return lengths

    db.set_trace_callback(statements.append)
    mine = list(itertools.islice(ranked(db, "idx", terms, 1, 100, counts,
                                        lengths=reader), 100))
    db.set_trace_callback(None)
    assert mine == fts5_order(db, terms, 100)
    assert not read
    assert sum("_docsize WHERE id IN" in s for s in statements) > 5
