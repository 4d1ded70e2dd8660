"""``SessionLog.branch_set`` kept up to date from the last answer: entries appended along
the branch by this reader or by other writers of the same file extend it; a fork or a
branch switch makes it walk from the root. Whatever happened, it must equal the branch
walked from the root."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.ledger.session_file import SessionFile

TS = "2026-01-01T00:00:00.000Z"

#: (which handle appends, how many entries, parent of the first: None = the leaf, -1 = no
#: parent (a second root), k = the k-th entry appended)
STEPS = st.lists(st.tuples(st.integers(0, 1), st.integers(1, 4),
                           st.one_of(st.none(), st.integers(-1, 30))), max_size=25)


@lanes(quick=20, long=200)
def test_the_branch_kept_equals_the_branch_walked(examples: int,
                                                  tmp_path_factory: pytest.TempPathFactory
                                                  ) -> None:
    run_property(examples, lambda steps: check_steps(tmp_path_factory, steps), STEPS,
                 base=settings(deadline=None))


def check_steps(tmp_path_factory: pytest.TempPathFactory,
                steps: list[tuple[int, int, int | None]]) -> None:
    path = tmp_path_factory.mktemp("branch") / "s.jsonl"
    handles = [SessionFile.create(path, "s-1", TS, "/project")]
    handles.append(SessionFile.open(path))
    counter = itertools.count()
    appended: list[str] = []
    for who, count, parent in steps:
        log = handles[who]
        with log.locked():
            for n in range(count):
                entry: dict[str, str | None] = {"type": "message", "timestamp": TS}
                if n == 0 and parent == -1:
                    entry["parentId"] = None
                elif n == 0 and parent is not None and appended:
                    entry["parentId"] = appended[parent % len(appended)]
                made = log.append(entry, lambda: f"e{next(counter)}")
                appended.append(made.id)
        for reader in handles:  # each asks after every step: the kept set is what grows
            reader.refresh()
            assert reader.branch_set() == frozenset(reader.branch_ids())


def test_a_walk_reaching_the_old_leaf_by_a_later_parent_ends_before_it(
        tmp_path: Path) -> None:
    """X names P as parent, but P comes later in the file: the branch ends at X. A
    reader whose kept branch was P's must not extend it through X (a long-lived process
    then saw {L2, X, P, ...} where a fresh one sees [X, L2])."""
    path = tmp_path / "s.jsonl"
    log = SessionFile.create(path, "s-1", TS, "/project")
    with log.locked():
        log.append({"type": "message", "timestamp": TS}, lambda: "P0")
        log.append({"type": "message", "timestamp": TS, "parentId": "P"}, lambda: "X")
        log.append({"type": "message", "timestamp": TS, "parentId": "P0"}, lambda: "P")
    assert log.branch_set() == {"P0", "P"}  # kept, at leaf P
    with log.locked():
        log.append({"type": "message", "timestamp": TS, "parentId": "X"}, lambda: "L2")
    assert log.branch_ids() == ["X", "L2"]
    assert log.branch_set() == {"X", "L2"} == set(SessionFile.open(path).branch_ids())
