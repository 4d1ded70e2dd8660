"""``Grown``: the branch set a long-lived reader extends on every append. It must behave
as the frozenset it replaces (members, size, iteration), leave earlier copies unchanged,
and keep few levels."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.ledger.branch import Grown

IDS = st.text(alphabet="abcdef", min_size=1, max_size=3)


def _grown_sets_are_the_frozensets_they_replace(batches: list[list[str]],
                                                probes: list[str]) -> None:
    grown, expected = Grown(), frozenset[str]()
    copies: list[tuple[Grown, frozenset[str]]] = []
    for batch in batches:
        grown, expected = grown.union(batch), expected | frozenset(batch)
        copies.append((grown, expected))
    for copy, wanted in copies:  # every earlier copy is still what it was
        assert set(copy) == wanted and len(copy) == len(wanted) and copy == wanted
        assert all((probe in copy) == (probe in wanted) for probe in probes)


@lanes(quick=50, long=200)
def test_grown_sets_are_the_frozensets_they_replace(examples: int) -> None:
    run_property(examples, _grown_sets_are_the_frozensets_they_replace,
                 st.lists(st.lists(IDS, max_size=6), max_size=40), st.lists(IDS, max_size=20))


@pytest.mark.slow
def test_appending_one_id_at_a_time_keeps_a_handful_of_levels() -> None:
    grown = Grown()
    for n in range(100_000):
        grown = grown.union((f"e{n}",))
    assert len(grown) == 100_000 and "e0" in grown and "e99999" in grown
    assert "e100000" not in grown
    assert len(grown._levels) <= 20


def test_set_operators_and_hashing_behave_as_a_frozensets() -> None:
    grown = Grown().union(["e1", "e2"]).union(["e3"])
    plain = frozenset({"e1", "e2", "e3"})
    assert grown - {"e1"} == plain - {"e1"} and grown | {"e9"} == plain | {"e9"}
    assert grown & {"e2", "x"} == {"e2"} and grown ^ {"e3", "x"} == plain ^ {"e3", "x"}
    assert "e" not in grown and hash(grown) == hash(plain) and {grown: 1}[plain] == 1
