"""Every benchmark that runs another tree's code beside this one refuses a directory that
does not hold it (``benchmarks/code_baseline.checked_tree``): ``write_statements.py
--compare-src DIR`` with no ``DIR/src/waymarks`` put nothing on its child's path, which
imported the installed code, and printed "both trees" that were one. ``--compare-src``
takes the tree's top directory, ``--baseline-src`` (and ``hybrid_oneshot.py``'s ``--also
NAME=DIR``) its ``src``; either wrong one is a usage error: exit 2, nothing run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"

#: (script, option, the other arguments of its smallest run)
TOP = [("write_statements.py", "--compare-src", ["--writes", "1"]),
       ("concurrency.py", "--compare-src", ["--writes", "1", "--scenario", "shared"]),
       ("write_phases.py", "--compare-src", ["--writes", "1"])]
SRC = [("claude_code_hook.py", "--baseline-src", ["--memories", "1", "--prompts", "1",
                                                   "--runs", "2"]),
       ("evolution_first_fold.py", "--baseline-src", ["--learned", "10"]),
       ("fresh_start.py", "--baseline-src", ["--sizes", "100", "--runs", "1"]),
       ("learned_hook.py", "--baseline-src", ["--learned", "10", "--runs", "1",
                                               "--writes", "1"]),
       pytest.param("mcp_tools.py", "--baseline-src", ["--calls", "1", "--spawns", "1"],
                    marks=pytest.mark.slow),  # (its imports: ~10 s on a loaded machine)
       ("pi_bridge.py", "--baseline-src", ["--start-mb", "0.1", "--runs", "1"]),
       ("pi_learned_plan.py", "--baseline-src", ["--learned", "10"]),
       ("sibling_sessions.py", "--baseline-src", ["--siblings", "1", "--plans", "1",
                                                   "--appends", "1"]),
       ("hybrid_oneshot.py", "--baseline-src", ["--mutations", "50", "--rounds", "1",
                                                 "--queries", "1"]),
       ("hybrid_oneshot.py", "--also", ["--mutations", "50", "--rounds", "1",
                                         "--queries", "1"])]


def run(script: str, option: str, given: Path, rest: list[str],
        tmp: Path) -> subprocess.CompletedProcess[str]:
    value = f"base={given}" if option == "--also" else str(given)
    env = {**os.environ, "HOME": str(tmp / "user"), "XDG_CACHE_HOME": str(tmp / "cache"),
           "TMPDIR": str(tmp), "WAYMARKS_SEMANTIC": "off"}
    return subprocess.run([sys.executable, str(BENCH / script), option, value, *rest],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp)


@pytest.mark.parametrize(("script", "option", "rest"), TOP, ids=[s for s, _, _ in TOP])
def test_a_compare_tree_given_as_its_src_is_refused(tmp_path: Path, script: str,
                                                    option: str, rest: list[str]) -> None:
    given = tmp_path / "base" / "src"  # (the tree's src/, not the tree)
    (given / "waymarks").mkdir(parents=True)
    done = run(script, option, given, rest, tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "no src/waymarks in it; give the tree's top directory" in done.stderr
    assert "that is its src/ folder: give its parent" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(("script", "option", "rest"), SRC)
def test_a_baseline_src_without_the_package_is_refused(tmp_path: Path, script: str,
                                                       option: str, rest: list[str]) -> None:
    given = tmp_path / "base"  # (the tree's top, not its src/)
    (given / "src" / "waymarks").mkdir(parents=True)
    done = run(script, option, given, rest, tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{option} {given}: no waymarks in it; give the tree's src/ folder" in done.stderr
    assert f"(give {given / 'src'})" in done.stderr
    assert done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base"]  # nothing made


def test_a_tree_holding_the_package_passes_the_check(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from code_baseline import checked_tree
    finally:
        sys.path.remove(str(BENCH))
    import argparse

    (tmp_path / "src" / "waymarks").mkdir(parents=True)
    parser = argparse.ArgumentParser()
    assert checked_tree(parser, "--compare-src", str(tmp_path), top=True) == str(tmp_path)
    assert checked_tree(parser, "--baseline-src", str(tmp_path / "src")) == \
        str(tmp_path / "src")
    assert checked_tree(parser, "--baseline-src", None) is None
