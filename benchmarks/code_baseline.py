"""Run a benchmark against another commit's code in the same run (``--baseline REF``).

The ``src`` tree of ``REF`` is exported with ``git archive`` into a temporary folder (no
worktree, nothing in the repository changes) and a child process is started with that
folder first on ``PYTHONPATH``, so ``import waymarks`` loads the baseline's modules while
the benchmark script itself (its generator, its timing) stays the current one.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def export_source(ref: str, into: Path) -> Path:
    """``REF``'s ``src`` folder under ``into``; returns the folder to put on the path."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def env_with(source: Path | None) -> dict[str, str]:
    """The environment of a child that imports waymarks from ``source`` (``None``: the
    current code)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(source), *filter(None, [env.get("PYTHONPATH")])])
    return env


def commit_of(ref: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", ref], check=True,
                          capture_output=True, text=True).stdout.strip()


def temporary() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="waymarks-baseline-")


def load() -> list[float]:
    """The 1, 5 and 15 minute load averages (others' work inflates wall times)."""
    return [round(x, 2) for x in os.getloadavg()]
