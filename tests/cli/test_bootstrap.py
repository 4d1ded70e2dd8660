"""``scripts/bootstrap.sh`` run by bash against a stand-in interpreter: a copy of the
script and the lock file in a temporary checkout, and a ``PYTHON`` that logs what it is
asked (``-m venv`` makes a ``.venv`` holding a copy of it), so what the script decides
is seen without a network or a real virtual environment."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STAND_IN = """#!/bin/bash
echo "$0 $*" >> "$BOOTSTRAP_LOG"
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin" && rm -f "$3/bin/python" && cp "$0" "$3/bin/python"
fi
exit 0
"""


def checkout(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A checkout holding the script and the lock, the stand-in ``PYTHON`` and the
    environment that runs them."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "bootstrap.sh", repo / "scripts" / "bootstrap.sh")
    shutil.copy2(ROOT / "requirements.lock", repo / "requirements.lock")
    python = tmp_path / "python3"
    python.write_text(STAND_IN)
    python.chmod(0o755)
    log = tmp_path / "log"
    env = {**os.environ, "PYTHON": str(python), "BOOTSTRAP_LOG": str(log)}
    return repo, log, env


def test_a_venv_whose_python_is_gone_is_made_again_with_the_locked_packages(
        tmp_path: Path) -> None:
    """A pyenv or Homebrew upgrade leaves ``.venv/bin/python`` a dangling link: the
    script took the venv for missing, made one over it (the real ``venv`` failed there,
    on every run) and kept the old stamp, so the locked packages were never installed."""
    repo, log, env = checkout(tmp_path)
    venv = repo / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(tmp_path / "removed" / "python3.12")
    shutil.copy2(repo / "requirements.lock", venv / ".waymarks-lock")  # installed back then
    done = subprocess.run(["bash", str(repo / "scripts" / "bootstrap.sh")], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "making it again" in done.stderr
    calls = log.read_text().splitlines()
    assert f"{tmp_path / 'python3'} -m venv .venv" in calls
    assert ".venv/bin/python -m pip install --quiet --require-hashes -r requirements.lock" \
        in calls, calls
    assert (venv / ".waymarks-lock").read_bytes() == (repo / "requirements.lock").read_bytes()


def test_a_working_venv_with_the_current_lock_installs_only_waymarks(tmp_path: Path) -> None:
    repo, log, env = checkout(tmp_path)
    first = subprocess.run(["bash", str(repo / "scripts" / "bootstrap.sh")], env=env,
                           capture_output=True, text=True, timeout=60, check=False)
    assert first.returncode == 0, first.stderr
    log.write_text("")
    again = subprocess.run(["bash", str(repo / "scripts" / "bootstrap.sh")], env=env,
                           capture_output=True, text=True, timeout=60, check=False)
    assert again.returncode == 0 and "making it again" not in again.stderr, again.stderr
    calls = log.read_text().splitlines()
    assert not [call for call in calls if "-m venv" in call or "requirements.lock" in call]
    assert any(call.endswith("-m pip install --quiet --no-deps -e .") for call in calls), calls
