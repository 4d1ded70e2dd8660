"""The recall index ranks candidates exactly as FTS5's ``ORDER BY rank`` did.

``recall_rank.ranked`` computes bm25 only for the rows that can still make the cut; its
order must be FTS5's own, ties (the lower row ID first) included, for any store: random
term sets, groups read by ID and by their terms (more than 256 rows), documents longer
than 127 terms (two-byte sizes), terms no row holds.
"""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Stats
from waymarks.store import recall_index, recall_rank
from waymarks.store.integrity import ProjectionDamaged
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import (
    RECORD_COLUMNS,
    RecallIndex,
    RecordInput,
    scan_features,
    token,
)
from waymarks.store.recall_rank import averages, fts5_ranked, ranked, varints

TERMS = [f"t{n:02d}" for n in range(12)]
FILLER = [f"f{n:03d}" for n in range(140)]


def fts(rows: list[list[str]]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE sizes (id INTEGER PRIMARY KEY)")
    db.execute("CREATE VIRTUAL TABLE idx USING fts5 (terms, content = '', tokenize = 'ascii')")
    db.executemany("INSERT INTO idx (rowid, terms) VALUES (?, ?)",
                   [(n + 1, " ".join(sorted(set(row)))) for n, row in enumerate(rows)])
    db.commit()  # FTS5 writes its totals at commit (see test_inside_a_write_transaction)
    return db


def fts5_order(db: sqlite3.Connection, terms: list[str], limit: int) -> list[int]:
    """FTS5's order, as the recall index's joined query read it (no LIMIT reaches FTS5
    through a join), and as a plain ``LIMIT`` query reads it: the two agree."""
    query = " OR ".join(terms)
    joined = [r[0] for r in itertools.islice(db.execute(
        "SELECT idx.rowid FROM idx LEFT JOIN sizes ON sizes.id = idx.rowid"
        " WHERE idx MATCH ? ORDER BY rank", (query,)), limit)]
    assert joined == [r[0] for r in db.execute(
        "SELECT rowid FROM idx WHERE idx MATCH ? ORDER BY rank LIMIT ?", (query, limit))]
    return joined


# a skewed vocabulary: a few terms in most rows (large groups), others rare
def _the_order_is_fts5s_own(rows: list[list[str]], long_rows: set[int], query: list[str],
                            limit: int, split: tuple[int, int], want: int,
                            allowed: set[int] | None) -> None:
    """FTS5's order; given the rows a session may see, exactly those in the order FTS5
    ranks all of them (the scores count every row, as FTS5's do)."""
    rows = [row + FILLER if n in long_rows else row for n, row in enumerate(rows)]
    db = fts(rows)
    terms = sorted(query)
    saved = recall_rank._LISTED_POSTINGS, recall_rank._COMMON_TERMS
    recall_rank._LISTED_POSTINGS, recall_rank._COMMON_TERMS = split
    shortest = min(len(set(row)) for row in rows)  # the bound the index keeps
    only = None if allowed is None else frozenset(allowed)
    try:
        mine = list(itertools.islice(ranked(db, "idx", terms, shortest, want, allowed=only),
                                     limit))
    finally:
        recall_rank._LISTED_POSTINGS, recall_rank._COMMON_TERMS = saved
    if only is None:
        assert mine == fts5_order(db, terms, limit)
        return
    every = fts5_order(db, terms, len(rows))
    assert mine == [rowid for rowid in every if rowid in only][:limit]
    assert list(fts5_ranked(db, "idx", terms, only))[:limit] == mine


@lanes(quick=20, long=160)
def test_the_order_is_fts5s_own(examples: int) -> None:
    run_property(
        examples, _the_order_is_fts5s_own,
        rows=st.lists(st.lists(st.sampled_from(TERMS[:3] * 6 + TERMS), min_size=1, max_size=6),
                      min_size=1, max_size=700),
        long_rows=st.sets(st.integers(0, 699), max_size=8),
        query=st.lists(st.sampled_from([*TERMS, "unseen"]), min_size=1, max_size=6, unique=True),
        limit=st.sampled_from([1, 5, 100, 1000]),
        # how many postings are listed in Python before the most frequent terms are left to
        # FTS5, and how many terms may be (0: every row is listed; 1, 3: few are)
        split=st.tuples(st.sampled_from([0, 1, 30, 2000]), st.sampled_from([0, 1, 3, 5])),
        # the rows the caller says it will take (it may take more, or fewer)
        want=st.sampled_from([1, 7, 100]),
        # the rows a session may see (RecallIndex._visible_rows), few or most, or every row
        allowed=st.one_of(st.none(), st.sets(st.integers(1, 700), max_size=40),
                          st.sets(st.integers(1, 700), min_size=300, max_size=650)))


def test_large_groups_long_documents_and_ties() -> None:
    # 600 rows holding only t00 (read by its terms, sorted by SQLite), many of one length
    # (ties), some longer than 127 terms (two-byte sizes), and a few rarer combinations
    rows = [["t00"] for _ in range(300)] + [["t00", *FILLER[:n % 7]] for n in range(300)]
    rows += [["t00", "t01", *FILLER] for _ in range(5)] + [["t01", "t02"] for _ in range(40)]
    db = fts(rows)
    for terms in (["t00"], ["t00", "t01"], ["t00", "t01", "t02"], ["t02", "zz"]):
        for limit in (1, 50, 100, 700):
            assert list(itertools.islice(ranked(db, "idx", terms), limit)) == (
                fts5_order(db, terms, limit)), (terms, limit)


def test_averages_and_varints_read_fts5s_records() -> None:
    db = fts([["t00", "t01"], ["t00", *FILLER]])
    assert averages(db, "idx") == (2, 2 + 1 + len(FILLER))
    assert varints(bytes([0x81, 0x00, 0x05])) == [128, 5]
    assert list(ranked(fts([]), "idx", ["t00"])) == []


def test_inside_a_write_transaction_fts5_ranks_itself() -> None:
    """FTS5 keeps the totals of rows written in an open transaction in memory until the
    commit: there the recall index leaves the ranking to FTS5 (the same order)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    index.add([RecordInput(id=f"a{n}", text=f"billing service port {n}") for n in range(50)])
    plan = direct_plan("billing search port")
    before = [c.id for c in index.candidates(plan)]
    db.execute("BEGIN")
    index.add([RecordInput(id=f"b{n}", text=f"search service port {n % 7}")
               for n in range(300)])
    rows, _tokens = averages(db, "recall_terms")
    assert rows == 50  # not yet the rows above
    inside = [c.id for c in index.candidates(plan)]
    assert inside != before and len(inside) == 100
    db.execute("COMMIT")
    assert averages(db, "recall_terms")[0] == 350
    assert [c.id for c in index.candidates(plan)] == inside  # the same order, now computed


def test_candidates_keep_the_order_of_the_ranked_sql_query() -> None:
    """What RecallIndex.candidates returned before: FTS5's rank order, the first 100."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    services = ["billing", "search", "gateway", "ledger", "mailer"]
    facts = ["listens on port {n}", "keeps logs for {n} days", "deploys from branch r{n}",
             "is owned by team {n}"]
    index.add(RecordInput(id=f"c{n}", text=f"The {services[n % 5]} service "
                          + facts[n % 4].format(n=n % 37), created_at=n) for n in range(900))
    for query in ("what port does billing listen on", "how long does search keep logs",
                  "gateway team", "port 12", "ledger deploys branch r7"):
        plan = direct_plan(query)
        stats = index.stats([*plan.focus, *plan.context])
        chosen = scan_features([*plan.focus, *plan.context], stats)
        terms = sorted({token(f) for f in chosen})
        before = [r[0] for r in db.execute(
            f"SELECT {RECORD_COLUMNS} FROM recall_terms LEFT JOIN recall_records r"
            " ON r.rowid = recall_terms.rowid WHERE recall_terms MATCH ?"
            " ORDER BY recall_terms.rank LIMIT 100", (" OR ".join(terms),))]
        assert [c.id for c in index.candidates(plan, stats=stats)] == before, query
        assert before  # the query matched something: the comparison could fail


def test_remembered_frequencies_follow_appends_and_resets() -> None:
    """stats() keeps frequencies while the index is unchanged; an append, or a reset
    refilled to the same size, is seen at once, as are rows of an open transaction."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    feature = direct_plan("billing").focus[0]
    index.add([RecordInput(id="a", text="billing service"), RecordInput(id="b", text="x y")])
    assert index.stats([feature]).df == {feature: 1}
    assert index.stats([feature]).df == {feature: 1}  # remembered
    index.add([RecordInput(id="c", text="billing api")])
    assert index.stats([feature]).df == {feature: 2}
    recall_index.reset(db)
    index.add([RecordInput(id=n, text=f"billing {n}") for n in ("d", "e", "f")])
    assert index.stats([feature]) == Stats(3, {feature: 3})
    recall_index.reset(db)
    index.add([RecordInput(id=n, text=f"search {n}") for n in ("g", "h", "i")])
    assert index.stats([feature]) == Stats(3, {})  # same size, another generation
    db.execute("BEGIN")
    index.add([RecordInput(id="j", text="billing again")])
    assert index.stats([feature]) == Stats(4, {feature: 1})
    db.execute("ROLLBACK")
    assert index.stats([feature]) == Stats(3, {})


def test_the_shortest_record_is_kept_from_an_empty_index_on() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    assert recall_index.shortest(db) == 1  # unknown
    index.add([RecordInput(id="a", text="billing service listens on port 8443 in prod"),
               RecordInput(id="b", text="search api keeps logs for 30 days")])
    first = recall_index.shortest(db)
    assert first > 2
    index.add([RecordInput(id="c", text="gateway owner")])
    assert 1 < recall_index.shortest(db) < first
    plan = direct_plan("gateway owner port")
    assert {c.id for c in index.candidates(plan)} == {"a", "c"}
    # a recorded bound larger than a record: damage, noticed when that record is read
    db.execute("UPDATE meta SET value = '50' WHERE name = 'recall_shortest'")
    with pytest.raises(ProjectionDamaged):
        index.candidates(plan)
    recall_index.reset(db)
    assert recall_index.shortest(db) == 1


def test_an_index_filled_before_the_bound_was_kept_stays_unbounded() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    index.add([RecordInput(id="a", text="gateway owner")])
    db.execute("DELETE FROM meta WHERE name = 'recall_shortest'")  # as an older version left it
    index.add([RecordInput(id="b", text="billing service listens on port 8443 in prod")])
    assert recall_index.shortest(db) == 1


def test_a_writer_committing_during_a_ranking_does_not_split_it(tmp_path: Path) -> None:
    """The ranking reads in several statements, in one read transaction: another process
    appending between them changes nothing in this answer (and is no damage)."""
    path = tmp_path / "recall.sqlite3"
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("PRAGMA journal_mode = WAL")
    migrate(reader, 0)
    index = RecallIndex(reader, items_backed=False)
    index.add([RecordInput(id=f"a{n}", text=f"billing service port {n % 9} in eu")
               for n in range(400)])
    plan = direct_plan("billing port eu")
    expected = [c.id for c in index.candidates(plan)]
    writer = sqlite3.connect(path, isolation_level=None)
    done: list[str] = []

    def append_once(statement: str) -> None:
        if "group_concat" in statement and not done:  # the ranking has begun
            done.append(statement)
            writer.execute("BEGIN IMMEDIATE")
            RecallIndex(writer, items_backed=False).add(
                [RecordInput(id=f"w{n}", text="billing port eu") for n in range(200)])
            writer.execute("COMMIT")

    reader.set_trace_callback(append_once)
    during = [c.id for c in index.candidates(plan)]
    reader.set_trace_callback(None)
    assert done, "the writer did not run during the ranking"
    assert during == expected
    assert [c.id for c in index.candidates(plan)][:100] != expected  # the rows were added


def test_the_ceiling_bounds_every_part_of_its_terms_at_every_length_in_linear_time(
        ) -> None:
    from itertools import combinations

    from waymarks.store.recall_rank import Shape, bm25, ceiling, idf

    idfs = [idf(1000, n) for n in (3, 40, 400, 501, 700, 999)]
    shape = Shape([f"t{n}" for n in range(len(idfs))], idfs, 7.5, 1, 100)
    for size in range(1, len(idfs) + 1):
        for terms in combinations(range(len(idfs)), size):
            mask = sum(1 << t for t in terms)
            top = ceiling(mask, shape)
            for part_size in range(1, size + 1):
                for part in combinations(terms, part_size):
                    part_mask = sum(1 << t for t in part)
                    assert all(bm25(part_mask, length, shape) <= top
                               for length in range(part_size, 60))
    # a long prompt's many common words: a bound over every part took 2^k steps
    wide = Shape([f"t{n}" for n in range(60)], [1.5] * 60, 7.5, 1, 100)
    assert ceiling((1 << 60) - 1, wide) == bm25((1 << 60) - 1, 1, wide)


class _RowCounting:
    """A connection whose statements count the rows they hand to Python (issue 20's p99:
    a common term's rows beside the rare ones were read and checked one by one)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.statements: list[list[object]] = []  # [SQL, its parameters, rows handed]

    def execute(self, sql: str, parameters: tuple[object, ...] = ()) -> _RowCounting:
        self.cursor = self.db.execute(sql, parameters)
        self.statements.append([sql, parameters, 0])
        return self

    def _count(self, rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
        self.statements[-1][2] += len(rows)  # type: ignore[operator]
        return rows

    def fetchone(self) -> tuple[object, ...] | None:
        row = self.cursor.fetchone()
        return None if row is None else self._count([row])[0]

    def fetchmany(self, size: int) -> list[tuple[object, ...]]:
        return self._count(self.cursor.fetchmany(size))

    def __iter__(self) -> _RowCounting:
        return self

    def __next__(self) -> tuple[object, ...]:
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row


def test_the_rows_of_each_term_reach_python_as_one_value() -> None:
    """Which query terms each row holds is read one value per statement (the row IDs as
    one JSON array), not a row each: a common term held beside a rare one by 1,200 rows
    handed them over one by one, each then checked by a call of its own."""
    rows = [["t00", "t01"] for _ in range(1200)] + [["t01"] for _ in range(300)]
    rows += [["t00", *FILLER[:n % 5]] for n in range(2500)]
    db = fts(rows)
    counting = _RowCounting(db)
    terms = ["t00", "t01"]  # t00 (3,700 rows) is common, t01 (1,500) rare
    mine = list(itertools.islice(ranked(counting, "idx", terms), 100))  # type: ignore[arg-type]
    assert mine == fts5_order(db, terms, 100)
    postings = [(parameters, n) for sql, parameters, n in counting.statements
                if "MATCH" in str(sql) and "_docsize" not in str(sql)
                and "count(" not in str(sql)]
    # t01's rows, then t00's among them
    assert postings == [(("t01",), 1), (("t00 AND (t01)",), 1)], postings
