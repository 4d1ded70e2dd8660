"""Natural-language feedback over the real Pi bridge process: a user message
``memory <id> is incorrect.`` at ``agent_end`` quarantines the learned claim, so the next
plan does not inject it; ``waymarks evolution undo`` brings it back; the same turn seen
again applies nothing twice; an unknown ID does not break the hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evolution.test_aging import learn
from tests.hosts.test_pi_evolve import Bridge, _cli, _entry, _initialize

PAST = "2026-03-01T00:00:00.000Z"
ASK = "Which package manager should I use?"


def _context(bridge: Bridge) -> str:
    plan = bridge.call("plan", {"prompt": ASK})
    return "\n".join(m["content"] for m in plan["messages"])


@pytest.mark.slow
def test_incorrect_in_a_user_message_stops_injection_and_undo_restores(
        tmp_path: Path) -> None:
    home, a = tmp_path / "home", tmp_path / "a"
    a.mkdir()
    claim = learn(home, str(a), {"kind": "preference",
                                 "content": "The person prefers pnpm over npm",
                                 "searchTerms": ["pnpm", "package manager"]}, PAST)
    bridge = Bridge(home, a)
    try:
        _initialize(bridge, a, tmp_path / "s.jsonl", [_entry("u0", None, "user", ASK)])
        assert "prefers pnpm" in _context(bridge)
        _initialize(bridge, a, tmp_path / "s.jsonl", [
            _entry("u0", None, "user", ASK),
            _entry("u1", "u0", "user", f"memory {claim} is incorrect.")])
        done = bridge.call("learn", {"event": "agent_end"})
        assert (done["feedback"], done["feedbackRefused"]) == (1, 0), done
        assert "prefers pnpm" not in _context(bridge)
        again = bridge.call("learn", {"event": "agent_end"})  # the same turn, replayed
        assert again["feedback"] == 1  # answered as done, but nothing new applied:
        history = _cli(home, a, "evolution", "history")["events"]
        assert [e["reason"] for e in history].count("incorrect") == 1
        undone = _cli(home, a, "evolution", "undo", str(history[0]["event"]))
        assert undone["claims"] == [claim]
        assert "prefers pnpm" in _context(bridge)
        replay = bridge.call("learn", {"event": "agent_end"})  # after undo: still once
        assert replay["feedback"] == 1 and "prefers pnpm" in _context(bridge)
        _initialize(bridge, a, tmp_path / "s.jsonl", [
            _entry("u2", None, "user", f"memory {'b' * 24} is useful.")])
        unknown = bridge.call("learn", {"event": "agent_end"})
        assert (unknown["feedback"], unknown["feedbackRefused"]) == (0, 1), unknown
    finally:
        bridge.close()
