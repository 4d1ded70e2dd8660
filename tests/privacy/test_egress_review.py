"""Defects an egress review reproduced: what a hand-edited or foreign ledger holds outside
an item's text (its key, its IDs), a credential wrapped at a line break other than
``\\n``, and learning under a stricter default classification. Each test failed before
its fix."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks
from waymarks.core.evolution.capture import sanitize
from waymarks.core.secrets import redact
from waymarks.hosts import claude_code
from waymarks.service.app import Waymarks
from waymarks.tool.recall import memory_recall

SESSION = "6f1c2b9e-8d1a-4c39-9d5e-0a1b2c3d4e5f"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
GITHUB = "ghp_" + "1234567890abcdefghijABCDEFGHIJ123456"
AWS = "AKIA" + "IOSFODNN7EXAMPLX"


def _planted(home: Path, project: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """A project claim about "zanzibar" whose stored mutation ``edit`` changed, as a
    hand edit (or a ledger from elsewhere) can; then the database rebuilt from it."""
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.remember("zanzibar port is 5433", scope="project")
        session = app.current_session()
        assert session is not None
        path = session.path
    lines = path.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[-1])
    edit(entry["data"]["item"])
    lines[-1] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = waymarks("--home", str(home), "rebuild-index", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


def _sent(home: Path, project: Path) -> dict[str, str]:
    """What a plan, the Claude Code hook and ``memory_recall`` send a remote provider."""
    prompt = "what is the zanzibar port?"
    out: dict[str, str] = {}
    plan = waymarks("--home", str(home), "--json", "plan", "--provider", "openai",
                    "--prompt", prompt, cwd=project)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    out["plan"] = "".join(m["content"] for m in json.loads(plan.stdout)["messages"])
    with Waymarks(home, cwd=str(project)) as app:
        out["recall"] = json.dumps(memory_recall(app, prompt, provider="openai"))
        hook = claude_code.handle("UserPromptSubmit", {
            "session_id": SESSION, "cwd": str(project), "prompt": prompt}, home, app)
        out["hook"] = json.dumps(hook)
    return out


@pytest.mark.parametrize("key", ["DB_PASSWORD=hunter2xyz", AWS,
                                 "postgres://admin:Hunter2Secret@db/x"])
def test_a_key_holding_a_credential_never_leaves_lower_cased(
        home: Path, project: Path, key: str) -> None:
    """The key was folded (lower case, slugged) before it was shown: the patterns that
    catch the credential no longer matched, and the password went out."""
    _planted(home, project, lambda item: item.update(key=key))
    for path, text in _sent(home, project).items():
        assert "5433" in text, path  # the claim itself still goes
        assert "hunter2" not in text.lower(), path
        assert AWS.lower() not in text.lower(), path


def test_ids_a_ledger_holds_go_through_the_egress(home: Path, project: Path) -> None:
    """Item and entry IDs were printed as read (``meta`` only quotes): a credential in
    one went to a remote model raw, through the plan, the hook and ``memory_recall``."""
    _planted(home, project, lambda item: item.update(id=STRIPE, sourceEntryIds=[GITHUB]))
    sent = _sent(home, project)
    assert "5433" in sent["plan"] and "5433" in sent["recall"]
    for path, text in sent.items():
        assert STRIPE[8:] not in text, path
        assert GITHUB[4:] not in text, path


@pytest.mark.parametrize("brk", ["\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b",
                                 "\x0c"])
def test_a_credential_wrapped_at_any_line_break_is_redacted_whole(brk: str) -> None:
    """Only ``\\n`` and ``\\r\\n`` were line breaks to the wrap rule, though the renderers
    and models read every break ``str.splitlines`` knows: the tail went out."""
    text = f"token {GITHUB[:24]}{brk}{GITHUB[24:]}{brk}then the next line"
    redacted = redact(text)[0]
    assert GITHUB[24:] not in redacted and "[REDACTED:github-token]" in redacted
    assert redacted.endswith(f"{brk}then the next line")


@pytest.mark.parametrize(("default", "expected"), [
    ("normal", "normal"), ("internal", "internal"), ("sensitive", "sensitive"),
    ("local-only", None)])
def test_a_captured_statement_takes_the_policys_default_level(default: str,
                                                              expected: str | None) -> None:
    kept = sanitize("From now on we always deploy with the blue flag.", default)  # type: ignore[arg-type]
    assert (kept[1] if kept else None) == expected
    marked = sanitize("Deploy with [ds4:sensitive]the red flag[/ds4:sensitive].", "internal")
    assert marked is not None and marked[1] == "sensitive"


def test_learning_keeps_unmarked_statements_at_the_default_classification(
        home: Path, project: Path) -> None:
    """``defaultClassification = "internal"`` counted for pins and memory, but a
    captured statement was stored ``normal``: sent to a route that takes only normal
    text, and its learned claims planned for remote models as normal."""
    from waymarks.service.evolution import Evolution

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "internal"\n',
                                      encoding="utf-8")
    with Evolution(home) as evo:
        [captured] = evo.capture_many(str(project), SESSION, [
            ("statement", "m1", "From now on we always deploy with the DEFSRC04 flag.")])
        assert captured is not None
        source = evo.store.view.source(captured.source_id)
        assert source is not None and source.classification == "internal"
    (home / "config.toml").write_text("[privacy\n", encoding="utf-8")  # unreadable
    with Evolution(home) as evo:  # nothing of it could be sent: nothing kept
        assert evo.capture_many(str(project), SESSION, [
            ("statement", "m2", "From now on we always run the linter first.")]) == [None]


def test_object_keys_of_a_payload_are_redacted_too() -> None:
    """The whole-payload sanitizer (Pi's requests, ``privacy sanitize``) redacted every
    string value but never a key: a credential as a key of a tool's input or of a tool
    schema's properties went out raw. Two keys that redact alike withhold the payload."""
    from waymarks.planner.sanitize import sanitize

    payload = {"model": "m", "max_tokens": 10, "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                           "input": {GITHUB: "x", "command": "ls"}}]}],
        "tools": [{"name": "t", "description": "d", "input_schema": {
            "type": "object", "properties": {AWS: {"type": "string"}}}}]}
    done = sanitize(payload, "anthropic")
    assert not done.withheld, done
    sent = json.dumps(done.payload)
    assert GITHUB[4:] not in sent and AWS not in sent
    assert '"command": "ls"' in sent and "[REDACTED:github-token]" in sent
    clash = {"model": "m", "max_tokens": 10, "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                           "input": {GITHUB: "x", "[REDACTED:github-token]":
                                                     "y"}}]}]}
    assert sanitize(clash, "anthropic").withheld
    from waymarks.core.privacy import ProviderPolicy

    # no redaction for a local model: kept as written
    local = sanitize(payload, "ollama", ProviderPolicy(local_providers=frozenset({"ollama"})))
    assert GITHUB in json.dumps(local.payload)


