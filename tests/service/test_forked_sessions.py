"""A session Pi forked (`/fork`, ``createBranchedSession``): a new file whose header names
its ``parentSession`` and that holds a copy of the branch up to the fork point, entries
with their IDs, timestamps and data unchanged, DS4 mutations included.

The copies say the same item IDs in another session. A session item belongs to the
session that holds it (seed 000: "`session`: available throughout the current Pi session
tree"), so each of the two sessions keeps its own: the fork finding its copied pins and
memory, the original keeping its own whichever of the two session IDs sorts first in
replay order, and each changing only its own after the fork. The projection built as
the sessions were seen equals a rebuild.

Before: the fork's copy of an item ID taken by the original was ignored ("item already
exists"), so the fork had none of its pins; and when the fork's session ID sorted before
the original's (equal timestamps: the session ID decides), the copy took the ID and the
original lost every session and branch pin and session claim, as soon as the fork's
file was in the sessions folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import CountingIds, StepClock
from tests.store.test_rebuild import delete_db, snapshot
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def fork(original: Path, session_id: str) -> Path:
    """What Pi's ``/fork`` writes: a new header naming the original, then the active
    branch's entries copied as they are."""
    lines = [json.loads(line) for line in original.read_text().splitlines()]
    header = {**lines[0], "id": session_id, "parentSession": str(original),
              "timestamp": "2027-01-01T00:00:00.000Z"}
    by_id = {e["id"]: e for e in lines[1:]}
    path: list[dict[str, object]] = []
    current = lines[-1]["id"]
    while current is not None:
        path.append(by_id[current])
        current = by_id[current]["parentId"]
    target = original.with_name(f"2027-01-01T00-00-00-000Z_{session_id}.jsonl")
    target.write_text("".join(json.dumps(e) + "\n" for e in [header, *reversed(path)]))
    return target


def applying(app: Waymarks) -> dict[str, list[str]]:
    return {kind: sorted(v.text for v in app.items(kind) if v.applies)
            for kind in ("pin", "memory")}


OWN = {"pin": ["Branch only", "Use tabs"], "memory": ["The build uses Bazel."]}


@pytest.mark.parametrize("fork_id", ["00000000-0000-4000-8000-00000000f0f0",
                                     "ffffffff-0000-4000-8000-00000000f0f0"],
                         ids=["fork-sorts-first", "fork-sorts-last"])
def test_a_fork_and_its_original_each_keep_the_session_items(
        make_app: Callable[..., Waymarks], home: Path, fork_id: str) -> None:
    app = make_app(ids=CountingIds(7))
    app.session_new()
    app.session_say("Let us start")
    tabs = app.pin("Use tabs")
    assert isinstance(tabs, Committed)
    assert isinstance(app.pin("Branch only", scope="branch"), Committed)
    assert isinstance(app.remember("The build uses Bazel."), Committed)
    old = app.pin("Old rule")
    assert isinstance(old, Committed) and isinstance(app.unpin(old.id), Committed)
    session = app.current_session()
    assert session is not None
    original = session.path
    assert applying(app) == OWN
    copy = fork(original, fork_id)

    later = StepClock(datetime(2026, 2, 1, tzinfo=UTC))  # after what was written
    on_original = make_app(session=str(original), ids=CountingIds(8), clock=later)
    on_fork = make_app(session=str(copy), ids=CountingIds(9), clock=later)
    assert applying(on_fork) == OWN  # inherited (before: none)
    for each in (on_fork, on_original):  # the unpin before the fork holds in both
        assert [v.status for v in each.items("pin") if v.text == "Old rule"] == ["deleted"]
    assert applying(on_original) == OWN  # still its own (before: none when the fork sorted first)

    # after the fork each session changes only its own copy
    (fork_tabs,) = [v for v in on_fork.items("pin") if v.text == "Use tabs"]
    assert isinstance(on_fork.unpin(fork_tabs.id), Committed)
    assert applying(on_fork)["pin"] == ["Branch only"]
    assert applying(on_original) == OWN
    (original_tabs,) = [v for v in on_original.items("pin") if v.text == "Use tabs"]
    assert isinstance(on_original.pin("Use spaces", supersedes=original_tabs.id), Committed)
    assert applying(on_original)["pin"] == ["Branch only", "Use spaces"]
    assert applying(on_fork)["pin"] == ["Branch only"]

    live = snapshot(home / "waymarks.db")
    delete_db(home)
    rebuilt = make_app(session=str(original))
    rebuilt.rebuild_index()
    assert snapshot(home / "waymarks.db") == live
    assert applying(rebuilt)["pin"] == ["Branch only", "Use spaces"]
    assert applying(make_app(session=str(copy)))["pin"] == ["Branch only"]
