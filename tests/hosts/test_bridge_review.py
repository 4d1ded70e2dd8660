"""Findings of a review of the Pi host with the real Pi 0.73, where the bridge alone
decides: driven as the extension drives it (in-process pipes, or a real ``waymarks
bridge`` process where the files it opens are the point)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hosts.test_bridge import HEADER, BridgeProcess, Host, converse, reply, user


def test_a_file_at_bridges_is_named_as_the_file_in_the_way(tmp_path: Path) -> None:
    """A regular file where the folder ``<home>/bridges`` goes: the held-back notice named
    ``bridges/<session id>.lock``, which cannot exist, as the file to move aside. It names
    ``bridges`` now, and the file is left as it was."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "bridges").write_text("not a folder")
    (tmp_path / "s.jsonl").touch()
    bridge = BridgeProcess(home, project)
    try:
        answer = bridge.call("initialize", cwd=str(project), sessionFile=str(
            tmp_path / "s.jsonl"), header={**HEADER, "cwd": str(project)},
            entries=[user("a1", None, "hi")], leafId="a1", hasUI=False)["result"]
    finally:
        bridge.close()
    assert answer["persistent"] is False
    assert f"({home / 'bridges'}: " in answer["heldBack"], answer
    assert ".lock" not in answer["heldBack"], answer
    assert (home / "bridges").read_text() == "not a folder"


def test_an_empty_pin_source_is_refused_in_pi_as_a_blank_one_is(tmp_path: Path) -> None:
    """``/context pin --source "" -- x`` was stored with no source while ``--source "  "``
    was refused (as off the branch): both are refused now as an empty ID, nothing
    appended."""
    host = Host()
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": 'pin --source "" -- Use ruff.'}},
        {"id": 3, "method": "command", "params": {"text": 'pin --source " " -- Use ruff.'}},
        {"id": 4, "method": "shutdown"}], host)
    results = {m["id"]: m["result"] for m in out if "result" in m}
    for n in (2, 3):
        assert results[n]["exitCode"] == 2 and results[n]["data"]["code"] == \
            "invalid_argument", results[n]
        assert "source entry ID is empty" in results[n]["text"]
    assert host.entries == []


