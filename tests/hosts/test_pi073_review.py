"""Defects a review of the Pi host reproduced with the real Pi 0.73.1 (npm's
``@mariozechner/pi-coding-agent``) and the fake model; each test failed before its fix."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text, reply_tools
from tests.hosts.pi_harness import PiHome, PiRpc, install

# the real Pi from npm (installed on first use) talking to a fake provider
pytestmark = pytest.mark.slow


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def pi(tmp_path: Path, fake: FakeOpenAI) -> PiHome:
    return PiHome(tmp_path, install("pi073"), fake.base_url)


def cli(pi: PiHome, *args: str) -> dict[str, Any]:
    """``waymarks --json ARGS`` in Pi's project, with Pi's environment."""
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", *args],
                          cwd=pi.project, env=pi.env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (0, 2), done
    return dict(json.loads(done.stdout))


def test_a_pin_in_a_session_file_without_a_reply_is_refused_not_lost(pi: PiHome) -> None:
    """``pi --session FILE -p "/context pin …"`` on a session Waymarks made printed
    "Pinned", yet the pin was never stored: Pi 0.73 writes nothing of a session to its
    file before its first assistant message, even to a file that exists. Refused now
    (not_saved), and the file is as it was."""
    cli(pi, "pin", "--", "Run the linters first.")
    [ledger] = sorted((pi.waymarks_home / "sessions").rglob("*.jsonl"))
    before = ledger.read_bytes()
    result = pi.run("--session", str(ledger), "-p", "/context pin -- Never force-push.")
    said = result.stdout + result.stderr  # (Pi's print mode sends an extension's to stderr)
    assert "not_saved" in said and "Pinned" not in said, result
    assert ledger.read_bytes() == before
    pins = cli(pi, "--session", str(ledger), "pins")["items"]
    assert [p["text"] for p in pins] == ["Run the linters first."]


@pytest.mark.parametrize("variant", ["pi073", "pi16"])
def test_a_refusal_in_print_mode_is_pis_exit_status(tmp_path: Path, fake: FakeOpenAI,
                                                    variant: str) -> None:
    """``pi -p "/context pin -- …"`` in a new session printed "Rejected (not_saved)" and
    ``pi -p "/context bogus"`` its error, both exit 0, though docs/hosts.md says a refusal
    exits 2. Pi's exit status is the command's now; an answer still exits 0."""
    pi = PiHome(tmp_path, install(variant), fake.base_url)
    refused = pi.run("-p", "/context pin -- Use ruff.")
    assert refused.returncode == 2 and "not_saved" in refused.stdout + refused.stderr
    unknown = pi.run("-p", "/context bogus")
    assert unknown.returncode == 2 and "/context offers" in unknown.stdout + unknown.stderr
    listed = pi.run("-p", "/context pins")
    assert listed.returncode == 0, listed
    # /remember's refusals too (a third re-read: a text over its limit exited 0)
    too_long = pi.run("-p", "/remember " + "x" * 4100)
    assert too_long.returncode == 2 and "limit" in too_long.stdout + too_long.stderr


def test_help_in_pi_starts_no_turn(pi: PiHome, fake: FakeOpenAI) -> None:
    """``/remember --help`` sent a curation turn to the model with "--help" prefilled, and
    ``/context -h`` answered an error at warning level. Both print help, exit 0, and
    nothing reaches the model."""
    remember = pi.run("-p", "/remember --help")
    assert remember.returncode == 0 and "/remember [TEXT]" in remember.stdout + \
        remember.stderr, remember
    context = pi.run("-p", "/context -h")
    assert context.returncode == 0 and "/context COMMAND -h" in context.stdout + \
        context.stderr, context
    assert fake.bodies == []


def test_a_slow_yes_to_remember_is_not_lost_to_a_request_queued_behind_it(
        pi: PiHome, fake: FakeOpenAI) -> None:
    """A review: with ``remember`` called beside another bridge tool in one response, Pi
    ran them in parallel; the bridge, waiting for the person's answer to remember's
    dialog, queued the other request, whose 5 s timer then killed the bridge, and the
    person's yes was lost. ``remember`` runs alone now (sequential: the other tool starts
    after it ended), and a request queued behind an open dialog (``/remember`` typed
    meanwhile) waits for it instead of timing out. The dialog stays open for twice the
    bridge's timeout (the extension's default, which the calls before and after it, the
    first prompt's plan and recall_memory_entry, are given as in every other test of the
    real Pi), so the queued request's timer runs out during it. That request was given
    another timeout each time its own ran out, so an answer at about N timeouts left it
    what remained of the current one, often nothing: the bridge was ended while it saved
    the confirmed entry, and the yes was lost (``unavailable``; a 1.5 s timeout with a 4 s
    dialog left 0.5 s, and CI's load took longer). It is given a whole timeout from the
    answer now."""
    timeout = 5.0  # seconds: the extension's default (settings.ts)
    pi.extra_env["WAYMARKS_BRIDGE_TIMEOUT_MS"] = str(int(timeout * 1000))
    fake.script = [reply_text("hi"), reply_tools(
        ("remember", {"text": "I prefer tabs in Python"}),
        ("recall_memory_entry", {"name": "tabs"})), reply_text("ok")]
    rpc = PiRpc(pi)
    held: list[dict[str, Any]] = []
    answer = rpc._answer

    def hold(event: dict[str, Any]) -> None:  # the person is still reading the dialog
        if event.get("method") == "confirm":
            held.append(event)
        else:
            answer(event)

    rpc._answer = hold  # type: ignore[method-assign]
    try:
        rpc.prompt("hello")
        rpc.send({"id": "r", "type": "prompt", "message": "remember that I prefer tabs"})
        events = rpc._until(60, lambda e: bool(held))
        rpc.send({"id": "c", "type": "prompt", "message": "/remember"})
        # (no event to wait on: a timer that runs out and is given another says nothing)
        time.sleep(2 * timeout)
        rpc.send({"type": "extension_ui_response", "id": held[0]["id"], "confirmed": True})
        events += rpc._until(60, lambda e: e.get("type") == "tool_execution_end"
                             and e.get("toolName") == "recall_memory_entry")
    finally:
        rpc.close()
    tools = [(e["type"], e["toolName"]) for e in events if e.get("type", "").startswith(
        "tool_execution_") and e["type"] != "tool_execution_update"]
    assert tools == [("tool_execution_start", "remember"), ("tool_execution_end", "remember"),
                     ("tool_execution_start", "recall_memory_entry"),
                     ("tool_execution_end", "recall_memory_entry")], tools
    results = {e["toolName"]: json.loads(e["result"]["content"][0]["text"].split("\n")[0])
               for e in events if e.get("type") == "tool_execution_end"}
    assert results["remember"]["outcome"] == "saved", results
    assert results["recall_memory_entry"]["outcome"] != "unavailable", results
    assert any(p.name != "MEMORY.md" for p in (pi.waymarks_home / "memory").glob("*.md"))


SECRET = "ghp_" + "g" * 36
INSTRUCTIONS = (f"Focus on the deploy; the token is {SECRET} and "
                "[ds4:local-only]CODENAME-KITE[/ds4:local-only]")
#: a second extension whose /summarize-tree command does what Pi's /tree does with a
#: summary and instructions (RPC has no command for it)
TREE = """
export default function (pi) {
  pi.registerCommand("summarize-tree", { handler: async (args, ctx) => {
    const first = ctx.sessionManager.getEntries().find((e) => e.type === "message");
    await ctx.navigateTree(first.id, { summarize: true, customInstructions: args });
  } });
}
"""


def test_compaction_and_tree_instructions_never_reach_the_model_unchecked(
        pi: PiHome, fake: FakeOpenAI) -> None:
    """A review: ``/compact`` instructions holding a credential and a local-only part were
    sent to the summarizing model as typed, while every other request had them redacted or
    withheld; a ``/tree`` summary's instructions too. A compaction whose instructions the
    check would change is cancelled now, saying why (Pi takes no changed copy of them);
    clean ones are used as given; a branch summary's are checked (Pi takes the copy)."""
    (pi.agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 1}}))
    (pi.root / "tree.js").write_text(TREE)
    rpc = PiRpc(pi, args=("-e", str(pi.root / "tree.js")))
    try:
        for text in ("first turn " + "filler " * 60, "second " + "more " * 60, "third"):
            rpc.prompt(text)
        sent = len(fake.bodies)
        rpc.send({"id": "c1", "type": "compact", "customInstructions": INSTRUCTIONS})
        refused = rpc._until(60, lambda e: e.get("command") == "compact")[-1]
        assert refused["success"] is False and len(fake.bodies) == sent, refused
        assert any("compaction was cancelled: its instructions" in n for n in rpc.notices)
        rpc.send({"id": "c2", "type": "compact", "customInstructions": "Focus on deploys."})
        done = rpc._until(60, lambda e: e.get("command") == "compact")[-1]
        assert done["success"] is True
        assert any("Focus on deploys." in json.dumps(b) for b in fake.bodies[sent:])
        rpc.prompt("fourth")
        sent = len(fake.bodies)
        rpc.send({"id": "t", "type": "prompt", "message": "/summarize-tree " + INSTRUCTIONS})
        rpc._until(60, lambda e: len(fake.bodies) > sent)
    finally:
        rpc.close()
    for body in fake.bodies:
        assert SECRET not in json.dumps(body) and "CODENAME-KITE" not in json.dumps(body)
    assert any("Focus on the deploy" in json.dumps(b)  # the tree's summary ran, checked
               for b in fake.bodies[sent:])
