"""The active session opened at its checkpoint (issue 15) answers exactly as a reader of
the whole ledger: leaf, branch membership, entry IDs, compactions, appends; and it is used
only when the projection's entry index covers the checkpoint and the bytes are the same."""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.lanes import lanes
from waymarks.ledger.discovery import session_dir, session_file_name
from waymarks.ledger.session_file import SessionFile
from waymarks.service.app import Waymarks

SID = "5e2a6c1d-0f3b-4c7a-9a8e-1b2c3d4e5f60"


def write_ledger(path: Path, cwd: str, shape: list[tuple[int, str]], start: int = 0,
                 before: list[str] | None = None) -> list[str]:
    """A session whose entry ``n`` is a child of entry ``shape[n][0]`` positions back
    (1: the previous one; 0: a new root; -k: the entry k positions *ahead*, as no session
    is written: with the next entry a child of this one, a cycle) and of kind
    ``shape[n][1]``."""
    ids: list[str] = list(before or [])
    lines = [{"type": "session", "version": 3, "id": SID,
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}]
    for n, (back, kind) in enumerate(shape):
        entry_id = f"{start + n + 1:08x}"
        parent = (f"{start + n + 1 - back:08x}" if back < 0
                  else ids[-back] if back and back <= len(ids) else None)
        entry: dict[str, object] = {"type": kind, "id": entry_id, "parentId": parent,
                                    "timestamp": f"2026-01-01T00:00:{n % 60:02d}.000Z"}
        if kind == "message":
            entry["message"] = {"role": "user", "content": [{"type": "text", "text": f"t{n}"}]}
        elif kind == "compaction":
            entry["firstKeptEntryId"] = entry_id
            entry["summary"] = "s"
        ids.append(entry_id)
        lines.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for line in lines if not path.exists() or path.stat().st_size == 0 else lines[1:]:
            handle.write(json.dumps(line) + "\n")
    return ids


shapes = st.lists(st.tuples(st.sampled_from([1, 1, 1, 1, 2, 3, 5, 0, -1, -2]),
                            st.sampled_from(["message", "message", "compaction", "label"])),
                  min_size=1, max_size=60)


def same_answers(lazy: SessionFile, full: SessionFile, ids: list[str]) -> None:
    assert lazy._index is not None and lazy.entry_count == full.entry_count
    assert lazy.leaf_id == full.leaf_id
    branch_full, branch_lazy = full.branch_set(), lazy.branch_set()
    for entry_id in [*ids, "ffffffff"]:
        assert (entry_id in branch_lazy) == (entry_id in branch_full), entry_id
        assert lazy.has_entry(entry_id) == (entry_id in full.by_id), entry_id
    assert lazy.compactions == full.compactions


def check(tmp_path: Path, first: list[tuple[int, str]], more: list[tuple[int, str]]) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    path = session_dir(home, str(project)) / session_file_name("2026-01-01T00:00:00.000Z", SID)
    ids = write_ledger(path, str(project), first)
    with Waymarks(home, cwd=str(project)) as app:
        app.refresh()  # indexes the whole ledger once
    with Waymarks(home, cwd=str(project)) as app:
        lazy = app.current_session()
        assert isinstance(lazy, SessionFile)
        same_answers(lazy, SessionFile.open(path), ids)
        # appended after the checkpoint, some of them children of entries before it
        ids = write_ledger(path, str(project), more, start=len(first), before=ids)
        # the same reader, having answered before the appends, reads them and answers
        # again: its branch extends the one it built before (a long-lived writer's case)
        lazy.refresh()
        same_answers(lazy, SessionFile.open(path), ids)
    with Waymarks(home, cwd=str(project)) as app:
        session = app.refresh()
        assert isinstance(session, SessionFile)
        same_answers(session, SessionFile.open(path), ids)


def test_a_reader_at_the_checkpoint_answers_as_the_whole_ledger(tmp_path: Path) -> None:
    rng = random.Random(5)
    first = [(rng.choice([1, 1, 1, 2, 4, 0]), rng.choice(["message", "compaction"]))
             for _ in range(200)]
    check(tmp_path, first, [])


def test_parents_forming_cycles_end_the_branch_before_and_after_the_checkpoint(
        tmp_path: Path) -> None:
    """A hostile ledger: entry 3's parent is entry 4, whose parent is entry 3 (a cycle
    the checkpoint then covers); then the same after it. Every walk ends (the code
    before looped for ever in the entry index and in the resumed reader's branch)."""
    cyclic = [(1, "message"), (1, "message"), (-1, "message"), (1, "message")]
    check(tmp_path, cyclic, [(1, "message"), (-1, "message"), (1, "message"),
                             (1, "message")])