def test_a_json_listing_in_pi_shows_the_json_document(tmp_path: Path) -> None:
    """``/context pins --json`` and ``/context memory --json`` showed an empty message in
    Pi: a listing for ``--json`` has no text (the document is its data), and the bridge
    passed the text on. The document is shown, on one line, as the command line prints
    it."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": "pin -- Run the linters"}},
        {"id": 3, "method": "command", "params": {"text": "memory add -- Port is 5433."}},
        {"id": 4, "method": "command", "params": {"text": "pins --json"}},
        {"id": 5, "method": "command", "params": {"text": "memory --json"}},
        {"id": 6, "method": "command", "params": {"text": "pins"}},
        {"id": 7, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    for n, text in ((4, "Run the linters"), (5, "Port is 5433.")):
        assert results[n]["exitCode"] == 0 and "\n" not in results[n]["text"]
        shown = json.loads(results[n]["text"])
        assert shown == results[n]["data"] and [i["text"] for i in shown["items"]] == [text]
    assert "Run the linters" in results[6]["text"] and not results[6]["text"].startswith("{")


def test_a_write_to_a_session_file_pi_holds_no_reply_of_is_refused(tmp_path: Path) -> None:
    """A review with Pi 0.73: a session file that exists but holds no assistant message
    (a session Waymarks made, used with ``pi --session FILE``; a ``touch``ed file) took
    ``/context pin`` as "Pinned", and the pin was lost: Pi writes nothing of a session to
    its file before its first reply, and the bridge looked only at whether the file
    existed. Refused now (``not_saved``, nothing appended, no dialog) until Pi's entries
    hold a reply; then the same write is taken."""
    host = Host()
    pin = {"name": "context_persistence", "arguments": {"action": "pin_add",
                                                        "content": "Keep commits small"}}
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {
            "entries": [user("a1", None, "hi")], "leafId": "a1"}},
        {"id": 2, "method": "command", "params": {"text": "pin -- Never force-push."}},
        {"id": 3, "method": "tool", "params": pin},
        {"id": 4, "method": "command", "params": {
            "text": "memory add -- The release branch is trunk.",
            "sync": {"entries": [reply("a2", "a1", "hello")], "leafId": "a2"}}},
        {"id": 5, "method": "shutdown"}], host)
    assert (tmp_path / "s.jsonl").exists()  # (the file is there: that was not enough)
    results = {m["id"]: m["result"] for m in out if "result" in m}
    assert results[2]["exitCode"] == 2 and results[2]["data"]["code"] == "not_saved"
    assert "first assistant message" in results[2]["text"]
    assert results[3]["details"]["errorCode"] == "not-saved"
    assert results[4]["exitCode"] == 0, results[4]  # a reply synced: Pi writes it now
    assert [e["customType"] for e in host.entries] == ["ds4-context-memory-v1"]


def test_help_inside_pi_is_help(tmp_path: Path) -> None:
    """``/remember --help`` started a curation turn with "--help" as the candidate, and
    ``/context -h`` answered the "/context offers" error (exit 2). Both are help now, exit
    0 and no turn; text after ``--`` is text, and an apostrophe is no quoting error."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "remember", "params": {"text": "--help"}},
        {"id": 3, "method": "remember", "params": {"text": "I prefer -h here"}},
        {"id": 4, "method": "command", "params": {"text": "-h"}},
        {"id": 5, "method": "command", "params": {"text": "--HELP"}},
        {"id": 6, "method": "remember", "params": {"text": "-- -h is my short flag"}},
        {"id": 7, "method": "remember", "params": {"text": "I don't like tabs"}},
        {"id": 8, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    for n in (2, 3):
        assert results[n]["prompt"] is None and results[n]["exitCode"] == 0
        assert results[n]["message"].startswith("/remember [TEXT]")
    for n in (4, 5):
        assert results[n]["exitCode"] == 0 and "pin" in results[n]["data"]["commands"]
        assert "/context COMMAND -h" in results[n]["text"]
    assert '"-h is my short flag"' in results[6]["prompt"]  # without its `--`
    assert "I don't like tabs" in results[7]["prompt"]


def test_a_session_pi_has_written_its_newest_entry_to_takes_a_write(tmp_path: Path) -> None:
    """The rule above is Pi 0.73's; Pi 1.x writes from the first message, and at once to
    a file that exists: its saved sessions were refused ``not_saved`` (a re-read, with the
    real Pi 1.6). A file holding the host's newest entry is saved, reply or not."""
    first = user("a1", None, "hi")
    (tmp_path / "s.jsonl").write_text(
        json.dumps({**HEADER, "cwd": str(tmp_path / "project")}, separators=(",", ":"))
        + "\n" + json.dumps(first, separators=(",", ":")) + "\n")  # as Pi writes them
    host = Host()
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"entries": [first], "leafId": "a1"}},
        {"id": 2, "method": "command", "params": {"text": "pin -- Never force-push."}},
        {"id": 3, "method": "shutdown"}], host)
    results = {m["id"]: m["result"] for m in out if "result" in m}
    assert results[2]["exitCode"] == 0, results[2]
    assert [e["customType"] for e in host.entries] == ["ds4-context-pin-v1"]


