"""Pi's bridge builds its ranking of learned claims as it starts, off the request path:
built on the first plan, it took 15 s at 60k learned claims, past the extension's 5 s for
a call, and that prompt got no context at all."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.test_slice import _learn
from tests.hosts.test_bridge import Host, converse
from waymarks.hosts.pi_bridge import Bridge
from waymarks.service import evolution_recall
from waymarks.service.learning import set_learning


def test_plans_go_without_learned_memory_saying_so_until_the_ranking_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    _learn(home, ["The zebra gateway listens on port 9911",
                  "The billing worker retries three times"])
    set_learning(home, True)
    monkeypatch.setattr(evolution_recall, "_CORPORA", {})
    monkeypatch.setattr(evolution_recall, "BUILD_WAIT_S", 0.0, raising=False)
    built = threading.Event()  # a long build (60k claims), done once the first plan is
    real_warm, real_plan = evolution_recall.warm, Bridge.rpc_plan

    def long_warm(at: Path) -> None:
        assert built.wait(30)
        real_warm(at)

    def plan_then_built(self: Bridge, params: dict[str, Any]) -> dict[str, Any]:
        result = real_plan(self, params)
        built.set()
        warming = getattr(self, "_warming", None)
        if warming is not None:
            warming.join()
        return result

    monkeypatch.setattr(evolution_recall, "warm", long_warm)
    monkeypatch.setattr(Bridge, "rpc_plan", plan_then_built)
    prompt = {"prompt": "which port does the zebra gateway listen on?"}
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "plan", "params": prompt},
        {"id": 3, "method": "plan", "params": prompt},
        {"id": 4, "method": "shutdown"}], Host())
    first, then = out[1]["result"], out[2]["result"]
    assert "zebra" not in str(first["messages"])
    assert first["learnedLeftOut"].startswith("learned memory left out of this prompt: ")
    assert then["learnedLeftOut"] is None
    assert any("The zebra gateway listens on port 9911" in m["content"]
               for m in then["messages"])
    assert str(home) in evolution_recall._CORPORA  # built by the bridge's own thread


class Building:
    """A build of the ranking under way that never ends here: each wait is counted."""

    def __init__(self) -> None:
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return False

    def is_set(self) -> bool:
        return False


def test_a_plan_during_the_build_ranks_from_the_postings_without_waiting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plan while the bridge's start-up build ran (15 s at 60k learned claims) first
    waited a second for it, then ranked from the postings an earlier process wrote, as it
    could at once: the postings are asked first; the wait is for a home they do not serve
    (none written yet), whose small build may end within it."""
    home = tmp_path / "home"
    _learn(home, ["The zebra gateway listens on port 9911",
                  "The billing worker retries three times"])
    set_learning(home, True)
    monkeypatch.setattr(evolution_recall, "_CORPORA", {})
    evolution_recall._corpus(home)  # an earlier process posted every claim
    evolution_recall._CORPORA.clear()
    building = Building()
    monkeypatch.setitem(evolution_recall._BUILDING, str(home), building)
    found = evolution_recall.recall_learned(home, "zebra gateway port", automatic=True)
    assert [s.candidate.text for s in found.eligible] == [
        "The zebra gateway listens on port 9911"]
    assert building.waits == 0
    for path in home.glob("waymarks.db*"):
        path.unlink()  # no postings: the plan waits for the build, then goes without
    notes: list[str] = []
    found = evolution_recall.recall_learned(home, "zebra gateway port", automatic=True,
                                            notes=notes)
    assert not found.eligible and building.waits == 1
