"""Issue 23, end to end in the real Pi from npm (1.6, ``node@22``) with the Waymarks
extension, against the loopback fake model server:

- item 1: the active model's context window reaches the planner (lower priorities drop);
- item 4: ``memory_recall`` renders for Pi's active provider, not the configured default;
- item 6: an abort while the confirmation dialog is open ends ``cancelled``, nothing written;
- items 7 and 10: the tools ``remember``, ``recall_memory_entry``, ``capture_note`` and
  ``recall_memory``;
- item 8: ``pi -p "/remember …"`` runs the curation turn in print mode;
- item 9: ``/notes promote`` starts the visible promotion turn.

The print-mode ``/remember`` also runs on Pi 0.73 (``@mariozechner/pi-coding-agent``, Node 20).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_openai import FakeOpenAI, reply_text, reply_tools
from tests.hosts.pi_harness import PiHome, PiRpc, install

pytestmark = pytest.mark.slow  # the real Pi from npm: minutes, not seconds

PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"
MEMORY_BEGIN = "[WAYMARKS DURABLE MEMORY — QUOTED DATA]"


@pytest.fixture
def fake() -> Any:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def pi(tmp_path: Path, fake: FakeOpenAI) -> PiHome:
    home = PiHome(tmp_path, install("pi16"), fake.base_url)
    settings(home, defaultProjectTrust="always", compaction={"enabled": False})
    return home


def settings(home: PiHome, **values: Any) -> None:
    (home.agent / "settings.json").write_text(json.dumps(values))


def context_window(home: PiHome, tokens: int) -> None:
    path = home.agent / "models.json"
    models = json.loads(path.read_text())
    models["providers"]["fake"]["models"][0]["contextWindow"] = tokens
    path.write_text(json.dumps(models))


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def user_texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "\n".join(
                part.get("text", "") for part in content))
    return out


def said(result: Any) -> str:
    return str(result.stdout) + str(result.stderr)


# -- item 1 --------------------------------------------------------------------------------

def test_the_active_models_window_drops_lower_priorities_inside_pi(
        pi: PiHome, fake: FakeOpenAI) -> None:
    pi.run("-p", "hello")
    pi.run("-c", "-p", "/context pin -- Always answer in French")
    topics = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    for topic in topics:
        filler = " ".join(f"{topic}{n}" for n in range(40))
        pi.run("-c", "-p", f"/context memory add -- The deploy checklist item {topic} "
               f"requires {filler}")
    pi.run("-c", "-p", "what does the deploy checklist require?")
    roomy = fake.bodies[-1]
    injected = user_texts(roomy)[-2]
    assert injected.count(MEMORY_BEGIN) == len(topics)  # the default window holds all six
    whole = len(json.dumps(roomy["messages"])) + len(json.dumps(roomy.get("tools", [])))
    memory_tokens = len(injected) // 4
    # a window with room for the system prompt, tools, conversation, pin and request, and
    # about half of the memory
    context_window(pi, (whole - len(injected)) // 4 + memory_tokens // 2)
    pi.run("-c", "-p", "what does the deploy checklist require?")
    tight = fake.bodies[-1]
    texts = user_texts(tight)
    assert texts[-1] == "what does the deploy checklist require?"
    assert any(t.startswith(PIN_BEGIN) for t in texts)  # mandatory: kept
    kept = sum(t.count(MEMORY_BEGIN) for t in texts[-3:])
    assert 0 < kept < len(topics)  # memory (lower priority) dropped to fit, not all of it
    manifest = pi.run("-c", "-p", "/context manifest")
    assert "model limit reached" in said(manifest)


def test_a_chinese_conversation_counts_its_tokens_against_the_window(
        pi: PiHome, fake: FakeOpenAI) -> None:
    """A re-review: the extension sent Pi's conversation as characters and the bridge
    counted four to a token, so a Chinese conversation (a token a character) passed the
    model's window at a quarter of its size and memory was added to a full context.
    The extension counts tokens by the planner's rule now."""
    pi.run("-p", "hello")
    pi.run("-c", "-p", "/context memory add -- The deploy checklist requires the smoke "
           "tests and a signed tag")
    chinese = "部署之前必须先运行全部测试并检查数据库迁移。" * 150  # 3,300 characters
    pi.run("-c", "-p", chinese)
    pi.run("-c", "-p", "what does the deploy checklist require?")
    roomy = fake.bodies[-1]
    injected = user_texts(roomy)[-2]
    assert MEMORY_BEGIN in injected  # the default window holds it
    whole = len(json.dumps(roomy["messages"], ensure_ascii=False)) + len(
        json.dumps(roomy.get("tools", []), ensure_ascii=False))
    # room for everything and the memory when characters count a quarter each; short by
    # about 2,000 tokens when each Chinese character counts one
    context_window(pi, whole // 4 + 600)
    pi.run("-c", "-p", "what does the deploy checklist require?")
    texts = user_texts(fake.bodies[-1])
    assert texts[-1] == "what does the deploy checklist require?"
    assert not any(MEMORY_BEGIN in t for t in texts[-3:])
    assert "more than the model limit" in said(pi.run("-c", "-p", "/context manifest"))


# -- item 4 --------------------------------------------------------------------------------

def test_memory_recall_uses_pis_active_provider_not_the_configured_default(
        pi: PiHome, fake: FakeOpenAI) -> None:
    # the configured default provider is local (sees everything); Pi's active one, "fake",
    # is remote and may see only normal items
    (pi.waymarks_home / "config.toml").write_text(
        '[privacy]\ndefaultProvider = "ollama"\nlocalProviders = ["ollama"]\n')
    pi.run("-p", "hello")
    pi.run("-c", "-p", "/context memory add --classification sensitive -- The staging "
           "database password rotates every 17 days")
    pi.run("-c", "-p", "/context memory add -- The staging database listens on port 5433")
    fake.script = [reply_tools(("memory_recall", {"query": "staging database"})),
                   reply_text("ok")]
    pi.run("-c", "-p", "tell me about the staging database")
    [result] = tool_results(fake.bodies[-1])
    answer = json.loads(result)
    assert answer["outcome"] == "ok" and "5433" in result
    assert "17 days" not in json.dumps(fake.bodies)  # not in the tool result, nor anywhere


# -- item 6 --------------------------------------------------------------------------------

class AbortingRpc(PiRpc):
    """Aborts the agent (RPC ``abort``) instead of answering a confirmation dialog."""

    def _answer(self, event: dict[str, Any]) -> None:
        if event.get("method") == "confirm":
            self.asked.append(event)
            self.send({"type": "abort"})
        else:
            super()._answer(event)


def test_an_abort_while_the_dialog_is_open_is_cancelled_and_writes_nothing(
        pi: PiHome, fake: FakeOpenAI) -> None:
    fake.script = [reply_tools(("context_persistence", {"action": "memory_add",
                                                        "content": "Deploys go to staging"})),
                   reply_text("after the abort")]
    rpc = AbortingRpc(pi)
    try:
        rpc.prompt("remember that deploys go to staging")
    finally:
        rpc.close()
    assert len(rpc.asked) == 1 and "Deploys go to staging" in rpc.asked[0]["message"]
    entries = pi.entries()
    assert not [e for e in entries if e.get("customType") == "ds4-context-memory-v1"]
    results = [e["message"] for e in entries if e.get("type") == "message"
               and e["message"].get("role") == "toolResult"]
    assert len(results) == 1
    details = results[0].get("details") or {}
    assert (details.get("outcome"), details.get("errorCode")) == ("cancelled", "cancelled")


# -- items 7 and 10 ------------------------------------------------------------------------

def test_remember_and_recall_memory_entry_as_pi_tools(pi: PiHome, fake: FakeOpenAI) -> None:
    fake.script = [reply_text("1. I prefer small pull requests. Keep it?"),
                   reply_tools(("remember", {"text": "I prefer small pull requests"})),
                   reply_text("saved it")]
    rpc = PiRpc(pi, confirm=True)
    try:
        rpc.send({"id": "r1", "type": "prompt", "message": "/remember"})  # the curation turn
        rpc._until(60, lambda e: e.get("type") == "agent_end")
        assert rpc.asked == []  # its first answer saves nothing
        rpc.prompt("keep the first one")
    finally:
        rpc.close()
    assert len(rpc.asked) == 1 and "I prefer small pull requests" in rpc.asked[0]["message"]
    saved = json.loads(tool_results(fake.bodies[-1])[0])
    assert saved["outcome"] == "saved"
    entry = pi.waymarks_home / "memory" / saved["file"]
    assert "I prefer small pull requests" in entry.read_text()
    fake.script = [reply_tools(("recall_memory_entry", {"name": saved["slug"]})),
                   reply_text("fetched")]
    pi.run("-c", "-p", "what did I say about pull requests?")
    fetched = json.loads(tool_results(fake.bodies[-1])[-1])
    assert fetched["outcome"] == "ok" and "small pull requests" in fetched["text"]
    # print mode has no dialog: a save is unavailable and nothing is written
    fake.script = [reply_tools(("remember", {"text": "I like tabs"})), reply_text("no")]
    pi.run("-c", "-p", "remember that I like tabs")
    refused = json.loads(tool_results(fake.bodies[-1])[-1])
    assert (refused["outcome"], refused["category"]) == ("unavailable",
                                                         "confirmation-required")
    assert len(list((pi.waymarks_home / "memory").glob("*.md"))) == 2  # entry + MEMORY.md


def test_capture_note_and_recall_memory_as_pi_tools(pi: PiHome, fake: FakeOpenAI) -> None:
    docs = pi.project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "traps.md").write_text("# Traps\n\n## Database migrations\n\nRun every database "
                                   "migration inside one transaction.\n")
    fake.script = [reply_tools(("capture_note", {"text": "Migrations need one transaction"})),
                   reply_tools(("recall_memory", {"query": "database migrations"})),
                   reply_text("done")]
    pi.run("-p", "we learned something about migrations")
    noted, recalled = (json.loads(r) for r in tool_results(fake.bodies[-1]))
    assert noted["outcome"] == "saved"
    notes = [e for e in pi.entries() if e.get("customType") == "waymarks-note-v1"]
    assert [n["data"]["note"]["text"] for n in notes] == ["Migrations need one transaction"]
    assert notes[0]["id"] == noted["id"]  # appended by Pi, in Pi's own session file
    assert recalled["outcome"] == "ok" and recalled["trustedProject"] is True
    assert "inside one transaction" in recalled["docs"][0]["text"]


