"""``benchmarks/write_phases.py``'s anatomy: every acknowledged write of every writer is
counted once, under its own write index, with the CPU its process measured of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "write_phases.py"


@pytest.mark.slow
def test_the_anatomy_counts_each_write_once_by_its_index(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "WAYMARKS_SEMANTIC": "off", "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(BENCH), "--writers", "2", "--writes", "5",
                           "--readers", "0"], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    tree = json.loads(done.stdout)["this_tree"]
    anatomy = tree["anatomy"]
    groups = anatomy["by_write_index"]
    assert [groups[name]["writes"] for name in ("1", "2", "3", "4", "5-10", "11-50", "51+")] \
        == [2, 2, 2, 2, 2, 0, 0], groups
    assert sum(g["writes"] for g in anatomy["by_tenth_of_time"]) == 10, anatomy
    # a process's own CPU of a write, and the part of it under the session lock
    assert all(0 < g["cpu_under_lock_ms"] <= g["cpu_ms"] for g in groups.values()
               if g["writes"]), groups
    slowest = anatomy["slowest_5_percent"]
    assert slowest["writes"] >= 1 and 0 <= slowest["first_two_of_a_writer"] <= 1, slowest
