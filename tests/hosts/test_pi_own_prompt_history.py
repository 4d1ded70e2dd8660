"""A prompt Waymarks started as the person's turn (Pi's ``/remember`` curation, ``/notes
promote``) is no turn of the conversation. Pi's extension passes every earlier user
message as the plan's history, those included (Claude Code's hook records them as the
slash command that started them, which it leaves out); as the turn just before, the
curation prompt was the earlier subject, so "and the port?" after "Let's look at Postgres
today" recalled nothing once a ``/remember`` turn came between."""

from __future__ import annotations

from pathlib import Path

from tests.hosts.test_bridge import Host, converse
from waymarks.personal.curation import curation_prompt


def test_a_curation_turn_in_the_history_does_not_take_the_subject(tmp_path: Path) -> None:
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command",
         "params": {"text": "memory add -- The Postgres port is 5432."}},
        {"id": 3, "method": "command", "params": {"text": "memory add -- The Redis port is 6379."}},
        {"id": 4, "method": "plan", "params": {"prompt": "and the port?", "history": [
            "Let's look at Postgres today", curation_prompt(None)]}},
        {"id": 5, "method": "shutdown"}], Host())
    assert [o["result"]["exitCode"] for o in out[1:3]] == [0, 0], out
    recalled = "\n".join(m["content"] for m in out[3]["result"]["messages"])
    assert "The Postgres port is 5432." in recalled, out[3]
    assert "The Redis port is 6379." not in recalled
