"""``benchmarks/learned_hook.py --baseline-src DIR`` end to end, at its smallest: it
called ``claude_code_hook.baseline_home`` without the ``embed`` argument that function
gained, and died with a TypeError once its home was built, printing nothing; and it left
the helper its rounds started running in its removed folder (now stopped first)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.durability.test_bench_leftovers import running_under

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
def test_the_learned_hook_benchmark_runs_beside_a_baseline(tmp_path: Path) -> None:
    home = tmp_path / "user"
    env = {**os.environ, "TMPDIR": str(tmp_path), "HOME": str(home),
           "XDG_CACHE_HOME": str(home / ".cache"), "WAYMARKS_SEMANTIC": "off",
           "WAYMARKS_CLI_HELPER": "off", "PYTHONPATH": str(BENCH.parent / "src")}
    done = subprocess.run([sys.executable, str(BENCH / "learned_hook.py"), "--learned", "20",
                           "--runs", "1", "--writes", "1",
                           "--baseline-src", str(BENCH.parent / "src")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["without_helper_baseline"]["runs"] == 1
    assert report["same_context"] is True  # (the same code on both sides)
    assert running_under(tmp_path) == []
    assert not list(tmp_path.glob("waymarks-learned-*"))
