"""`learn on` and `learn` say when no model would consolidate what is learned, as
`evolution status` does: they said "consolidated by the model configured in
[evolution]" (and "learning: on") where no route was configured or reachable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks


def _cli(home: Path, cwd: Path, *args: str, env: dict[str, str]) -> str:
    done = waymarks("--home", str(home), *args, env=env, cwd=cwd)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A fresh home, a project, and an environment with no `claude` on PATH."""
    home, project, empty = tmp_path / "home", tmp_path / "project", tmp_path / "bin"
    project.mkdir()
    empty.mkdir()
    env = {"PATH": str(empty), "HOME": str(tmp_path)}
    return home, project, env


def test_learn_on_and_learn_say_no_model_runs_without_a_route(
        places: tuple[Path, Path, dict[str, str]]) -> None:
    home, project, env = places
    status = json.loads(_cli(home, project, "--json", "evolution", "status", env=env))
    why = status["blocked"]
    assert why is not None and "no model route" in why
    switched = _cli(home, project, "learn", "on", env=env)
    assert f"Not running: {why}." in switched
    assert json.loads(_cli(home, project, "--json", "learn", "on", env=env))["blocked"] == why
    assert f"Not running: {why}." in _cli(home, project, "learn", env=env)
    assert json.loads(_cli(home, project, "--json", "learn", env=env))["blocked"] == why


def test_no_note_where_a_route_is_usable(places: tuple[Path, Path, dict[str, str]]) -> None:
    home, project, env = places
    home.mkdir()
    (home / "config.toml").write_text(
        '[evolution]\nprovider = "openai"\napi = "openai"\nendpoint = "http://127.0.0.1:9/v1"'
        '\nmodel = "m1"\nkeyEnv = "LEARN_NOTE_KEY"\n')
    env = {**env, "LEARN_NOTE_KEY": "sk-" + "k" * 20}
    assert "Not running" not in _cli(home, project, "learn", "on", env=env)
    assert json.loads(_cli(home, project, "--json", "learn", env=env))["blocked"] is None


def test_learn_on_and_learn_say_no_model_runs_while_evolution_is_invalid(
        places: tuple[Path, Path, dict[str, str]]) -> None:
    """With `callsPerHour = "x"` under [evolution], `learn on` said statements would be
    "consolidated by the model configured in [evolution]" and `learn` said "learning: on"
    with no note, while no queue would send anything until the file was fixed (only
    `evolution status` said so)."""
    home, project, env = places
    home.mkdir()
    (home / "config.toml").write_text(
        '[evolution]\nprovider = "openai"\napi = "openai"\nendpoint = "http://127.0.0.1:9/v1"'
        '\nmodel = "m1"\nkeyEnv = "LEARN_NOTE_KEY"\ncallsPerHour = "sk-live-not-a-number"\n')
    env = {**env, "LEARN_NOTE_KEY": "sk-" + "k" * 20}
    switched = _cli(home, project, "learn", "on", env=env)
    assert "Not running:" in switched and "callsPerHour" in switched
    assert "sk-live-not-a-number" not in switched
    why = json.loads(_cli(home, project, "--json", "learn", env=env))["blocked"]
    assert why is not None and "callsPerHour" in why
