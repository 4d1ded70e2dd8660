"""The bridge as a hostile or broken peer meets it: the real ``waymarks bridge`` process
over pipes, with bytes and requests the extension never sends. Each gets an answer (or is
dropped as a late answer); the bridge never dies, never reads its own protocol stream as
input, and never writes a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.pi_harness import WAYMARKS_BIN
from tests.hosts.test_bridge import Host, converse, user


def bridge(tmp_path: Path, lines: list[bytes], *, encoding: str = "utf-8",
           initialize: bool = True) -> tuple[list[dict[str, Any]], str]:
    """Run ``waymarks bridge`` with ``lines`` on standard input (then closed); its answers
    and standard error. ``PYTHONIOENCODING`` plays a locale whose standard streams are
    strict (macOS's en_US.UTF-8, say)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    init = json.dumps({"id": 1, "method": "initialize", "params": {"cwd": str(project)}})
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "PYTHONIOENCODING": encoding}
    done = subprocess.run([str(WAYMARKS_BIN), "bridge"], input=b"\n".join(
        [init.encode()] * initialize + lines) + b"\n", capture_output=True, cwd=project, env=env,
        timeout=60, check=False)
    answers = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    return answers, done.stderr.decode("utf-8", "replace")


def by_id(answers: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {json.dumps(a.get("id")): a for a in answers}


def test_bytes_that_are_not_utf8_and_lone_surrogates_get_answers_not_a_dead_bridge(
        tmp_path: Path) -> None:
    answers, stderr = bridge(tmp_path, [
        b'{"id":2,"method":"sy\xffnc"}',          # not UTF-8: the line is refused
        b'{"id":"\\ud800","method":"sync"}',     # an id JSON allows, UTF-8 cannot hold
        b'{"id":4,"method":"nope\\udfff"}',      # echoed in the error
        b'{"id":5,"method":"sync"}',
    ])
    seen = by_id(answers)
    assert "Traceback" not in stderr
    assert seen["2"]["error"]["code"] == "invalid_argument"
    assert "UTF-8" in seen["2"]["error"]["message"]
    assert seen['"\\ud800"']["result"] == {"entries": 0}
    assert seen["4"]["error"]["code"] == "unknown_method"
    assert seen["5"]["result"] == {"entries": 0}


def test_a_request_that_is_not_an_object_is_answered(tmp_path: Path) -> None:
    answers, stderr = bridge(tmp_path, [b'[{"id":2,"method":"sync"}]', b'"sync"',
                                        b'{"id":5,"method":"sync"}'])
    assert "Traceback" not in stderr
    refused = [a for a in answers if a["id"] is None]
    assert len(refused) == 2
    assert all(a["error"]["code"] == "invalid_argument" and "object" in a["error"]["message"]
               for a in refused)
    assert by_id(answers)["5"]["result"] == {"entries": 0}


def test_context_privacy_sanitize_never_reads_the_protocol_stream(tmp_path: Path) -> None:
    """``privacy sanitize`` reads a payload on standard input: inside the bridge that is
    Pi's requests, so it is refused there (Pi sanitizes every payload itself)."""
    answers, stderr = bridge(tmp_path, [
        json.dumps({"id": 2, "method": "command",
                    "params": {"text": "privacy sanitize --provider anthropic"}}).encode(),
        json.dumps({"id": 3, "method": "sync"}).encode()])
    seen = by_id(answers)
    assert "Traceback" not in stderr
    assert seen["2"]["result"]["exitCode"] != 0
    assert "standard input" in seen["2"]["result"]["text"]
    assert seen["3"]["result"] == {"entries": 0}


@pytest.mark.parametrize(("request_", "field"), [
    ({"method": "initialize", "params": {"entries": 5}}, "entries"),
    ({"method": "initialize", "params": {"cwd": {"a": 1}}}, "cwd"),
    ({"method": "initialize", "params": {"provider": 5}}, "provider"),
    ({"method": "initialize", "params": {"leafId": ["a1"]}}, "leafId"),
    ({"method": "initialize", "params": {"header": {"type": "session"}}}, "header"),
])
def test_initialize_with_fields_of_the_wrong_type_is_a_clear_error(
        tmp_path: Path, request_: dict[str, Any], field: str) -> None:
    out = converse(tmp_path, [{"id": 1, **request_},
                              {"id": 2, "method": "sync"}], Host())
    seen = {a["id"]: a for a in out}
    assert seen[1]["error"]["code"] == "invalid_argument", seen[1]
    assert field in seen[1]["error"]["message"]
    assert seen[2]["error"]["code"] == "not_initialized"  # nothing was set up


@pytest.mark.parametrize(("request_", "field"), [
    ({"method": "sync", "params": {"sync": {"leafId": ["a1"]}}}, "leafId"),
    ({"method": "sync", "params": {"sync": {"leafId": {"a": 1}}}}, "leafId"),
    ({"method": "plan", "params": {"prompt": "hi", "provider": {"a": 1}}}, "provider"),
    ({"method": "sanitize", "params": {"payload": {"messages": []}, "provider": 5}},
     "provider"),
])
def test_requests_with_fields_of_the_wrong_type_are_clear_errors_that_change_nothing(
        tmp_path: Path, request_: dict[str, Any], field: str) -> None:
    out = converse(tmp_path, [{"id": 1, "method": "initialize"}, {"id": 2, **request_},
                              {"id": 3, "method": "sync"}], Host())
    seen = {a["id"]: a for a in out}
    assert seen[2]["error"]["code"] == "invalid_argument", seen[2]
    assert field in seen[2]["error"]["message"]
    assert seen[3]["result"] == {"entries": 2}  # initialize's two: nothing more was fed


def test_an_entry_that_is_no_entry_is_skipped_and_the_rest_taken(tmp_path: Path) -> None:
    """One entry Pi sends with an ``id`` that is no text (a hand-edited line Pi loaded)
    refused the whole list: in ``initialize`` no bridge came up for that session, ever.
    It is skipped as a file's invalid line is; the entries beside it are taken."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"entries": [
            user("a1", None, "hello"), {"id": ["x"]}, 7]}},
        {"id": 2, "method": "sync", "params": {"sync": {"entries": [
            user("b1", "a1", "taken?"), {**user("b2", "b1", "x"), "id": ["b2"]}]}}},
        {"id": 3, "method": "sync"}], Host())
    seen = {a["id"]: a for a in out}
    assert "result" in seen[1] and "result" in seen[2], seen
    assert seen[3]["result"] == {"entries": 2}  # a1 and b1


def test_context_replies_never_carry_controls_that_drive_pis_terminal(tmp_path: Path) -> None:
    """``/context`` answers are shown on Pi's screen (or written to its terminal without a
    UI): a refusal that echoes its argument (an ID, a path, an option) shows an escape
    sequence or a direction override as text, never acts on it."""
    hostile = "zz\x1b]0;owned\x07\x1b[2J\u202eabc"
    texts = [f"unpin {hostile}", f"trust {hostile}", f"memory exclude {hostile}",
             f"memory supersede {hostile} -- new text", f"pins --{hostile}"]
    out = converse(tmp_path, [{"id": 0, "method": "initialize"}, *[
        {"id": i, "method": "command", "params": {"text": t}}
        for i, t in enumerate(texts, start=1)]], Host())
    replies = {a["id"]: a["result"] for a in out if a["id"] != 0}
    assert sorted(replies) == list(range(1, len(texts) + 1))
    for reply in replies.values():
        assert reply["exitCode"] != 0
        assert all(ch.isprintable() or ch in "\n\t" for ch in reply["text"]), reply["text"]
        assert "\\x1b" in reply["text"] or "\\u001b" in reply["text"]  # shown, as text


def test_shutdown_before_initialize_stops_the_bridge(tmp_path: Path) -> None:
    """Pi may end a session whose initialize never completed (it timed out, or failed):
    ``shutdown`` stops the bridge whatever came before, rather than 'call initialize
    first' and a bridge that lives on reading requests."""
    answers, stderr = bridge(tmp_path, [
        json.dumps({"id": 2, "method": "shutdown"}).encode(),
        json.dumps({"id": 3, "method": "sync"}).encode()], initialize=False)
    assert "Traceback" not in stderr
    assert answers == [{"id": 2, "result": {"stopped": True}}]  # and nothing after it