def test_a_plan_whose_pins_are_over_their_budget_says_why_for_the_person(
        tmp_path: Path) -> None:
    """Pins over ``maxPinnedTokens``: the plan falls back and adds nothing. The extension
    dropped the fallback without a word; the answer now carries ``pinsLeftOut`` (the
    plan's reason and the fix) for it to tell the person, and only then."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text("[context]\nmaxPinnedTokens = 150\n")
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": "pin -- Never push to main."}},
        {"id": 3, "method": "plan", "params": {"prompt": "fix the bug"}},
        {"id": 6, "method": "plan", "params": {"prompt": "fix the bug", "modelLimit": 30}},
        {"id": 4, "method": "command", "params": {"text": "pin -- Use tabs."}},
        {"id": 5, "method": "plan", "params": {"prompt": "fix the bug"}},
        {"id": 7, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    assert results[3]["pinsLeftOut"] is None and results[3]["messages"]
    over = results[5]
    assert over["messages"] == [] and over["fallback"].startswith("pins need")
    assert over["pinsLeftOut"].startswith(over["fallback"])
    assert "maxPinnedTokens" in over["pinsLeftOut"]
    assert "maxPinnedTokens" in results[4]["text"]  # the pin that tipped them over said so
    # the model's own window too small: a fallback, but the pins fit theirs (silent)
    assert results[6]["fallback"].startswith("system, tools, pins and request")
    assert results[6]["pinsLeftOut"] is None


def test_json_before_the_command_name_is_the_command_line_s(tmp_path: Path) -> None:
    """`/context --json pins` answered "/context offers: adr, config, …", naming the very
    command typed: `--json` may come before a command's name, as `waymarks --json pins`
    and `waymarks context "--json pins"` take it (docs/hosts.md)."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"provider": "openai"}},
        {"id": 2, "method": "command", "params": {"text": "pin -- Use tabs."}},
        {"id": 3, "method": "command", "params": {"text": "--json pins"}},
        {"id": 4, "method": "command", "params": {"text": "--JSON recall -- tabs"}},
        {"id": 5, "method": "command", "params": {"text": "--json bogus"}},
        {"id": 6, "method": "command", "params": {"text": "--json -- pins"}},
        {"id": 7, "method": "shutdown"}], Host())
    assert out[1]["result"]["exitCode"] == 0, out[1]
    listed = out[2]["result"]
    assert listed["exitCode"] == 0, listed
    assert [i["text"] for i in json.loads(listed["text"])["items"]] == ["Use tabs."]
    recalled = out[3]["result"]  # (Pi's provider given after the name: the root has none)
    assert recalled["exitCode"] == 0, recalled
    assert "selected" in json.loads(recalled["text"])
    for refused in (out[4]["result"], out[5]["result"]):
        assert refused["exitCode"] == 2 and refused["text"].startswith("/context offers:")


def test_json_alone_is_status_and_json_then_help_is_help(tmp_path: Path) -> None:
    """`/context --json` answered "/context offers: …" (exit 2) where `/context` alone is
    `status`, and `/context --json -h` the same where `/context -h` is help: `--json`
    before nothing is `--json status`, before `-h` help, as `waymarks --json` takes it."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": "--json"}},
        {"id": 3, "method": "command", "params": {"text": "--json -h"}},
        {"id": 4, "method": "command", "params": {"text": "--JSON --help"}},
        {"id": 5, "method": "command", "params": {"text": "--json status"}},
        {"id": 6, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    assert results[2]["exitCode"] == 0, results[2]
    assert json.loads(results[2]["text"]).keys() == json.loads(results[5]["text"]).keys()
    for n in (3, 4):
        assert results[n]["exitCode"] == 0 and "pin" in results[n]["data"]["commands"]
        assert "/context COMMAND -h" in results[n]["text"], results[n]


def test_hints_inside_pi_name_what_works_in_pi(tmp_path: Path) -> None:
    """Inside Pi, a trusted project's `/context pin` said it "will not apply after
    `waymarks session new`" (Pi starts a session with its /new), and `/context manifest`
    before any plan "No plan yet: run `waymarks plan --prompt TEXT`": terminal commands
    where the person is in Pi."""
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 5, "method": "command", "params": {"text": "trust ."}},
        {"id": 2, "method": "command", "params": {"text": "manifest"}},
        {"id": 3, "method": "command", "params": {"text": "pin -- Never push to main."}},
        {"id": 4, "method": "shutdown"}], Host())
    results = {m["id"]: m["result"] for m in out if "result" in m}
    assert results[2]["text"].startswith("No plan yet"), results[2]
    assert "`/context plan --prompt TEXT`" in results[2]["text"], results[2]
    assert results[3]["exitCode"] == 0, results[3]
    assert "will not apply after a new session (Pi's /new)" in results[3]["text"], results[3]
    for said in (results[2]["text"], results[3]["text"]):
        assert "`waymarks " not in said, said
