"""A long-lived process (the in-memory index, ``keep_recall_index=True``) and a one-shot
one (the SQLite path) choose the same candidates, in the same order, and so the same
digest, for the same store and query.

The store is built so that the candidate cut matters: many claims share a subject (more
than ``CANDIDATE_LIMIT`` of them), with bodies of different lengths, and the engine then
prefers among them: candidates ranked any other way than FTS5's bm25 (the in-memory index
once summed feature weights) lose the rows the SQLite path keeps, and the digest differs.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from tests.lanes import lanes
from waymarks.core.egress import Egress
from waymarks.core.privacy import LEVELS
from waymarks.recall.engine import evaluate
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, QueryPlan
from waymarks.store.migrations import migrate
from waymarks.store.recall_cache import RecallCache
from waymarks.store.recall_index import RecallIndex, RecordInput

EXACT = Egress("local", frozenset(LEVELS), redacts=False)
SERVICES = ["billing", "search", "sessions"]
ROLES = ["api", "worker"]
FACTS = ["timeout is {n} seconds", "listens on port {n}", "keeps logs for {n} days",
         "deploys from branch r{n}", "is owned by team {n}", "uses linter {tool}"]
TOOLS = ["ruff", "mypy", "clippy", "eslint", "shellcheck"]
FILLER = ("after the incident review the platform group agreed on this setting and wrote"
          " it down in the runbook for everyone on call").split()
QUESTIONS = ["what is the {s}-{r} timeout", "which port does {s}-{r} listen on",
             "how long does {s} keep logs", "which branch does {s}-{r} deploy from",
             "who owns {s}", "which linter does the {s}-{r} repo use", "{s} {r} port {n}",
             "{s} timeout", "team {n}"]


def _claims(rng: random.Random, count: int) -> list[RecordInput]:
    out = []
    for n in range(count):
        subject = f"{rng.choice(SERVICES)}-{rng.choice(ROLES)}"
        fact = rng.choice(FACTS).format(n=rng.randrange(40), tool=rng.choice(TOOLS))
        extra = " ".join(rng.sample(FILLER, rng.randrange(0, 8)))
        out.append(RecordInput(id=f"c{n:05d}", text=f"The {subject} {fact}. {extra}".strip(),
                               created_at=1_767_225_600_000 + n * 60_000,
                               source=f"s{n % 9}:{n}"))
    return out


def _queries(rng: random.Random, count: int) -> list[str]:
    return [rng.choice(QUESTIONS).format(s=rng.choice(SERVICES), r=rng.choice(ROLES),
                                         n=rng.randrange(40)) for _ in range(count)]


def _store(path: Path, rng: random.Random, claims: int) -> tuple[RecallIndex, RecallCache]:
    """A file database of ``claims`` claims, and the in-memory index loaded from it."""
    return _loaded(path, _claims(rng, claims))


def _loaded(path: Path, claims: list[RecordInput]) -> tuple[RecallIndex, RecallCache]:
    """A file database of ``claims``, and the in-memory index loaded from it."""
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    db.execute("BEGIN")
    index.add(claims)
    db.execute("COMMIT")
    cache = RecallCache(index)
    assert cache.refresh() == len(claims)
    return index, cache


def _chosen(cache: RecallCache, queries: list[str], limit: int | None = None) -> list[list[str]]:
    """The IDs of the candidates the in-memory index chooses for each query."""
    out = []
    for query in queries:
        plan = direct_plan(query)
        stats = cache.stats((*plan.focus, *plan.context))
        found = (cache.candidates(plan, stats) if limit is None
                 else cache.candidates(plan, stats, limit=limit))
        out.append([c.id for c in found])
    return out


@lanes(quick=12, long=300)
def test_cached_and_sqlite_recall_choose_the_same(examples: int, tmp_path: Path) -> None:
    rng = random.Random(20261202)
    index, cache = _store(tmp_path / "store.sqlite3", rng, 3000)
    differing: list[str] = []
    selected = 0
    for query in _queries(rng, 300)[:examples]:
        plan = direct_plan(query)
        features = (*plan.focus, *plan.context)
        stats, cached_stats = index.stats(features), cache.stats(features)
        assert (stats.records, stats.df) == (cached_stats.records, cached_stats.df)
        one_shot = evaluate(plan, index.candidates(plan, stats=stats), stats, EXACT)
        long_lived = evaluate(plan, cache.candidates(plan, cached_stats), cached_stats,
                              EXACT)
        selected += bool(one_shot.selected)
        if list(one_shot.selected) != list(long_lived.selected):
            differing.append(query)
    assert selected > examples // 2  # the queries are about the store: most get a digest
    assert differing == []


@pytest.mark.slow
def test_cached_and_sqlite_candidates_agree_as_the_store_grows(tmp_path: Path) -> None:
    """The cache refreshed past its watermark ranks with the grown store's statistics
    (row count, average length), exactly as a fresh process would."""
    rng = random.Random(7)
    db = sqlite3.connect(tmp_path / "store.sqlite3", isolation_level=None)
    migrate(db, 0)
    index = RecallIndex(db, items_backed=False)
    claims = _claims(rng, 1500)
    cache = RecallCache(index)
    queries = _queries(rng, 60)
    for start in (0, 500, 1000):
        db.execute("BEGIN")
        index.add(claims[start:start + 500])
        db.execute("COMMIT")
        cache.refresh()
        for query in queries:
            plan = direct_plan(query)
            features = (*plan.focus, *plan.context)
            stats = index.stats(features)
            assert [c.id for c in index.candidates(plan, limit=20, stats=stats)] == [
                c.id for c in cache.candidates(plan, cache.stats(features), limit=20)], query


@pytest.mark.slow  # over a second on a quiet machine (docs/development.md: the fast lane)
def test_queries_matching_many_rows_are_ranked_in_sqlite_with_the_same_candidates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``SQLITE_PAST`` matched postings the cache asks SQLite (faster there at a
    million records): the same candidates as ranking them in memory."""
    from waymarks.store import recall_cache

    rng = random.Random(11)
    index, cache = _store(tmp_path / "store.sqlite3", rng, 3000)
    asked: list[str] = []
    ranked_by_sqlite = index.candidates

    def counting(plan: QueryPlan, *args: object, **kwargs: object) -> list[Candidate]:
        asked.append(" ".join(plan.focus))
        return ranked_by_sqlite(plan, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "candidates", counting)
    queries = _queries(rng, 120)

    def chosen(past: int) -> list[list[str]]:
        monkeypatch.setattr(recall_cache, "SQLITE_PAST", past)
        return _chosen(cache, queries)

    in_memory = chosen(10**9)
    assert asked == [] and sum(map(bool, in_memory)) > 100
    assert chosen(1500) == in_memory
    assert 0 < len(asked) < len(queries)  # some queries past it, some not
    asked.clear()
    assert chosen(0) == in_memory and len(asked) == sum(map(bool, in_memory))


