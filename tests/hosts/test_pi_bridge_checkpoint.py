"""A bridge start reads only what Pi recorded since the last start (issue 15).

Pi sends its whole session to every new bridge. It was read whole each time: a session of
a few hundred MB passed the extension's start limit and Pi ran without memory. The bridge
now reads it from where the projection stopped (offset, lines, the fingerprint of the
bytes before it, the entry index), and whole when the bytes before are not the ones read."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from waymarks.hosts.pi_bridge import Bridge

HEADER = {"type": "session", "version": 3, "id": "22222222-2222-4222-8222-222222222222",
          "timestamp": "2026-11-30T10:00:00.000Z"}
PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"


def message(n: int, parent: str | None, text: str = "") -> dict[str, Any]:
    return {"type": "message", "id": f"m{n:07x}", "parentId": parent,
            "timestamp": "2026-11-30T10:00:01.000Z",
            "message": {"role": "user" if n % 2 == 0 else "assistant",
                        "content": [{"type": "text", "text": text or f"message {n}"}]}}


class Pi:
    """Plays Pi and its extension: holds the session, writes its file as Pi does, and
    starts a bridge with everything it has (as the extension's initialize does)."""

    def __init__(self, tmp_path: Path) -> None:
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.home = tmp_path / "home"
        self.file = tmp_path / "s.jsonl"
        self.header = {**HEADER, "cwd": str(self.project)}
        self.entries: list[dict[str, Any]] = []
        for _ in range(200):
            self.say()

    def say(self, text: str = "") -> None:
        parent = self.entries[-1]["id"] if self.entries else None
        self.entries.append(message(len(self.entries), parent, text))
        self.save()

    def save(self) -> None:
        self.file.write_text("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":"))
                                     + "\n" for e in [self.header, *self.entries]))

    def start(self) -> Bridge:
        bridge = Bridge(self.home, io.StringIO(), io.StringIO())
        self.call(bridge, "initialize", {
            "cwd": str(self.project), "sessionFile": str(self.file), "header": self.header,
            "entries": self.entries, "leafId": self.entries[-1]["id"], "trusted": True})
        return bridge

    def call(self, bridge: Bridge, method: str, params: dict[str, Any]) -> Any:
        bridge.stdout = io.StringIO()
        bridge._handle({"id": 1, "method": method, "params": params})
        [answer] = [m for m in map(json.loads, bridge.stdout.getvalue().splitlines())
                    if "method" not in m]
        assert "error" not in answer, answer
        return answer["result"]

    def append(self, params: dict[str, Any]) -> dict[str, Any]:
        entry = {"type": "custom", "customType": params["customType"], "data": params["data"],
                 "id": f"c{len(self.entries):07x}", "parentId": self.entries[-1]["id"],
                 "timestamp": "2026-11-30T10:00:02.000Z"}
        self.entries.append(entry)
        self.save()
        return entry


def started(pi: Pi) -> Bridge:
    bridge = pi.start()
    bridge.ask_host = lambda method, params, **_: pi.append(params)  # type: ignore[method-assign]
    return bridge


def read_since_start(bridge: Bridge) -> int:
    """How many entries the bridge's ledger decoded (one read at a checkpoint holds only
    those after it)."""
    assert bridge.ledger is not None
    return len(bridge.ledger.entries_from(0))


def planned(pi: Pi, bridge: Bridge) -> str:
    return json.dumps(pi.call(bridge, "plan", {"prompt": "what are the rules?"}),
                      ensure_ascii=False)


def test_a_second_start_reads_only_what_pi_recorded_since(tmp_path: Path) -> None:
    pi = Pi(tmp_path)
    first = started(pi)
    pinned = pi.call(first, "command", {"text": "pin -- Always run the linters"})
    assert pinned["exitCode"] == 0, pinned
    assert read_since_start(first) == len(pi.entries) == 201
    pi.call(first, "shutdown", {})

    pi.say("a question asked since")
    second = started(pi)
    assert read_since_start(second) == 1  # not the 201 before the checkpoint
    assert PIN_BEGIN in planned(pi, second)
    status = pi.call(second, "command", {"text": "status"})
    assert "1 in effect" in status["text"], status
    pi.say("and another")
    pi.call(second, "sync", {"sync": {"entries": pi.entries[-1:],
                                      "leafId": pi.entries[-1]["id"]}})
    assert read_since_start(second) == 2  # a sync did not read the session whole either
    assert second.ledger is not None and second.ledger.leaf_id == pi.entries[-1]["id"]
    assert PIN_BEGIN in planned(pi, second)
    pi.call(second, "shutdown", {})


def test_a_session_edited_before_the_checkpoint_is_read_whole(tmp_path: Path) -> None:
    pi = Pi(tmp_path)
    first = started(pi)
    assert pi.call(first, "command", {"text": "pin -- Always run the linters"})["exitCode"] == 0
    pi.call(first, "shutdown", {})
    pi.entries[5]["message"]["content"][0]["text"] = "rewritten by hand, longer than it was"
    pi.save()
    second = started(pi)
    assert read_since_start(second) == len(pi.entries)
    assert PIN_BEGIN in planned(pi, second)
    pi.call(second, "shutdown", {})


def test_a_database_damaged_between_starts_is_rebuilt_and_the_session_read(
        tmp_path: Path) -> None:
    """The checkpoint is looked for in the database: found damaged, it is set aside and
    rebuilt, and the session Pi sent (not read yet) was read whole then; the start
    failed ("the session header changed while reading") and Pi ran without memory."""
    pi = Pi(tmp_path)
    first = started(pi)
    assert pi.call(first, "command", {"text": "pin -- Always run the linters"})["exitCode"] == 0
    pi.call(first, "shutdown", {})
    (pi.home / "waymarks.db").write_bytes(b"not a database" * 1000)
    pi.say("asked after the damage")
    second = started(pi)
    assert second.ledger is not None and second.ledger.entry_count == len(pi.entries)
    assert PIN_BEGIN in planned(pi, second)
    pi.call(second, "shutdown", {})


def test_the_end_of_a_turn_reads_the_last_user_message_not_the_whole_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``learn`` on ``agent_end`` looks at the turn's last user message for feedback
    (``memory <id> is incorrect.``), learning on or off: it decoded every entry of the
    session to keep the last user message (1.6 s per turn at 30 MB; past the call's 5 s
    the extension killed the bridge after each turn, and the next start paid again)."""
    from waymarks.ledger import entries as entries_module

    pi = Pi(tmp_path)
    for n in range(400):
        pi.say(f"message {n} " + "words of a long conversation " * 40)
    bridge = started(pi)
    decoded: list[str] = []
    body_of = entries_module.body_of

    def counting(raw: Any) -> Any:
        decoded.append(raw.id)
        return body_of(raw)

    monkeypatch.setattr(entries_module, "body_of", counting)
    pi.say("memory 0123abcd is incorrect.")
    pi.say("noted")  # the reply that ends the turn
    done = pi.call(bridge, "learn", {"event": "agent_end", "users": [pi.entries[-2]["id"]],
                                     "sync": {"entries": pi.entries[-2:],
                                              "leafId": pi.entries[-1]["id"]}})
    assert done["skipped"] == "learning_off", done
    assert 0 < len(decoded) < 60, len(decoded)  # not the 602 entries of the session
    assert pi.entries[-2]["id"] in decoded
    pi.call(bridge, "shutdown", {})
