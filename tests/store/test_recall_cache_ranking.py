"""The in-memory recall index sums postings and picks the best rows in C-sized steps
(issue 15); the rows, their scores and their order must be exactly those of the loop it
replaced (``scores[r] = scores.get(r, 0.0) + weight``, then a stable sort)."""

from __future__ import annotations

from array import array
from operator import itemgetter

from hypothesis import given, settings
from hypothesis import strategies as st

from waymarks.store.recall_cache import accumulate, best_first

#: equal sums, and sums that differ only in the last bit
WEIGHTS = [1.0, 1.5, 2.25, 1.0 + 1e-12, 3.7, 0.1 + 0.2]


def reference_scores(lists: list[tuple[list[int], float]]) -> dict[int, float]:
    scores: dict[int, float] = {}
    for postings, weight in lists:
        for rowid in postings:
            scores[rowid] = scores.get(rowid, 0.0) + weight
    return scores


postings_lists = st.lists(
    st.tuples(st.lists(st.integers(1, 60), unique=True, max_size=40).map(
        lambda rows: array("i", rows)), st.sampled_from(WEIGHTS)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(postings_lists)
def test_accumulate_equals_the_loop(lists: list[tuple[array[int], float]]) -> None:
    scores: dict[int, float] = {}
    for postings, weight in lists:
        accumulate(scores, postings, weight)
    expected = reference_scores([(list(p), w) for p, w in lists])
    assert list(scores.items()) == list(expected.items())  # values and insertion order


@settings(max_examples=300, deadline=None)
@given(postings_lists, st.integers(0, 30), st.sets(st.integers(1, 60)),
       st.booleans())
def test_best_first_equals_a_stable_sort(lists: list[tuple[array[int], float]], limit: int,
                                         hidden: set[int], filtered: bool) -> None:
    scores = reference_scores([(list(p), w) for p, w in lists])
    keep = (lambda rowid: rowid not in hidden) if filtered else None
    ordered = [r for r, _ in sorted(scores.items(), key=itemgetter(1), reverse=True)
               if keep is None or keep(r)]
    assert best_first(scores, limit, keep) == ordered[:limit]


def test_ties_keep_the_order_first_scored() -> None:
    scores = {9: 1.0, 3: 2.0, 7: 1.0, 1: 2.0, 5: 0.5}
    assert best_first(scores, 3) == [3, 1, 9]
    assert best_first(scores, 10, lambda r: r != 1) == [3, 9, 7, 5]