@lanes(quick=10, long=150)
def test_rows_of_common_terms_looked_up_only_for_the_rarer_terms_rows_agree(
        examples: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A term held by more than ``COMMON_PAST`` rows is only looked up for the rows of the
    rarer terms, when enough of those outscore any row holding common terms alone: the
    same candidates, in the same order, as listing every row; and the shortcut is taken."""
    from waymarks.store import recall_cache

    rng = random.Random(23)
    _index, cache = _store(tmp_path / "store.sqlite3", rng, 3000)
    queries = _queries(rng, 150)[:examples]
    levels = recall_cache.RecallCache._levels
    shortcuts: list[int] = []

    def counting(self: RecallCache, chosen: list[str], place: dict[str, int], shape: object,
                 common: int) -> dict[float, list[list[int]]]:
        shortcuts.append(common)
        return levels(self, chosen, place, shape, common)  # type: ignore[arg-type]

    monkeypatch.setattr(recall_cache.RecallCache, "_levels", counting)

    def chosen(past: int, limit: int) -> list[list[str]]:
        monkeypatch.setattr(recall_cache, "COMMON_PAST", past)
        return _chosen(cache, queries, limit)

    taken = []
    for limit in (100, 20, 3):
        shortcuts.clear()
        every_row = chosen(10**9, limit)
        assert not any(shortcuts) and sum(map(bool, every_row)) > examples * 2 // 3
        for past in (400, 100, 10):
            shortcuts.clear()
            assert chosen(past, limit) == every_row, (past, limit)
            taken.append(sum(map(bool, shortcuts)))  # listings that left common terms out
    assert sum(taken) > examples // 3, taken

@lanes(quick=20, long=150)
def test_common_terms_looked_up_in_a_set_or_by_bisection_agree(
        examples: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A common term's rows are looked up in a set of its postings while those are few
    beside the rows looked up (``SET_LOOKUP_PAST``), else by bisection: the same
    candidates either way, and the same as listing every row."""
    from waymarks.store import recall_cache

    rng = random.Random(29)
    _index, cache = _store(tmp_path / "store.sqlite3", rng, 3000)
    queries = _queries(rng, 150)[:examples]

    def chosen(common_past: int, set_past: int) -> list[list[str]]:
        monkeypatch.setattr(recall_cache, "COMMON_PAST", common_past)
        monkeypatch.setattr(recall_cache, "SET_LOOKUP_PAST", set_past)
        return _chosen(cache, queries)

    every_row = chosen(10**9, 0)
    assert sum(map(bool, every_row)) > examples * 2 // 3
    assert chosen(100, 0) == every_row  # bisection only
    assert chosen(100, 10**9) == every_row  # sets only
    assert chosen(100, 16) == every_row  # as shipped


def test_rows_of_a_common_term_that_outscore_the_rarer_terms_rows_are_not_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rarer term's rows are enough to fill the candidates but are long; the common
    term's rows are short and score higher: they are listed after all."""
    from waymarks.store import recall_cache

    monkeypatch.setattr(recall_cache, "COMMON_PAST", 100)
    words = "after the incident review the platform group agreed on this setting".split()
    claims = [RecordInput(id=f"a{n:04d}", text="Zeppelin.", created_at=n, source="s")
              for n in range(150)]  # the common term, alone in short rows
    claims += [RecordInput(id=f"b{n:04d}", text="Quokka " + " ".join(
        f"{w}{n}x{i}" for i, w in enumerate(words * 3)) + ".", created_at=n, source="s")
               for n in range(20)]  # the rarer term, in long rows
    claims += [RecordInput(id=f"c{n:04d}", text=f"Filler note {n} here.", created_at=n,
                           source="s") for n in range(830)]
    index, cache = _loaded(tmp_path / "store.sqlite3", claims)
    plan = direct_plan("zeppelin quokka")
    stats = cache.stats((*plan.focus, *plan.context))
    assert sorted(stats.df.values()) == [20, 150]
    chosen = [c.id for c in cache.candidates(plan, stats, limit=10)]
    assert [c.id for c in index.candidates(plan, limit=10, stats=index.stats(
        (*plan.focus, *plan.context)))] == chosen
    assert chosen[0].startswith("a")  # the short rows of the common term rank first


@pytest.mark.parametrize("limit", [5, 100])
def test_a_tie_between_a_rarer_and_a_common_terms_rows_goes_to_the_lower_row(
        tmp_path: Path, limit: int) -> None:
    """Both terms are held by half the rows or more (FTS5 clamps their IDF to 1e-6): a row
    of either alone scores the very same, and the common term's rows, first by row ID,
    must not be skipped because a bound was computed in another order."""
    claims = [RecordInput(id=f"z{n:03d}", text="Zeppelin.", created_at=n, source="s")
              for n in range(400)]
    claims += [RecordInput(id=f"q{n:03d}", text="Quokka.", created_at=n, source="s")
               for n in range(399)]
    claims.append(RecordInput(id="both", text="Zeppelin quokka amber birch cedar dahlia elm"
                              " fern gorse hazel iris juniper kale.", created_at=0, source="s"))
    index, cache = _loaded(tmp_path / "store.sqlite3", claims)
    plan = direct_plan("zeppelin quokka")
    stats = cache.stats((*plan.focus, *plan.context))
    assert sorted(stats.df.values()) == [400, 401]
    chosen = [c.id for c in cache.candidates(plan, stats, limit=limit)]
    assert chosen == [c.id for c in index.candidates(plan, limit=limit, stats=index.stats(
        (*plan.focus, *plan.context)))]
    assert chosen[0] == "z000"  # first of the equal rows of one term alone, by row ID


def test_every_term_common_or_no_candidate_wanted(tmp_path: Path) -> None:
    """Nothing rarer to list first (every term common), or a limit of none: the listing
    of every row answers, as before the shortcut."""
    claims = [RecordInput(id=f"z{n:03d}", text="Zeppelin quokka.", created_at=n, source="s")
              for n in range(500)]
    index, cache = _loaded(tmp_path / "store.sqlite3", claims)
    plan = direct_plan("zeppelin quokka")
    stats = cache.stats((*plan.focus, *plan.context))
    for limit in (0, 3):
        assert [c.id for c in cache.candidates(plan, stats, limit=limit)] == [
            c.id for c in index.candidates(plan, limit=limit, stats=index.stats(
                (*plan.focus, *plan.context)))]


def test_a_common_terms_set_is_kept_between_queries_and_follows_rows_added(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The set of a common term's postings is made once, not for every query that looks
    its rows up (a long-lived process asks about the same common words prompt after
    prompt), and a row added since is found in it: the same candidates as SQLite's."""
    from waymarks.store import recall_cache

    monkeypatch.setattr(recall_cache, "COMMON_PAST", 100)
    made: list[int] = []

    def counting(rows: object = ()) -> set[int]:
        out = set(rows)  # type: ignore[call-overload]
        if len(out) > 100:  # (the module's other sets are of a few rows)
            made.append(len(out))
        return out

    monkeypatch.setattr(recall_cache, "set", counting, raising=False)
    claims = [RecordInput(id=f"c{n:04d}", text=f"The zeppelin {n} hangar note.",
                          created_at=n, source="s") for n in range(400)]
    claims += [RecordInput(id=f"q{n:04d}", text=f"Quokka {n} zeppelin.", created_at=n,
                           source="s") for n in range(30)]
    index, cache = _loaded(tmp_path / "store.sqlite3", claims)
    plan = direct_plan("quokka zeppelin")

    def both() -> list[str]:
        features = (*plan.focus, *plan.context)
        chosen = [c.id for c in cache.candidates(plan, cache.stats(features), limit=10)]
        assert chosen == [c.id for c in index.candidates(plan, limit=10,
                                                         stats=index.stats(features))]
        return chosen

    first = both()
    assert made == [430] and first[0].startswith("q")
    assert both() == first and made == [430]  # kept: not made again
    # a shorter row holding both terms, added after the set was made, ranks first
    index.db.execute("BEGIN")
    index.add([RecordInput(id="new", text="Quokka zeppelin.", created_at=999, source="s")])
    index.db.execute("COMMIT")
    assert cache.refresh() == 1
    assert both()[0] == "new" and made == [430]