def test_a_resumed_readers_walk_reaching_its_old_leaf_by_a_later_parent_ends_there(
        tmp_path: Path) -> None:
    """After the checkpoint: P0, X (naming the later P as parent), P (the leaf the
    reader kept a branch for), then L2, a child of X. The branch ends at X, as a full
    read says: the kept branch of P must not be reused through X."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    path = session_dir(home, str(project)) / session_file_name("2026-01-01T00:00:00.000Z", SID)
    ids = write_ledger(path, str(project), [(0, "message")])
    with Waymarks(home, cwd=str(project)) as app:
        app.refresh()  # indexes the root
    with Waymarks(home, cwd=str(project)) as app:
        lazy = app.current_session()
        assert isinstance(lazy, SessionFile)
        ids = write_ledger(path, str(project), [(1, "message"), (-1, "message"),
                                                (2, "message")], start=1, before=ids)
        lazy.refresh()
        same_answers(lazy, SessionFile.open(path), ids)  # keeps the branch at P
        ids = write_ledger(path, str(project), [(2, "message")], start=4, before=ids)
        lazy.refresh()
        same_answers(lazy, SessionFile.open(path), ids)
        assert set(SessionFile.open(path).branch_ids()) == {ids[2], ids[4]}


@lanes(quick=8, long=150)
def test_reader_at_the_checkpoint_property(examples: int, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    @settings(max_examples=examples, deadline=None, database=None)
    @given(shapes, shapes)
    def prop(first: list[tuple[int, str]], more: list[tuple[int, str]]) -> None:
        check(tmp_path_factory.mktemp("index"), first, more)

    prop()


def test_a_replaced_file_is_read_whole_and_an_old_database_fills_its_index(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(5):
            app.pin(f"Pin {n}")
        path = app.current_session().path  # type: ignore[union-attr]
    with Waymarks(home, cwd=str(project)) as app:
        assert app.current_session()._index is not None  # type: ignore[union-attr]
    data = path.read_bytes()  # same length, other bytes just before the checkpoint
    path.write_bytes(data.replace(b'"Pin 4"', b'"Pin X"'))
    with Waymarks(home, cwd=str(project)) as app:
        assert app.current_session()._index is None  # type: ignore[union-attr]
    # a database written before the index existed: empty index, the old way, then filled
    import sqlite3
    path.write_bytes(data)
    db = sqlite3.connect(home / "waymarks.db")
    db.execute("DELETE FROM entries")
    db.commit()
    db.close()
    with Waymarks(home, cwd=str(project)) as app:
        assert app.current_session()._index is None  # read whole once, and indexed
        assert [v.text for v in app.items("pin")] == [f"Pin {n}" for n in range(5)]
        app.pin("Pin 5")
    with Waymarks(home, cwd=str(project)) as app:
        assert app.current_session()._index is not None  # type: ignore[union-attr]
        assert [v.text for v in app.items("pin")] == [f"Pin {n}" for n in range(6)]


def test_branch_pins_apply_the_same_when_opened_at_the_checkpoint(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        first = app.session_say("first")
        app.session_say("a turn on the first branch")
        app.pin("On the first branch", scope="branch")  # its leaf: that turn
        app.session_branch(first, "back to first")
        app.session_say("second")
        app.pin("On the second branch", scope="branch")
        expected = [(v.text, v.applies) for v in app.items("pin")]
    assert expected == [("On the first branch", False), ("On the second branch", True)]
    with Waymarks(home, cwd=str(project)) as app:
        assert app.current_session()._index is not None  # type: ignore[union-attr]
        assert [(v.text, v.applies) for v in app.items("pin")] == expected


class _CountingDict(dict):  # type: ignore[type-arg]
    lookups = 0

    def __contains__(self, key: object) -> bool:
        type(self).lookups += 1
        return super().__contains__(key)


def test_a_long_lived_reader_extends_its_branch_rather_than_walking_it_again(
        tmp_path: Path) -> None:
    """A writer process reads every entry others append; its branch at each new leaf is
    the one before plus the entries since, not a walk back over all it has read."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    path = session_dir(home, str(project)) / session_file_name("2026-01-01T00:00:00.000Z", SID)
    ids = write_ledger(path, str(project), [(1, "message")] * 5)
    with Waymarks(home, cwd=str(project)) as app:
        app.refresh()  # the checkpoint and its index
    with Waymarks(home, cwd=str(project)) as app:
        lazy = app.current_session()
        assert isinstance(lazy, SessionFile) and lazy._index is not None
        ids = write_ledger(path, str(project), [(1, "message")] * 300, start=5, before=ids)
        lazy.refresh()
        first = lazy.branch_set()
        assert lazy.branch_set() is first, "the same leaf: the same branch"
        ids = write_ledger(path, str(project), [(1, "message")] * 2, start=305, before=ids)
        lazy.refresh()
        lazy._by_id = _CountingDict(lazy._by_id)
        second = lazy.branch_set()
        assert _CountingDict.lookups <= 3, "walked back to the previous leaf only"
        assert all(entry_id in second for entry_id in ids)
        assert "ffffffff" not in second


def test_membership_in_a_branch_of_many_runs_costs_a_lookup(tmp_path: Path) -> None:
    """Two chains written interleaved (each entry a child of the one two back): every
    entry starts its own run, and each membership test walked every run of the branch
    (a plan at 2,000 entries took 3.4 s). The runs are walked once per leaf."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    path = session_dir(home, str(project)) / session_file_name("2026-01-01T00:00:00.000Z", SID)
    ids = write_ledger(path, str(project), [(0, "message"), (0, "message")]
                       + [(2, "message")] * 400)
    with Waymarks(home, cwd=str(project)) as app:
        app.refresh()
    with Waymarks(home, cwd=str(project)) as app:
        lazy = app.current_session()
        assert isinstance(lazy, SessionFile) and lazy._index is not None
        full = SessionFile.open(path)
        statements: list[str] = []
        app.projection.db.set_trace_callback(statements.append)
        branch = lazy.branch_set()
        answers = [entry_id in branch for entry_id in ids]
        app.projection.db.set_trace_callback(None)
        assert answers == [entry_id in full.branch_set() for entry_id in ids]
        assert sum(answers) == 201  # one chain of the two
        assert len(statements) < 4 * len(ids)  # before: about one per run for each test