# -- items 8 and 9 -------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["pi16", "pi073"])
def test_remember_in_print_mode_runs_the_curation_turn(tmp_path: Path, fake: FakeOpenAI,
                                                      variant: str) -> None:
    pi = PiHome(tmp_path, install(variant), fake.base_url)
    fake.script = [reply_text("1. I prefer tabs — keep it?")]
    result = pi.run("-p", "/remember I prefer tabs")
    assert result.returncode == 0 and "keep it?" in result.stdout
    [body] = fake.bodies
    prompt = user_texts(body)[-1]
    assert prompt.startswith("[waymarks-memory-curation]") and '"I prefer tabs"' in prompt
    users = [e for e in pi.entries() if e.get("type") == "message"
             and e["message"]["role"] == "user"]
    assert len(users) == 1  # a visible turn, recorded in the session


def test_notes_promote_starts_the_visible_promotion_turn(pi: PiHome, fake: FakeOpenAI) -> None:
    pi.run("-p", "hello")
    added = pi.run("-c", "-p", "/notes add -- Run migrations in one transaction")
    assert added.returncode == 0
    listed = pi.run("-c", "-p", "/notes list")
    assert "Run migrations in one transaction" in said(listed)
    fake.script = [reply_text("Propose: docs/engineering/traps.md")]
    promoted = pi.run("-c", "-p", "/notes promote")
    assert promoted.returncode == 0 and "Propose: docs/engineering" in promoted.stdout
    prompt = user_texts(fake.bodies[-1])[-1]
    assert prompt.startswith("[waymarks-project-lesson-promotion]")
    assert "Run migrations in one transaction" in prompt
    fake.script = [reply_text("Again: docs/engineering/traps.md")]
    again = pi.run("-c", "-p", "/context notes promote")  # the same command, the same turn
    assert "Again: docs/engineering" in again.stdout
    assert user_texts(fake.bodies[-1])[-1] == prompt
