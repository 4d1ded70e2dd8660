"""How the extension starts the bridge (the REAL Pi 1.6 from npm, a fake provider).

It started ``waymarks bridge`` in the project. An empty entry in ``PYTHONPATH`` (what
``export PYTHONPATH=$PYTHONPATH:/x`` leaves when none was set) puts the working directory
on Python's import path, so a cloned repository's ``msgspec.py`` ran as Pi started in it,
before anything was asked (Claude Code's hooks run ``python -I`` for this reason). The
bridge starts at ``/``; the project is what ``initialize`` names."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, install

pytestmark = pytest.mark.slow

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"


def test_a_repositorys_python_files_never_run_in_the_bridge(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        pi.extra_env["PYTHONPATH"] = ":" + os.environ.get("PYTHONPATH", "")
        assert pi.run("-p", "hello").returncode == 0
        assert pi.run("-c", "-p", "/context pin -- Always run the linters").returncode == 0
        for name in ("msgspec", "click", "secrets"):  # what the bridge imports, planted
            (pi.project / f"{name}.py").write_text(
                f"import pathlib\npathlib.Path({str(ran)!r}).write_text({name!r})\n")
        done = pi.run("-c", "-p", "next question")
    assert not ran.exists(), ran.read_text()
    assert done.returncode == 0 and "bridge" not in done.stderr
    assert PIN_BEGIN in json.dumps(fake.bodies[-1], ensure_ascii=False)


def test_a_waymarks_bin_relative_to_the_project_still_starts_the_bridge(
        tmp_path: Path) -> None:
    """`WAYMARKS_BIN=.venv/bin/waymarks` (a checkout's own environment, named from the
    project) was found from the project; started at `/`, the bridge could not be started
    (ENOENT) and Pi ran without pins. A relative path is the project's."""
    from tests.hosts.pi_harness import WAYMARKS_BIN

    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        (pi.project / "bin").mkdir()
        (pi.project / "bin" / "waymarks").symlink_to(WAYMARKS_BIN)
        pi.extra_env["WAYMARKS_BIN"] = "bin/waymarks"
        assert pi.run("-p", "hello").returncode == 0
        pinned = pi.run("-c", "-p", "/context pin -- Always run the linters")
        assert pinned.returncode == 0, pinned.stdout + pinned.stderr
        done = pi.run("-c", "-p", "next question")
    assert done.returncode == 0 and "bridge" not in done.stderr, done.stderr
    assert PIN_BEGIN in json.dumps(fake.bodies[-1], ensure_ascii=False)
