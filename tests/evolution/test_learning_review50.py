"""Stop 50's review of learning from the CLI: a process without the model's key, a
correction of a pinned claim, and `learn on` where the project has it off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from tests.inprocess import waymarks
from waymarks.service.evolution import Evolution


def _cli(home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None,
         expect: int | None = 0) -> Any:
    done = waymarks("--home", str(home), "--json", *args, env=env, cwd=cwd)
    assert "Traceback" not in done.stderr, done.stderr
    if expect is not None:
        assert done.returncode == expect, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_process_without_the_key_neither_calls_nor_cools_the_route_down(
        tmp_path: Path) -> None:
    """An MCP client that started `waymarks mcp` without the key variable failed each
    call as `auth` before sending it, and cooled the provider down for 15 minutes for
    every process of the home, a terminal holding the key included."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "EVO_REVIEW_KEY"}
    answer = json.dumps({"claims": [{"kind": "preference", "content":
                                     "The person prefers pnpm over npm",
                                     "searchTerms": ["pnpm"]}]})
    with FakeProvider([openai_ok(answer)]) as fake:
        home.mkdir()
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\nkeyEnv = "EVO_REVIEW_KEY"\n')
        with Evolution(home) as evo:
            assert evo.capture(str(project), "statement", "Remember: I prefer pnpm over npm",
                               session="s", key="k1") is not None
        os.environ.pop("EVO_REVIEW_KEY", None)
        waited = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home",
                                 str(home), "--json", "evolve"], cwd=project, env=env,
                                capture_output=True, text=True, timeout=120)
        assert waited.returncode == 1 and fake.requests == []
        assert json.loads(waited.stdout)["reason"] == "no_route"
        status = _cli(home, project, "evolution", "status", env={"EVO_REVIEW_KEY": "sk-x"})
        assert status["cooldowns"] == [] and status["budgets"]["callsLastHour"] == 0, status
        applied = _cli(home, project, "evolve", env={"EVO_REVIEW_KEY": "sk-" + "k" * 20})
        assert applied["outcome"] == "settled" and len(fake.requests) == 1


def test_a_correction_of_a_pinned_claim_stays_pinned(tmp_path: Path) -> None:
    """The correction was a new, unpinned claim: it aged and went dormant although the
    person had pinned what it corrects (adopt keeps a pin; correct dropped it)."""
    from tests.evolution.test_aging import learn
    from waymarks.service import evolution_edits

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    claim = learn(home, str(project), {"kind": "project_state",
                                       "content": "The staging port is 8080",
                                       "searchTerms": ["staging port"]},
                  "2026-11-01T00:00:00.000Z")
    with Evolution(home) as evo:
        assert evolution_edits.pin(evo, claim).ok
        done = evolution_edits.correct(evo, claim, "The staging port is 8443")
        assert done.ok, done
    shown = _cli(home, project, "evolution", "show", claim)
    corrected = _cli(home, project, "evolution", "show", shown["supersededBy"])
    assert corrected["content"] == "The staging port is 8443" and corrected["pinned"] is True
    (home / "waymarks.db").unlink()  # and so it is folded again from the ledger
    assert _cli(home, project, "evolution", "show", shown["supersededBy"])["pinned"] is True


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_learn_on_says_where_the_project_has_it_off(tmp_path: Path) -> None:
    """`learn on` answered "Learning is on" (`"learning": true`) in a project whose own
    configuration turns it off, and `evolution status` agreed, while `evolve` refused."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text("[evolution]\nlearn = false\n")
    _cli(home, project, "trust", ".")
    switched = _cli(home, project, "learn", "on")
    assert (switched["learning"], switched["homeSetting"], switched["projectOff"]) == (
        False, True, True)
    text = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "learn", "on"], cwd=project, capture_output=True, text=True,
                          timeout=120).stdout
    assert "But not here" in text
    assert _cli(home, project, "evolution", "status")["learning"] is False
    assert _cli(home, tmp_path, "evolution", "status")["learning"] is True  # elsewhere on


def test_status_counts_a_captured_source_before_the_queue_has_its_job(tmp_path: Path) -> None:
    """`learn status` said 2 sources pending where `evolution status` said 0 (jobs are
    made when the queue next runs), and so after a damaged queue was set aside."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    with Evolution(home) as evo:
        for n, said in enumerate(("Remember: we deploy on Fridays",
                                  "Remember: the staging port is 5433")):
            assert evo.capture(str(project), "statement", said, session="s",
                               key=f"k{n}") is not None
    assert _cli(home, project, "learn", "status")["counts"]["sources_pending"] == 2
    assert _cli(home, project, "evolution", "status")["counts"]["pending"] == 2
    (home / "evolution.db").write_bytes(b"\0" * 200)  # a damaged queue, set aside
    assert _cli(home, project, "evolution", "status")["counts"]["pending"] == 2


def test_learn_on_beside_an_invalid_project_file_changes_nothing(tmp_path: Path) -> None:
    """A re-review: the project's state was read after the home's file was written, so
    an invalid project file failed the command with the change already made."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text('[evolution]\nlearn = "no"\n')
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = false\n")
    refused = _cli(home, project, "learn", "on", expect=1)
    assert "learn must be true or false" in refused["message"]
    assert (home / "config.toml").read_text() == "[evolution]\nlearn = false\n"
