"""How a program may use one Waymarks object: again after close(), from several
threads, and not from inside its own write (the Python API review)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, ServiceError


def test_an_object_is_usable_again_after_close_once_it_opened_an_existing_session(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    first = make_app()
    assert isinstance(first.remember("The build runs on the blue runner."), Committed)
    first.close()
    with make_app() as again:  # opens that session at its checkpoint (the entry index)
        assert [v.text for v in again.items("memory")] == ["The build runs on the blue runner."]
    # after the `with` block: reopened on use, not "Cannot operate on a closed database"
    assert len(again.items("memory")) == 1
    assert isinstance(again.remember("The deploy runs on the green runner."), Committed)
    assert again.status()["memory"]
    again.close()
    assert len(again.items("memory")) == 2
    assert again.health()["ok"] is True
    assert not list(home.glob("waymarks.db.damaged-*"))


def _ledger_bytes(home: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted((home / "sessions").rglob("*.jsonl"))}


def test_a_nested_begin_is_misuse_not_damage(tmp_path: Path) -> None:
    import sqlite3

    from waymarks.service.recovery import is_damage

    db = sqlite3.connect(tmp_path / "sound.db", isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError) as nested:
        db.execute("BEGIN IMMEDIATE")
    db.execute("ROLLBACK")
    db.close()
    assert nested.value.sqlite_errorname == "SQLITE_ERROR"
    assert is_damage(nested.value) is False  # (was: set the sound file aside)


@pytest.mark.parametrize("call_back", [
    lambda app: app.status(),
    lambda app: app.items("memory"),
    lambda app: app.remember("A claim written from inside the guard."),
])
def test_a_guard_that_calls_back_into_its_object_is_refused_and_nothing_is_set_aside(
        make_app: Callable[..., Waymarks], home: Path,
        call_back: Callable[[Waymarks], object]) -> None:
    app = make_app(busy_timeout_ms=500)  # (before: a nested write waited on its own lock)
    assert isinstance(app.remember("The seed claim is about herons."), Committed)
    before = _ledger_bytes(home)

    def guard(ctx: object) -> None:
        call_back(app)

    with pytest.raises(ServiceError) as refused:
        app.remember("The second claim is about egrets.", guard=guard)
    assert refused.value.code == "invalid_argument"
    assert "must not call back into the object" in str(refused.value)
    assert app.recovered is None and not list(home.glob("waymarks.db.damaged-*"))
    assert _ledger_bytes(home) == before  # the write it came from appended nothing
    # the object is sound afterwards, and a guard that decides from its context is served
    assert isinstance(app.remember("The second claim is about egrets.",
                                   guard=lambda ctx: None), Committed)
    assert len(app.items("memory")) == 2


def test_a_dry_runs_decision_and_an_unless_check_may_not_call_back_either(
        app: Waymarks, home: Path) -> None:
    from waymarks.core.decisions import decide_memory

    assert isinstance(app.remember("The seed claim is about herons."), Committed)
    before = _ledger_bytes(home)

    def decide(ctx: Any) -> Any:
        app.status()
        return decide_memory(ctx, "x", scope=None, classification=None, key=None, sources=())

    with pytest.raises(ServiceError) as refused:
        app.dry_run(decide)
    assert refused.value.code == "invalid_argument"
    with pytest.raises(ServiceError) as unless_refused:
        app.append_record("example-note-v1", {"n": 1},
                          unless=lambda session: app.items("pin") and None)
    assert unless_refused.value.code == "invalid_argument"
    assert _ledger_bytes(home) == before
    assert not list(home.glob("waymarks.db.damaged-*"))


#: two writers and two readers sharing one object, in a process of its own (before the
#: fix the process crashed, a segfault, and healthy databases were set aside)
_SHARED_BY_THREADS = """
import json, os, sys, threading
from pathlib import Path
from waymarks.service.app import Waymarks

home, project = Path(sys.argv[1]), sys.argv[2]
app = Waymarks(home, cwd=project)
app.remember("The seed claim is about herons.")
failures, outcomes = [], []

def writer(n):
    try:
        for i in range(30):
            outcomes.append(app.remember(f"Fact {n}-{i} is about zebra{n}x{i}.").outcome)
    except BaseException as exc:
        failures.append(repr(exc))

def reader(n):
    try:
        for i in range(60):
            app.recall(f"zebra{n}x{i}")
            app.status()
    except BaseException as exc:
        failures.append(repr(exc))

threads = [threading.Thread(target=writer, args=(n,)) for n in range(2)] + [
    threading.Thread(target=reader, args=(n,)) for n in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({"failures": failures, "outcomes": outcomes,
                  "recovered": app.recovered,
                  "texts": sorted(v.text for v in app.items("memory"))}))
"""


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_threads_may_share_one_object(home: Path, project: Path, tmp_path: Path) -> None:
    """Each call waits for the others' (a real process: a crash is its exit status)."""
    import json
    import os
    import subprocess
    import sys

    import waymarks

    env = {**os.environ, "HOME": str(tmp_path), "WAYMARKS_HOME": str(home),
           "PYTHONPATH": str(Path(waymarks.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", _SHARED_BY_THREADS, str(home), str(project)],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["failures"] == [] and report["recovered"] is None
    assert report["outcomes"] == ["committed"] * 60
    assert report["texts"] == sorted(["The seed claim is about herons.", *(
        f"Fact {n}-{i} is about zebra{n}x{i}." for n in range(2) for i in range(30))])
    assert not list(home.glob("waymarks.db.damaged-*"))
    with Waymarks(home, cwd=str(project)) as after:
        assert after.health()["ok"] is True
