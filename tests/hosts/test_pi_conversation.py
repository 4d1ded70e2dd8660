"""A provider request sends the bridge only the messages after those it holds (issue 15):
the answer is byte for byte a whole request's, whatever happened to the conversation
between two requests (an edit, a branch switch or compaction that cut it, a bridge that
started again), and a request the bridge cannot join is never sanitized from a guess."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymarks.hosts.pi_bridge import Bridge
from waymarks.hosts.pi_conversation import HeldConversation, SentConversation

KEY = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2
CALL = {"id": "call_1", "type": "function", "function": {
    "name": "context_persistence", "arguments": json.dumps({"action": "pins_find",
                                                            "query": "the deploy secret"})}}
#: messages a conversation is made of: plain turns, a credential, local-only text, the
#: history guard's tool traffic (whose rewriting depends on where the last user turn is)
POOL: list[dict[str, Any]] = [
    {"role": "user", "content": "fix the failing test"},
    {"role": "assistant", "content": "Done: the fixture was stale."},
    {"role": "user", "content": f"deploy with OPENAI_API_KEY={KEY}"},
    {"role": "user", "content": "plan [ds4:local-only]PRIVATE-PLAN[/ds4:local-only] next"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(
        {"outcome": "ok", "action": "pins_find", "results": [], "preview": "deploy key"})},
    {"role": "assistant", "content": "Ünïcode ✓ and \u2028 a separator"},
]


class Driver:
    """A bridge in this process, sent request lines as the extension writes them."""

    def __init__(self, home: Path) -> None:
        self.out = io.StringIO()
        self.bridge = Bridge(home, io.StringIO(), self.out)
        self.send(json.dumps({"id": 0, "method": "initialize", "params": {"cwd": str(home)}}))

    def send(self, line: str) -> dict[str, Any]:
        self.out.seek(0)
        self.out.truncate()
        self.bridge._handle(json.loads(line))
        answer: dict[str, Any] = json.loads(self.out.getvalue())
        return answer

    def close(self) -> None:
        self.send(json.dumps({"id": 9, "method": "shutdown"}))


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Driver]:
    started = Driver(tmp_path)
    yield started
    started.close()


def whole(driver: Driver, messages: list[Any], provider: str = "openai") -> dict[str, Any]:
    return driver.send(json.dumps({"id": 1, "method": "sanitize", "params": {
        "payload": {"model": "gpt-4.1", "messages": messages}, "provider": provider}}))


def delta(driver: Driver, sent: SentConversation, messages: list[Any],
          lines: list[str] | None = None) -> dict[str, Any]:
    """A request as the extension sends it: the tail, then the whole list on ``resync``."""
    texts = [json.dumps(m, ensure_ascii=False) for m in messages]
    params = {"payload": {"model": "gpt-4.1", "messages": messages}, "provider": "openai"}
    for resent in (False, True):
        line = sent.line(1, params, "messages", texts, whole=resent)
        if lines is not None:
            lines.append(line)
        answer = driver.send(line)
        if not answer.get("result", {}).get("resync"):
            break
    if "result" in answer:
        answer = {**answer, "result": sent.answered(answer["result"], "messages", texts)}
    return answer


def payload_of(answer: dict[str, Any]) -> str:
    result = answer["result"]
    return json.dumps({k: v for k, v in result.items() if k != "held"}, ensure_ascii=False)


#: what happens to the conversation before a request: a turn added, a message edited,
#: the list cut (a branch switch, a compaction), the bridge started again unknown to the
#: extension (it holds nothing), or a new bridge both know of
OPS = st.one_of(
    st.tuples(st.just("add"), st.integers(0, len(POOL) - 1)),
    st.tuples(st.just("edit"), st.integers(0, 60), st.integers(0, len(POOL) - 1)),
    st.tuples(st.just("cut"), st.integers(0, 60)),
    st.tuples(st.just("lost"), st.just(0)),
    st.tuples(st.just("new"), st.just(0)))


def test_tails_answer_byte_for_byte_what_whole_requests_do(tmp_path: Path) -> None:
    fresh, joined = Driver(tmp_path / "whole"), Driver(tmp_path / "tail")
    try:
        @settings(max_examples=60, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
        @given(st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=30),
               st.lists(OPS, min_size=1, max_size=12))
        def check(start: list[int], ops: list[tuple[Any, ...]]) -> None:
            messages = [dict(POOL[i]) for i in start]
            sent = SentConversation()
            joined.bridge._held = HeldConversation()  # (each example a new session)
            for op in ops:
                if op[0] == "add":
                    messages.append(dict(POOL[op[1]]))
                elif op[0] == "edit" and messages:
                    messages[op[1] % len(messages)] = {**POOL[op[2]], "name": "edited"}
                elif op[0] == "cut":
                    messages = [*messages[:op[1] % (len(messages) + 1)], dict(POOL[0])]
                elif op[0] == "lost":
                    joined.bridge._held = HeldConversation()
                else:
                    joined.bridge._held, sent = HeldConversation(), SentConversation()
                assert payload_of(delta(joined, sent, messages)) == payload_of(
                    whole(fresh, messages))

        check()
    finally:
        fresh.close()
        joined.close()


def test_a_later_request_sends_only_what_is_new_and_a_restart_resyncs(driver: Driver) -> None:
    sent, lines = SentConversation(), []
    messages = [dict(POOL[n % len(POOL)]) for n in range(40)]
    first = delta(driver, sent, messages, lines)
    messages.append({"role": "user", "content": "and the port?"})
    second = delta(driver, sent, messages, lines)
    assert [json.loads(line)["params"]["conversation"]["base"] for line in lines] == [0, 40]
    assert len(json.loads(lines[1])["params"]["tail"]) == 1
    assert KEY not in payload_of(second) and "PRIVATE-PLAN" not in payload_of(second)
    assert first["result"]["held"] != second["result"]["held"]
    driver.bridge._held = HeldConversation()  # the bridge started again
    lines.clear()
    messages.append({"role": "user", "content": "and the host?"})
    third = delta(driver, sent, messages, lines)
    assert [json.loads(line)["params"]["conversation"]["base"] for line in lines] == [41, 0]
    assert driver.send(lines[0])["result"] == {"resync": True, "why": (
        "the bridge holds another conversation (it started again, or read another "
        "request since): send it whole")}
    assert payload_of(third) == payload_of(whole(driver, messages))


def test_a_request_not_as_the_wire_says_is_refused_and_changes_nothing(driver: Driver) -> None:
    sent = SentConversation()
    messages = [dict(POOL[0]), dict(POOL[1])]
    delta(driver, sent, messages)
    held = driver.bridge._held.token
    good = {"payload": {"model": "m", "messages": []}, "provider": "openai", "tail": [],
            "conversation": {"key": "messages", "base": 2, "held": held}}
    bad = [({"conversation": {"key": "system", "base": 0}}, "its key one of"),
           ({"conversation": {"key": "messages", "base": -1}}, "base must be"),
           ({"conversation": {"key": "messages", "base": 2}}, "with the held token"),
           ({"conversation": {"key": "messages", "base": True, "held": held}},
            "base must be"),
           ({"tail": {"role": "user"}}, "tail must be the list"),
           ({"payload": {"model": "m", "messages": [POOL[2]]}}, "must be [] when")]
    for change, said in bad:
        answer = driver.send(json.dumps({"id": 1, "method": "sanitize",
                                         "params": {**good, **change}}))
        assert answer["error"]["code"] == "invalid_argument"
        assert said in answer["error"]["message"]
        assert driver.bridge._held.token == held  # nothing held changed
    messages.append(dict(POOL[2]))
    answer = delta(driver, sent, messages)
    assert "resync" not in answer["result"] and KEY not in payload_of(answer)


def test_an_answer_leaves_out_what_it_answered_unchanged_and_says_how_much(driver: Driver) -> None:
    sent, lines = SentConversation(), []
    messages = [dict(POOL[n % len(POOL)]) for n in range(40)]
    delta(driver, sent, messages, lines)
    messages.append({"role": "user", "content": "and the port?"})
    raw = driver.send(sent.line(2, {"payload": {"model": "gpt-4.1", "messages": messages},
                                    "provider": "openai"}, "messages",
                                [json.dumps(m, ensure_ascii=False) for m in messages]))
    # the earlier checked messages left out, the guard's rewritten ones too (equal);
    # not the last: a context_persistence call of the turn then in progress, history
    # now, which the guard rewrites
    assert messages[39]["tool_calls"] == [CALL]
    assert raw["result"]["same"] == 39
    assert len(raw["result"]["payload"]["messages"]) == 2
    assert raw["result"]["payload"]["messages"][0]["tool_calls"] != [CALL]
