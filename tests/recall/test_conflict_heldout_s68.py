"""The ``heldout-s68`` pairs of ``benchmarks/conflict_pairs.json``: written blind (neither the
rules of ``core/*`` nor the other pairs read), each marked by judgement before any run. They
measure; no rule is written for them. The set must stay what docs/conflicts.md says it is:
its size, its balance, its languages, no sentence of another pair, reported apart."""

from __future__ import annotations

import runpy
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

TAG = "heldout-s68"
BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "conflicts.py"


def _conflicts_benchmark() -> SimpleNamespace:
    """benchmarks/conflicts.py's functions (``load``, ``measure``), run as a module."""
    return SimpleNamespace(**runpy.run_path(str(BENCHMARK), run_name="conflicts_bench_s68"))


def test_the_s68_set_is_large_balanced_and_spread_over_languages_and_areas() -> None:
    held = [p for p in _conflicts_benchmark().load() if p.get("tag") == TAG]
    assert len(held) >= 160
    conflicting = sum(p["conflict"] for p in held)
    assert 0.45 <= conflicting / len(held) <= 0.55
    shares = {lang: n / len(held) for lang, n in Counter(p["lang"] for p in held).items()}
    assert set(shares) == {"en", "zh", "mixed"}
    assert 0.5 <= shares["en"] <= 0.7 and 0.25 <= shares["zh"] <= 0.4
    assert 0.07 <= shares["mixed"] <= 0.15
    by_area: dict[str, set[bool]] = {}
    for pair in held:
        by_area.setdefault(pair["area"], set()).add(pair["conflict"])
    assert len(by_area) >= 12 and all(marks == {True, False} for marks in by_area.values())
    assert all(p["scopes"] == "same" and p["a"] != p["b"] for p in held)


def test_no_s68_sentence_is_one_of_another_pair_and_it_is_reported_apart() -> None:
    bench = _conflicts_benchmark()
    pairs = bench.load()
    held = [p for p in pairs if p.get("tag") == TAG]
    rest = [p for p in pairs if p.get("tag") != TAG]
    theirs = {p["a"] for p in rest} | {p["b"] for p in rest}
    assert held and not theirs & ({p["a"] for p in held} | {p["b"] for p in held})
    assert len({(p["a"], p["b"]) for p in held}) == len(held)
    groups = bench.measure(held[:3] + [p for p in rest if "tag" not in p][:1])["groups"]
    apart = groups[f"tag:{TAG}"]["write_check"]
    assert apart["conflicting"] + apart["other"] == 3
    assert groups["overall"]["write_check"]["conflicting"] + \
        groups["overall"]["write_check"]["other"] == 1