def test_a_credential_as_a_top_level_or_message_key_is_redacted() -> None:
    """Keys nested in a tool's input were redacted, but the walk of the payload's own keys
    and of a message's keys checked them for markers only: a credential there went out."""
    from waymarks.planner.sanitize import sanitize

    for payload in ({GITHUB: 1, "model": "m", "messages": [{"role": "user", "content": "hi"}]},
                    {"model": "m", "messages": [{"role": "user", "content": "hi", GITHUB: 1}]},
                    {"model": "m", "max_tokens": 10, "system": "s", "messages": [
                        {"role": "user", "content": [{"type": "text", "text": "hi",
                                                      GITHUB: 1}]}]}):
        done = sanitize(payload, "openai" if "system" not in payload else "anthropic")
        assert not done.withheld, done
        sent = json.dumps(done.payload)
        assert GITHUB[4:] not in sent and "[REDACTED:github-token]" in sent, sent


def test_the_log_keeps_no_credential_or_local_only_text_of_a_docs_or_personal_id(
        home: Path, project: Path) -> None:
    """A docs passage's ID is its path and heading, a personal entry's its slug: a heading
    holding a token, or a local-only one, went into `logs/waymarks.jsonl` ("IDs, counts
    and reasons, never text"). Such an ID is logged as its digest."""
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "zebra.md").write_text(
        f"# Zebra queue\n\n## ZEBRA key {GITHUB}\n\nThe zebra queue retries twice.\n\n"
        "## ZEBRA [ds4:local-only]LOCALHEADING[/ds4:local-only] part\n\n"
        "The zebra queue drains nightly.\n")
    waymarks("--home", str(home), "--cwd", str(project), "trust", ".", cwd=project)
    waymarks("--home", str(home), "--cwd", str(project), "personal", "save",
             "--classification", "local-only", "--", "Omega zebra notes are private",
             cwd=project)
    done = waymarks("--home", str(home), "--cwd", str(project), "--json", "plan",
                    "--provider", "openai", "--prompt", "how does the zebra queue work",
                    cwd=project)
    assert done.returncode == 0, done.stderr
    logged = (home / "logs" / "waymarks.jsonl").read_text()
    assert '"event": "plan"' in logged or '"plan"' in logged
    assert GITHUB[4:] not in logged and "LOCALHEADING" not in logged
    assert "omega-zebra" not in logged and "snippet:digest-" in logged