def test_a_second_initialize_binds_the_tool_to_the_new_session(tmp_path: Path) -> None:
    """An initialize that re-sends the session (or names another) replaced the service,
    but the ``context_persistence`` tool kept writing through the first one: a pin the
    person confirmed went into the replaced session's ledger, and the next plan (the new
    service's) never showed it."""
    from tests.hosts.test_bridge import HEADER

    other = tmp_path / "other"
    other.mkdir()
    (tmp_path / "s2.jsonl").touch()  # Pi has saved the second session too
    pin = {"name": "context_persistence", "arguments": {"action": "pin_add"}}
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "tool", "params": {
            **pin, "arguments": {**pin["arguments"], "content": "Alpha rules apply"}}},
        {"id": 3, "method": "initialize", "params": {
            "cwd": str(other), "sessionFile": str(tmp_path / "s2.jsonl"),
            "header": {**HEADER, "id": "22222222-2222-4222-8222-222222222222",
                       "cwd": str(other)}}},
        {"id": 4, "method": "tool", "params": {
            **pin, "arguments": {**pin["arguments"], "content": "Beta rules apply"}}},
        {"id": 5, "method": "plan", "params": {"prompt": "which rules apply"}},
        {"id": 6, "method": "shutdown"}], Host())
    seen = {a["id"]: a for a in out}
    assert seen[2]["result"]["details"]["outcome"] == "committed", seen[2]
    assert seen[4]["result"]["details"]["outcome"] == "committed", seen[4]
    pins = "".join(m["content"] for m in seen[5]["result"]["messages"] if m["kind"] == "pins")
    assert "Beta rules apply" in pins
    assert "Alpha rules apply" not in pins  # the first session's pin
    assert seen[6]["result"] == {"stopped": True}


def test_a_reader_gone_ends_the_bridge_quietly(tmp_path: Path) -> None:
    """Pi gone (its end of the bridge's standard output closed), the bridge's next answer
    met a broken pipe: it said "waymarks: Broken pipe (file); nothing was acknowledged"
    and exited 1, as if a write had failed. It now ends as a shutdown ends (its session's
    claim released, its stores closed), exit 0, saying nothing: there is no one to tell."""
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home")}
    process = subprocess.Popen([str(WAYMARKS_BIN), "bridge"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project,
                               env=env)
    assert process.stdin is not None and process.stdout is not None
    process.stdout.close()  # the reader goes before the first answer
    init = json.dumps({"id": 1, "method": "initialize", "params": {"cwd": str(project)}})
    process.stdin.write(init.encode() + b'\n{"id":2,"method":"sync"}\n')
    process.stdin.close()
    assert process.stderr is not None
    with process.stderr:
        stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0 and stderr == "", stderr
