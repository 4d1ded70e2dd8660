"""A long-lived process's learning queue whose ``evolution.db`` another process replaced.

The recovery tick of a host (the Claude Code helper, the MCP server) keeps one queue, and
so one connection to ``evolution.db``, for the life of the process. Another process that
finds the file damaged sets it aside and makes a new one (``open_job_store``), and
``evolution status`` tells the person the queue file may be moved aside. The host must
then work on the file at the path: writing leases and call counts into the set-aside
copy lost them, let the host and every other process lease the same source at once (two
model calls for one source) and spend the hourly ceiling once in each file.
Real files, real SQLite, the set-aside made by another process, a loopback provider."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep
from waymarks.core.model_port import ConsolidationStep
from waymarks.core.privacy import ProviderPolicy
from waymarks.models import client_for, route_client
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_queue import EvolutionQueue
from waymarks.service.evolution_wiring import open_queue
from waymarks.store.jobs import JobStore

SET_ASIDE = ("import sys; from datetime import UTC, datetime; from pathlib import Path;"
             " from waymarks.service.recovery import set_aside;"
             " print(set_aside(Path(sys.argv[1]), datetime.now(UTC)))")


def home_queue(home: Path, step: ConsolidationStep, fake: FakeProvider, *,
               alone: bool = False) -> EvolutionQueue:
    """Learning on for ``home`` with ``fake`` as its route, and the queue a host makes
    (``open_queue``), or (``alone``) one over ``JobStore.open`` as the tests' workers do."""
    (home / "config.toml").write_text(
        f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
        f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\n', encoding="utf-8")
    config = EvolutionConfig(primary=RouteConfig("openai", "openai", "m1", fake.origin + "/v1"))
    if alone:
        return EvolutionQueue(JobStore.open(home), step, config, ProviderPolicy.from_config({}),
                              route_client)
    return open_queue(home, step, config, ProviderPolicy.from_config({}),
                      lambda r: client_for(r.api, r.endpoint, r.key_env), lambda r: True)


def _jobs(path: Path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT source_id, state FROM jobs").fetchall())
    finally:
        db.close()


OPEN_QUEUE = ("import sys; from datetime import UTC, datetime; from pathlib import Path;"
              " from waymarks.service.recovery import open_job_store;"
              " print(open_job_store(Path(sys.argv[1]), datetime.now(UTC)).open_jobs())")


@pytest.mark.parametrize("how", ["set aside by another process", "moved aside by the person"])
def test_a_host_queue_whose_file_was_replaced_works_on_the_file_at_the_path(
        tmp_path: Path, how: str) -> None:
    """Set aside: the host went on writing into the copy. Moved aside (``evolution status``
    says the queue file may be): the main file alone, its ``-wal`` and ``-shm`` left
    behind by the host's connection, and every process (the host too, reopening) failed
    with an I/O error blaming the disk: SQLite read them as the new file's."""
    home, step = tmp_path / "home", FileStep(tmp_path / "step")
    home.mkdir()
    step.add("s1", captured_at="2026-12-01T10:00:00.000Z")
    with FakeProvider(default=openai_ok('{"claims": []}')) as fake:
        queue = home_queue(home, step, fake)
        try:
            assert queue.run_once().outcome == "settled"
            if how.startswith("set aside"):
                done = subprocess.run([sys.executable, "-c", SET_ASIDE,
                                       str(home / "evolution.db")], capture_output=True,
                                      text=True, timeout=60, check=True)
                aside: Path | None = Path(done.stdout.strip())
                assert _jobs(aside) == {"s1": "settled"}
            else:
                aside = None
                os.replace(home / "evolution.db", home / "evolution.db.aside")
                other = subprocess.run([sys.executable, "-c", OPEN_QUEUE, str(home)],
                                       capture_output=True, text=True, timeout=60,
                                       check=False)
                assert other.returncode == 0, other.stderr
            step.add("s2", captured_at="2026-12-01T10:01:00.000Z")
            attempt = queue.run_once()
        finally:
            queue.close()
    assert (attempt.outcome, attempt.source_id) == ("settled", "s2")
    if aside is not None:
        assert _jobs(aside) == {"s1": "settled"}  # nothing written into the copy
    assert _jobs(home / "evolution.db") == {"s2": "settled"}  # the file at the path


def _waymarks(home: Path, project: Path, *args: str) -> dict[str, object]:
    import json

    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.slow
def test_a_reply_applied_after_another_process_set_the_database_aside_settles(
        tmp_path: Path) -> None:
    """The consolidation step of a long-lived queue holds the learned-memory store open on
    ``waymarks.db``. Another process finds the database damaged, sets it aside and
    rebuilds it while the model call is in flight: the reply is applied to the new file
    (the ledger is canonical), not counted as a failed attempt whose paid answer is thrown
    away and the source backed off."""
    import json

    from waymarks.service.evolution import Evolution

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    assert _waymarks(home, project, "memory", "add", "--", "The build uses make.")[
        "outcome"] == "committed"
    evo = Evolution(home)
    captured = evo.capture(str(project), "statement", "Remember that I prefer tabs",
                           session="s", key="1")
    assert captured is not None
    recovered: list[object] = []

    def set_aside_meanwhile() -> None:  # in the provider's thread, the call in flight
        db = sqlite3.connect(home / "waymarks.db")
        with db:
            db.execute("UPDATE items SET checksum = checksum + 1")
        db.close()
        recovered.append(_waymarks(home, project, "memory").get("recovered"))

    claims = json.dumps({"claims": [{"kind": "preference", "content": "The user prefers tabs"}]})
    with FakeProvider(default=openai_ok(claims), hold=set_aside_meanwhile) as fake:
        queue = home_queue(home, evo, fake, alone=True)
        try:
            attempt = queue.run_once()
        finally:
            queue.close()
            evo.close()
        assert len(fake.requests) == 1
    assert recovered and recovered[0] is not None  # the other process did set it aside
    assert (attempt.outcome, attempt.reason) == ("settled", "applied")
    learned = _waymarks(home, project, "evolution", "list")
    assert "The user prefers tabs" in json.dumps(learned)


def test_a_long_lived_step_follows_a_learned_ledger_moved_aside(tmp_path: Path) -> None:
    """The helper's warm ``Evolution`` (its captures, its recovery tick's step) keeps the
    learned ledger open. When it is damaged, the fix every message gives is to move it
    aside; the warm object then failed every capture and every check with
    ``FileNotFoundError`` until the process ended. It must start the new ledger at the
    path, as a new process does, and the queue consolidate what is captured there."""
    import json

    from waymarks.service.evolution import Evolution

    home = tmp_path / "home"
    evo = Evolution(home)
    assert evo.capture("/w/a", "statement", "Remember that I prefer tabs", session="s",
                       key="1") is not None
    claims = json.dumps({"claims": [{"kind": "preference", "content": "The user uses vim"}]})
    with FakeProvider(default=openai_ok(claims)) as fake:
        queue = home_queue(home, evo, fake, alone=True)
        try:
            assert queue.run_once().outcome == "settled"
            ledger = home / "evolution" / "ledger.jsonl"
            os.replace(ledger, ledger.with_name("ledger.jsonl.aside"))  # the person's fix
            captured = evo.capture("/w/a", "statement", "Remember that I use vim",
                                   session="s", key="2")
            assert captured is not None and captured.new
            attempt = queue.run_once()
        finally:
            queue.close()
            evo.close()
    assert (attempt.outcome, attempt.source_id) == ("settled", captured.source_id)
    listed = subprocess.run(
        [sys.executable, "-c", "import sys, json; from pathlib import Path;"
         " from waymarks.service.evolution import Evolution;"
         " e = Evolution(Path(sys.argv[1]));"
         " print(json.dumps(sorted(c.content for c in e.claims(['provisional']))))",
         str(home)], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(listed.stdout) == ["The user uses vim"]
