"""Item 76 as Pi commands: the inspection commands (``/context evolution list|search|show|
history|learning``) answered through the real bridge protocol (in process, pipes, no Pi),
read-only (the host is never asked to append or confirm anything)."""

from __future__ import annotations

from pathlib import Path

from tests.evolution.test_aging import days_ago, learn
from tests.hosts.test_bridge import Host, converse

PAST = days_ago(14)  # learned lately: not dormant on the real clock


def test_inspection_commands_answer_through_the_pi_bridge(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cid = learn(home, str(tmp_path / "project"), {
        "kind": "decision", "content": "Deployments use Kamal, not Capistrano",
        "searchTerms": ["deploy tool"]}, PAST)
    host = Host()
    texts = ["evolution list", "evolution search kamal deploy", f"evolution show {cid}",
             "evolution history", "evolution learning", "evolution show 0123456789abcdef01234567"]
    out = converse(tmp_path, [{"id": 1, "method": "initialize"},
                              *({"id": n, "method": "command", "params": {"text": text}}
                                for n, text in enumerate(texts, start=2)),
                              {"id": 99, "method": "shutdown"}], host)
    answers = {m["id"]: m["result"] for m in out if "result" in m}
    listed, searched, shown, history, learning, unknown = (answers[n] for n in range(2, 8))
    for answer in (listed, searched, shown, history, learning):
        assert answer["exitCode"] == 0, answer
    assert cid in listed["text"] and cid in searched["text"]
    assert "Deployments use Kamal" in shown["text"] and "decision" in shown["text"]
    assert cid in history["text"] and "Deployments" not in history["text"]  # no content
    assert "Deployments" not in learning["text"]
    assert unknown["exitCode"] == 2 and "not_found" in unknown["text"], unknown
    assert host.entries == []  # read-only: nothing appended through the host
