"""The standing check of false conflicts (issue 20 item 4): every claim of the everyday
stores written into ONE home through the real write path (``Waymarks.remember``), a
project each, is written; none is refused. A wrongly refused write blocks a person, and
the first false conflict of a new rule ("Notifications runs on Node 20." beside "The
notifications service listens on port 8060.") was found only by an ordinary store.
``benchmarks/ordinary_refusals.py`` counts the same over the LoCoMo-derived claims and
every non-conflicting fixture pair too."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "ordinary_refusals.py"


def _benchmark() -> SimpleNamespace:
    return SimpleNamespace(**runpy.run_path(str(BENCHMARK), run_name="ordinary_refusals"))


@pytest.mark.slow  # (~300 durable writes: 4-5 s of CPU, more of fsync)
def test_no_claim_of_an_everyday_store_is_refused(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    bench = _benchmark()
    stores = bench.stores()
    assert sum(len(claims) for claims in stores.values()) >= 300
    (tmp_path / "projects").mkdir()
    written = bench.write_all(tmp_path / "home", tmp_path / "projects", stores)
    refused = {name: got["refused"] for name, got in written.items() if got["refused"]}
    assert refused == {}
    assert {name: got["claims"] for name, got in written.items()} == {
        name: len(claims) for name, claims in stores.items()}


def test_a_refusal_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check sees a refusal: a store holding a contradiction counts it."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    (tmp_path / "projects").mkdir()
    written = _benchmark().write_all(tmp_path / "home", tmp_path / "projects", {
        "contradicting": ("The API listens on port 8080.", "The API listens on port 9090.")})
    assert [r["claim"] for r in written["contradicting"]["refused"]] == [
        "The API listens on port 9090."]
    assert written["contradicting"]["refused"][0]["for"] == ["The API listens on port 8080."]
