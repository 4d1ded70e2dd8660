"""Natural-language feedback in a Claude Code prompt (items 34/35), through the real hook
entry point in fresh processes: ``memory <id> is incorrect.`` is applied before the plan
(the claim is not injected on that turn or the next), with a receipt naming the event;
``undo`` brings it back; an unknown ID is a receipt, never the end of the hook; a retried
hook gives one receipt; questions and quotes are not feedback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.evolution.test_aging import days_ago, learn
from tests.evolution.test_end_to_end import _cli, _hook

SESSION = "4d4d4d4d-4d4d-4d4d-8d4d-4d4d4d4d4d4d"
ASK = "Which deployment tool do we use?"


def _prompt(home: Path, cwd: Path, prompt: str) -> dict[str, object]:
    out = _hook(home, cwd, "UserPromptSubmit", {"session_id": SESSION, "cwd": str(cwd),
                                                "prompt": prompt})
    return dict(json.loads(out)) if out else {}


def _context(reply: dict[str, object]) -> str:
    specific = reply.get("hookSpecificOutput")
    return str(specific.get("additionalContext", "")) if isinstance(specific, dict) else ""


def _told_incorrect(tmp_path: Path, home: Path, project: Path) -> tuple[str, str, int]:
    """A learned claim in a trusted project with learning on, and the person's prompt
    saying it is incorrect: ``(claim, the prompt, the verdict's event)``."""
    project.mkdir()
    _cli(home, project, "trust", str(project))
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    claim = learn(home, str(tmp_path / "a"), {
        "kind": "decision", "content": "Deployments use Kamal",
        "searchTerms": ["kamal"]}, days_ago(14))
    feedback = f"memory {claim} is incorrect."
    told = _prompt(home, project, feedback)
    return claim, feedback, int(str(told["systemMessage"]).split("event ")[1].split(";")[0])


@pytest.mark.slow
def test_incorrect_in_a_prompt_is_applied_before_the_plan_and_undo_restores(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    _cli(home, project, "trust", str(project))
    claim = learn(home, str(tmp_path / "a"), {
        "kind": "decision", "content": "Deployments use Kamal",
        "searchTerms": ["deploy", "deployment tool", "kamal"]}, days_ago(14))
    assert f"Learned ID: {claim}" in _context(_prompt(home, project, ASK))

    told = _prompt(home, project, f"memory {claim} is incorrect.")
    receipt = str(told["systemMessage"])
    assert "recorded 'incorrect'" in receipt and claim in receipt
    assert "Kamal" not in receipt  # IDs and codes, never the claim's content
    assert receipt in _context(told)
    assert f"Learned ID: {claim}" not in _context(told)  # applied before this turn's plan
    event = int(receipt.split("event ")[1].split(";")[0])
    assert f"Learned ID: {claim}" not in _context(_prompt(home, project, ASK))
    shown = _cli(home, project, "evolution", "show", claim)
    assert shown["state"] == "conflicted"
    receipts = shown["receipts"]
    assert isinstance(receipts, list) and len(receipts) == 1
    assert receipts[0]["sourceId"].startswith(f"claude:{SESSION}:")

    assert _cli(home, project, "evolution", "undo", str(event))["undone"] == event
    assert f"Learned ID: {claim}" in _context(_prompt(home, project, ASK))


@pytest.mark.slow
def test_an_unknown_id_is_a_receipt_and_the_rest_of_the_hook_runs(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    _cli(home, project, "trust", str(project))
    _cli(home, project, "pin", "--scope", "project", "--", "Always run the linters first")
    learn(home, str(tmp_path / "a"), {"kind": "fact", "content": "The staging port is 8080",
                                      "searchTerms": ["staging"]}, days_ago(14))
    told = _prompt(home, project, f"memory {'ab' * 12} is useful.")
    receipt = str(told["systemMessage"])
    assert "not recorded (not_found)" in receipt
    assert "PINNED CONTEXT" in _context(told)  # the plan still ran
    sessions = list((home / "sessions").glob(f"*/*_{SESSION}.jsonl"))
    assert len(sessions) == 1 and "is useful." in sessions[0].read_text()  # recorded


@pytest.mark.slow
def test_questions_and_quotes_are_not_feedback_and_a_receipt_is_kept_once(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    claim = learn(home, str(tmp_path / "a"), {
        "kind": "decision", "content": "Deployments use Kamal",
        "searchTerms": ["kamal"]}, days_ago(14))
    assert "systemMessage" not in _prompt(home, project, f"memory {claim} is incorrect?")
    assert "systemMessage" not in _prompt(home, project,
                                          f'He wrote "memory {claim} is incorrect."')
    assert _cli(home, project, "evolution", "show", claim)["state"] == "provisional"
    first = _prompt(home, project, f"memory {claim} is useful.")
    assert "recorded 'useful'" in str(first["systemMessage"])
    # one hook done twice (a stalled helper, then the hook's own process: one start, one
    # ledger entry): one receipt
    from waymarks.hosts.claude_code import handle, parse_input

    said = json.dumps({"session_id": SESSION, "cwd": str(project),
                       "prompt": f"memory {claim} is unhelpful."}).encode()
    started = time.time_ns() // 1_000_000
    twice = [handle("UserPromptSubmit", parse_input("UserPromptSubmit", said), home,
                    project=str(project), started_ms=started) or {} for _ in range(2)]
    assert "recorded 'unhelpful'" in str(twice[0]["systemMessage"])
    assert "Already recorded" in str(twice[1]["systemMessage"])
    receipts = _cli(home, project, "evolution", "show", claim)["receipts"]
    assert isinstance(receipts, list) and len(receipts) == 2
    # the person saying it again (a later hook, after a model turn) is a new turn: a new
    # verdict, its own receipt (it was taken for a retried hook, and the earlier turn's
    # receipt returned)
    from waymarks.hosts.claude_code import TWIN_HOOK_MS

    time.sleep(TWIN_HOOK_MS / 1000 + 0.2)  # (a turn: nothing is that quick)
    again = _prompt(home, project, f"memory {claim} is unhelpful.")
    assert "Already recorded" not in str(again["systemMessage"])
    [ledger] = (home / "sessions").glob(f"*/*_{SESSION}.jsonl")
    entries = ledger.read_text()
    assert entries.count(f"memory {claim} is unhelpful.") == 2


def _stop(home: Path, cwd: Path, transcript: Path) -> None:
    """The ``Stop`` hook through the real entry point, then its queued capture drained."""
    from waymarks.service.evolution import drain_captures

    _hook(home, cwd, "Stop", {"session_id": SESSION, "cwd": str(cwd),
                              "transcript_path": str(transcript)})
    drain_captures(home)


def _said(path: Path, *prompts: str | dict[str, object]) -> Path:
    """A Claude Code transcript whose user messages are ``prompts`` (one turn each)."""
    lines = []
    for n, prompt in enumerate(prompts):
        lines.append({"type": "user", "uuid": f"u{n}", "sessionId": SESSION,
                      "message": {"role": "user", "content": prompt}})
        lines.append({"type": "assistant", "uuid": f"a{n}", "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.slow
def test_feedback_only_in_the_transcript_is_applied_at_stop_once(tmp_path: Path) -> None:
    """Item 35 at ``Stop``: the ``UserPromptSubmit`` hook never saw the prompt (not
    installed, timed out); ``Stop`` reads it from the transcript and applies it, keyed by
    the transcript entry: a later ``Stop`` over the same transcript, or after an undo,
    does not apply it again."""
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    _cli(home, project, "trust", str(project))
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    claim = learn(home, str(tmp_path / "a"), {
        "kind": "decision", "content": "Deployments use Kamal",
        "searchTerms": ["deploy", "deployment tool", "kamal"]}, days_ago(14))
    transcript = _said(tmp_path / "t.jsonl", ASK, f"memory {claim} is incorrect.")
    _stop(home, project, transcript)
    shown = _cli(home, project, "evolution", "show", claim)
    assert shown["state"] == "conflicted"  # quarantined: not injected next turn
    [receipt] = shown["receipts"]  # type: ignore[misc]
    assert receipt["sourceId"] == f"claude:{SESSION}:transcript:u1"
    assert f"Learned ID: {claim}" not in _context(_prompt(home, project, ASK))
    history = _cli(home, project, "evolution", "history")
    [event] = [e["event"] for e in history["events"]  # type: ignore[union-attr]
               if e["op"] == "feedback" and e["applied"]]
    assert _cli(home, project, "evolution", "undo", str(event))["undone"] == event
    _stop(home, project, transcript)  # the same last message: the receipt holds
    assert _cli(home, project, "evolution", "show", claim)["state"] == "provisional"
    assert f"Learned ID: {claim}" in _context(_prompt(home, project, ASK))


@pytest.mark.slow
def test_stop_reuses_the_prompt_hooks_receipt(tmp_path: Path) -> None:
    """Both hooks saw the prompt: the verdict is applied once (by ``UserPromptSubmit``),
    and ``Stop`` finds that receipt (keyed by the prompt's ledger entry) even after an
    undo, so the undone verdict never comes back."""
    home, project = tmp_path / "home", tmp_path / "b"
    claim, _, event = _told_incorrect(tmp_path, home, project)
    assert _cli(home, project, "evolution", "undo", str(event))["undone"] == event
    _stop(home, project, _said(tmp_path / "t.jsonl", f"memory {claim} is incorrect."))
    shown = _cli(home, project, "evolution", "show", claim)
    assert shown["state"] == "provisional"
    assert len(shown["receipts"]) == 1  # type: ignore[arg-type]


@pytest.mark.slow
def test_feedback_with_an_unreadable_ledger_names_it_not_nothing_learned(
        tmp_path: Path) -> None:
    """A directory in the learned ledger's place cannot be read: the receipt said the
    feedback was not recorded because "nothing has been learned yet" (``not_found``), as if
    the claim had never existed; it names the ledger's problem, and the prompt's plan runs."""
    home, project = tmp_path / "home", tmp_path / "b"
    project.mkdir()
    _cli(home, project, "trust", str(project))
    _cli(home, project, "pin", "--scope", "project", "--", "Always run the linters first")
    claim = learn(home, str(tmp_path / "a"), {
        "kind": "fact", "content": "The staging port is 8080", "searchTerms": ["staging"]},
        days_ago(14))
    ledger = home / "evolution" / "ledger.jsonl"
    ledger.rename(ledger.with_name("ledger.jsonl.aside"))
    ledger.mkdir()
    told = _prompt(home, project, f"memory {claim} is useful.")
    receipt = str(told["systemMessage"])
    assert "not recorded" in receipt and "nothing has been learned" not in receipt, receipt
    assert "not_found" not in receipt, receipt
    assert "PINNED CONTEXT" in _context(told)  # the plan still ran
