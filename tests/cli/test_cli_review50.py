"""Stop 50's review of everyday command-line use: `privacy sanitize` on a closed or
endless standard input, `health` beside a configuration every other command refuses, and
the failure shape docs/cli.md gives every `--json` failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.inprocess import Ran, waymarks

FAILURE_FIELDS = {"outcome", "id", "code", "conflicts", "notices", "message"}


def _run(home: Path, cwd: Path, *args: str, stdin: int | None = None,
         text_in: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *args], cwd=cwd, stdin=stdin, input=text_in, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "WAYMARKS_SEMANTIC": "off"})
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_sanitize_refuses_a_closed_or_endless_standard_input_in_one_line(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    closed = subprocess.run(
        f"{sys.executable} -m waymarks.cli.main --home {home} --json privacy sanitize "
        "--provider openai <&-", shell=True, cwd=project, capture_output=True, text=True,
        timeout=120)
    assert closed.returncode == 2 and "Traceback" not in closed.stderr
    assert "standard input is closed" in json.loads(closed.stdout)["message"]
    with open("/dev/zero", "rb") as zero:
        endless = _run(home, project, "--json", "privacy", "sanitize", "--provider",
                       "openai", stdin=zero.fileno())
    assert endless.returncode == 2 and "more than" in json.loads(endless.stdout)["message"]
    withheld = _run(home, project, "--json", "privacy", "sanitize", "--provider", "openai",
                    text_in="[]")
    assert withheld.returncode == 2
    assert set(json.loads(withheld.stdout)) >= FAILURE_FIELDS


def test_health_says_attention_when_the_configuration_stops_every_command(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()

    def run(*args: str) -> Ran:  # the entry point in this process: no stdin involved
        done = waymarks("--home", str(home), *args, cwd=project)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    assert run("memory", "add", "--", "The db port is 5433").returncode == 0
    (home / "config.toml").write_text("garbage = = =\n")
    assert run("memory", "add", "--", "The cache ttl is 5s").returncode == 1
    health = run("--json", "health")
    assert health.returncode == 1
    report = json.loads(health.stdout)
    assert set(report) >= FAILURE_FIELDS and report["code"] == "attention"
    assert any(p.startswith("configuration: ") and "config.toml" in p
               for p in report["problems"])
