"""``benchmarks/plan.py --baseline REF`` (``write_scale.py``, ``recall_latency.py``) ran
all of the current tree first and the baseline's after, minutes apart: on a loaded
machine that alone showed gaps of 2 ms a plan that were not the code's. The two trees now
take the rounds in turns (``benchmarks/alternate.py``), and the report gives each round's
wall and CPU figures, their spread and the gaps round by round, beside the keys it had."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"

#: each plan, write or recall evaluation a child makes, logged with the tree it runs (a
#: sitecustomize put first on the children's path wraps them before the script imports them)
LOGGER = """import os
log = os.environ.get("BENCH_TURNS_LOG")
if log:
    import waymarks
    import waymarks.recall.engine as engine
    import waymarks.service.app as app
    import waymarks.service.planning as planning
    tree = os.path.dirname(waymarks.__file__)
    def logged(owner, name):
        inner = getattr(owner, name)
        def call(*args, **kwargs):
            with open(log, "a") as file:
                file.write(tree + "\\n")
            return inner(*args, **kwargs)
        setattr(owner, name, call)
    logged(planning, "plan_request")
    logged(app.Waymarks, "remember")
    logged(engine, "evaluate")
"""


def _switches(tmp_path: Path) -> int:
    """How many times the log passes from one tree to the other (it holds both)."""
    trees = (tmp_path / "turns.log").read_text().split()
    assert len(set(trees)) == 2  # this tree's code and HEAD's exported one
    return sum(1 for a, b in itertools.pairwise(trees) if a != b)


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "user"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(LOGGER)
    return {**os.environ, "TMPDIR": str(tmp_path), "HOME": str(home),
            "XDG_CACHE_HOME": str(home / ".cache"), "WAYMARKS_CLI_HELPER": "off",
            "BENCH_TURNS_LOG": str(tmp_path / "turns.log"),
            "PYTHONPATH": os.pathsep.join([str(site), str(BENCH.parent / "src")])}


def _against_head(tmp_path: Path, script: str, *argv: str) -> dict[str, Any]:
    """The report of ``script`` at 200 memories with ``--baseline HEAD`` (its defaults
    otherwise: they did not know ``--rounds``)."""
    done = subprocess.run([sys.executable, str(BENCH / script), "--sizes", "200", *argv,
                           "--baseline", "HEAD"],
                          capture_output=True, text=True, env=_env(tmp_path), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout))


@pytest.mark.slow
def test_plan_runs_both_trees_in_turns_and_reports_each_round(tmp_path: Path) -> None:
    report = _against_head(tmp_path, "plan.py", "--plans", "12")
    # which tree planned, in order: one switch when the baseline ran after; in turns
    # (6 rounds by default, the order reversed every other round) at least 6
    assert _switches(tmp_path) >= 6
    [entry] = report["results"]
    assert entry["same_recall_selections"] is True and entry["same_plan_inclusions"]
    for side in ("current", "baseline"):
        result = entry[side]
        # the keys the report had, and the rounds beside them
        assert {"plan", "plan_cpu", "recall_only", "recall_only_cpu", "met",
                "load_avg_before_after"} <= set(result)
        assert [r["plans"] for r in result["rounds"]] == [2] * 6
        low, high = result["round_spread"]["plan"]["cpu_mean_ms"]
        assert 0 < low <= high
    assert len(entry["round_gaps"]["plan"]["p50_ms"]) == 6
    assert report["rounds"] == 6 and report["in_turns"] is True


@pytest.mark.slow
def test_write_scale_runs_both_trees_in_turns(tmp_path: Path) -> None:
    """``write_scale.py --baseline REF`` did the same (``code_baseline.sized_report``)."""
    report = _against_head(tmp_path, "write_scale.py", "--writes", "8")
    # 4 rounds by default: the trees take 4 turns after the first (1 switch before)
    assert _switches(tmp_path) >= 4
    [entry] = report["results"]
    for side in ("current", "baseline"):
        result = entry[side]
        assert {"first_write_ms", "write_ms", "write_cpu_ms", "steal_s"} <= set(result)
        # 9 writes in 4 rounds (2, 2, 2, 3), the first write reported apart
        assert [r["writes"] for r in result["rounds"]] == [1, 2, 2, 3]
    assert len(entry["round_gaps"]["write"]["cpu_mean_ms"]) == 4


@pytest.mark.slow
def test_recall_latency_runs_both_trees_in_turns(tmp_path: Path) -> None:
    """``recall_latency.py --baseline REF`` too: the SQLite path's rounds, the cache's,
    then a turn each for the RSS and the fresh processes (11 turns by default)."""
    report = _against_head(tmp_path, "recall_latency.py", "--queries", "20",
                           "--fresh-runs", "0")
    assert _switches(tmp_path) >= 10  # (1 before)
    [entry] = report["results"]
    assert entry["same_selection_as_baseline"] == 1.0
    for side in ("current", "baseline"):
        for loop in ("warm", "warm_cached"):
            result = entry[side][loop]
            assert {"p50_ms", "p99_ms", "cpu_p50_ms", "named_hit"} <= set(result)
            assert [r["queries"] for r in result["rounds"]] == [4] * 5
    assert len(entry["round_gaps"]["warm"]["recall"]["cpu_mean_ms"]) == 5


def test_rounds_beyond_the_plans_are_refused_before_anything_runs(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCH / "plan.py"), "--plans", "4",
                           "--rounds", "5"],
                          capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    assert done.returncode == 2
    assert "--rounds 5: give 1 to --plans (4)" in done.stderr
    assert done.stdout == "" and not (tmp_path / "turns.log").exists()


def test_a_child_that_fails_is_named_with_its_error(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from alternate import in_turns
    finally:
        sys.path.remove(str(BENCH))
    ok = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
          "import alternate; [None for _ in alternate.turns(2)]; print('{}')", str(BENCH)]
    bad = [sys.executable, "-c", "raise SystemExit('no store here')"]
    with pytest.raises(RuntimeError, match=r"(?s)the baseline child failed .*no store here"):
        in_turns({"current": (ok, dict(os.environ)), "baseline": (bad, dict(os.environ))},
                 2)
