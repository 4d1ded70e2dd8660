"""``waymarks evolve`` and ``waymarks evolution status`` through the real entry point, in
real subprocesses, against a real loopback provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.evolution.step_double import FileStep

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-test-evolution-0123456789abcdef"


def _run(home: Path, project: Path, *args: str, step: Path | None = None,
         env: dict[str, str] | None = None) -> tuple[int, Any, str]:
    # this checkout's sources first (with ROOT alone, the venv's installed copy answered)
    full = {**os.environ, "WAYMARKS_HOME": str(home),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]), **(env or {})}
    if step is not None:
        full["EVO_STEP_DIR"] = str(step)
        argv = [sys.executable, "-m", "tests.evolution.cli_with_step", "--json", *args]
    else:
        argv = [sys.executable, "-m", "waymarks.cli.main", "--json", *args]
    done = subprocess.run(argv, cwd=project, env=full, capture_output=True, text=True,
                          check=False, timeout=120)
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None, \
        done.stdout + done.stderr


def _config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_status_with_learning_off_and_no_queue_says_so_and_creates_nothing(
        home: Path, project: Path) -> None:
    code, data, _ = _run(home, project, "evolution", "status")
    assert code == 0 and data["learning"] is False
    assert data["blocked"] and data["counts"]["pending"] == 0
    assert not (home / "evolution.db").exists()


def test_status_counts_a_source_the_projection_has_not_read_yet(home: Path,
                                                                project: Path) -> None:
    """`waymarks.db` is disposable: after it was deleted (or while it lagged the evolution
    ledger), the first `evolution status` said "0 pending" for a captured source, in the
    same report whose processed counts had read the ledger; the next run said 1."""
    from waymarks.service.evolution import Evolution

    _config(home, "[evolution]\nlearn = true\n")
    with Evolution(home) as evo:
        assert evo.capture(str(project), "statement", "Remember: we deploy with Kamal.",
                           session="s", key="k1") is not None
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)
    code, data, _ = _run(home, project, "evolution", "status")
    assert code == 0 and data["counts"]["pending"] == 1


@pytest.mark.slow
def test_evolve_consolidates_and_status_reports_it(home: Path, project: Path,
                                                    tmp_path: Path) -> None:
    step = FileStep(tmp_path / "step")
    step.add("src-1", "The user prefers tabs.")
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        _config(home, f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
                      f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\nkeyEnv = "EVO_TEST_KEY"\n')
        env = {"EVO_TEST_KEY": KEY}
        code, data, _ = _run(home, project, "evolve", step=tmp_path / "step", env=env)
        assert code == 0, data
        assert (data["outcome"], data["sourceId"], data["model"]) == ("settled", "src-1", "m1")
        assert fake.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
        code, data, out = _run(home, project, "evolution", "status", step=tmp_path / "step",
                               env=env)
    assert code == 0 and data["learning"] is True and data["blocked"] is None
    assert data["counts"]["settled"] == 1
    assert data["routes"][0]["keyEnv"] == "EVO_TEST_KEY" and data["routes"][0]["keySet"]
    assert data["recentCalls"][0]["outcome"] == "ok"
    assert data["budgets"]["callsLastHour"] == 1
    assert KEY not in out and "prefers tabs" not in out
    assert step.settled("src-1")
    code, data, _ = _run(home, project, "evolve", "src-1", step=tmp_path / "step", env=env)
    assert code == 0 and data["outcome"] == "done"  # settled sources never rerun


@pytest.mark.slow
def test_no_route_leaves_the_source_pending_and_status_says_why(home: Path, project: Path,
                                                                tmp_path: Path) -> None:
    _config(home, "[evolution]\nlearn = true\n")  # (with learning off, evolve refuses)
    FileStep(tmp_path / "step").add("src-1")
    code, data, _ = _run(home, project, "evolve", step=tmp_path / "step",
                         env={"PATH": str(tmp_path)})  # no `claude` either
    assert code == 1 and (data["outcome"], data["reason"]) == ("waiting", "no_route")
    # an error document as every command's: a code for scripts, a message for people
    assert data["code"] == "waiting" and data["message"].startswith("src-1 was not attempted")
    code, data, _ = _run(home, project, "evolution", "status", step=tmp_path / "step")
    assert data["counts"]["pending"] == 1 and data["waiting"][0]["reason"] == "no_route"
    assert "no model route" in data["blocked"]


@pytest.mark.slow
def test_an_invalid_config_is_refused_without_echo(home: Path, project: Path,
                                                   tmp_path: Path) -> None:
    _config(home, '[evolution]\nlearn = true\ncallsPerHour = "sk-live-abcdef0123456789abcdef"\n')
    code, data, out = _run(home, project, "evolution", "status", step=tmp_path / "step")
    # a configuration file is the environment: exit 1, as every command reports bad_config
    assert code == 1 and data["code"] == "bad_config" and "callsPerHour" in data["message"]
    assert "abcdef0123456789" not in out
    FileStep(tmp_path / "step").add("src-1")
    code, data, out = _run(home, project, "evolve", step=tmp_path / "step")
    assert code == 1 and data["code"] == "bad_config" and "abcdef0123456789" not in out


@pytest.mark.slow
def test_a_source_settled_with_no_model_call_does_not_say_none_none(
        home: Path, project: Path, tmp_path: Path) -> None:
    """A queued source with nothing left to send (settled meanwhile) is settled with no
    call: ``evolve`` said "Consolidated src-1 (no_change, 0 claim(s) written) with
    None/None." (no provider, no model)."""
    _config(home, '[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
                  'endpoint = "http://127.0.0.1:9/v1"\nmodel = "m1"\nkeyEnv = "EVO_TEST_KEY"\n')
    step = FileStep(tmp_path / "step")
    step.add("src-1")
    code, data, _ = _run(home, project, "evolve", step=tmp_path / "step",
                         env={"PATH": str(tmp_path)})  # its key unset: the job waits, queued
    assert code == 1 and data["reason"] == "no_route", data
    sources = json.loads(step.sources_file.read_text())
    sources["src-1"]["settled"] = True  # its text consolidated elsewhere meanwhile
    step.sources_file.write_text(json.dumps(sources))
    env = {**os.environ, "WAYMARKS_HOME": str(home), "PYTHONPATH": str(ROOT),
           "EVO_STEP_DIR": str(tmp_path / "step"), "PATH": str(tmp_path),
           "EVO_TEST_KEY": KEY}  # a route now, and nothing to send it
    done = subprocess.run([sys.executable, "-m", "tests.evolution.cli_with_step", "evolve",
                           "src-1"], cwd=project, env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Consolidated src-1 (no_change, 0 claim(s) written)"), \
        done.stdout
    assert "None" not in done.stdout and "no model call" in done.stdout, done.stdout


@pytest.mark.slow
def test_a_fifo_in_a_notes_place_is_never_waited_on(home: Path, project: Path) -> None:
    """A FIFO at ``evolution/host-route.json`` hung ``evolution status`` (and the note Pi's
    bridge writes at every evolve check); one at ``evolution/last-capture.json`` hung
    ``evolution learning``. Each is read as no note, and status names it."""
    notes = home / "evolution"
    notes.mkdir(parents=True)
    for name in ("host-route.json", "last-capture.json"):
        os.mkfifo(notes / name)
    env = {**os.environ, "WAYMARKS_HOME": str(home),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, *argv], cwd=project, env=env,
                              capture_output=True, text=True, check=False, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    status = json.loads(run("-m", "waymarks.cli.main", "--json", "evolution", "status").stdout)
    assert status["hostRoute"] is None
    assert [n.split(": ", 1) for n in status["unreadableNotes"]] == [
        [str(notes / name), "it is a FIFO, not a regular file; not read"]
        for name in ("host-route.json", "last-capture.json")]
    text = run("-m", "waymarks.cli.main", "evolution", "status").stdout
    assert f"Unreadable: {notes / 'host-route.json'}" in text
    learning = json.loads(run("-m", "waymarks.cli.main", "--json", "evolution",
                              "learning").stdout)
    assert learning["lastCapture"] is None
    run("-c", "import sys; from pathlib import Path; "
        "from waymarks.service.evolution_status import note_host_route; "
        "note_host_route(Path(sys.argv[1]), 'pi', 'piprov', 'pi-m')", str(home))
    assert (notes / "host-route.json").is_fifo()  # left for the person; status names it
    # a turn's decision is not written in its place, and the turn's capture goes on
    from waymarks.service.evolution_observe import note_turn

    decision = note_turn(home, [], at="2026-12-01T10:00:00.000Z", host="pi")
    assert decision["host"] == "pi" and (notes / "last-capture.json").is_fifo()
