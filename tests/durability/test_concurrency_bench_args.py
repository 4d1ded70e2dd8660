"""``benchmarks/concurrency.py --compare-src DIR`` wants the other tree's top directory:
given its ``src/`` (as the hook benchmark's ``--baseline-src`` is), the children ran the
installed code and the "base" figures were this tree's own. Such a directory is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "concurrency.py"


def test_a_compare_tree_without_src_waymarks_is_refused(tmp_path: Path) -> None:
    given = tmp_path / "base" / "src"  # (a tree's src/, not the tree)
    (given / "waymarks").mkdir(parents=True)
    done = subprocess.run([sys.executable, str(BENCH), "--compare-src", str(given),
                           "--writes", "1", "--scenario", "shared"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "no src/waymarks in it" in done.stderr
    assert done.stdout == ""
